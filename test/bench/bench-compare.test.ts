// `bench compare` end to end, as a child process like `npm run bench -- compare` runs it. The base is given
// with --base-dir (a tree already installed) so the test pays for no checkout and npm ci: the checkout and
// its cache are test/bench/compare-base-tree.test.ts's. A stand-in base shows the failures; the working
// tree against itself shows a whole compare (latency --smoke, two pairs: four runs of ~20 s).
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { ratio } from '../../bench/compare/stats.ts';
import { ratioText } from '../../bench/compare/table.ts';
import { waitFor } from '@podset/testkit';

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const REPO = path.resolve(import.meta.dirname, '../..');
const NODE = path.join(REPO, 'node_modules/.bin/node');
const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-compare-'));
/** How long a compare may run before it counts as hung (its test's own bound is longer). */
const HANG_MS = 600_000;
after(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function compare(args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      NODE,
      [path.join(REPO, 'bench/run.ts'), 'compare', ...args],
      // Bounds a hang only: four latency runs took 158 s at a load average of 17.
      { cwd: REPO, timeout: HANG_MS, maxBuffer: 32 << 20 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A base tree whose bench prints `usage` for --help and otherwise fails with exit 3. */
function standInBase(name: string, usage: string): string {
  const base = path.join(dir, name);
  mkdirSync(path.join(base, 'node_modules/.bin'), { recursive: true });
  mkdirSync(path.join(base, 'bench'));
  symlinkSync(NODE, path.join(base, 'node_modules/.bin/node'));
  writeFileSync(
    path.join(base, 'bench/run.ts'),
    `if (process.argv.includes('--help')) { console.log(${JSON.stringify(usage)}); process.exit(0); }\n` +
      `console.error('the stand-in base cannot run ' + process.argv[2]); process.exit(3);\n`,
  );
  return base;
}

test('an option the base’s bench does not know is named before anything runs', async () => {
  const base = standInBase('old', 'usage: npm run bench -- <converge|latency> [options]\n  --smoke');
  const r = await compare(['--base-dir', base, '--scenarios', 'latency', '--smoke', '--rate', '50']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /the base's bench .* does not know --rate/);
  assert.doesNotMatch(r.stderr, /starting on/, 'no run started');
});

test('a base run that fails is named, with its exit and its last lines, and exits 1', async () => {
  const base = standInBase('failing', 'usage: npm run bench -- <converge|latency> [options]\n  --smoke');
  const json = path.join(dir, 'failing.json');
  const r = await compare(['--base-dir', base, '--scenarios', 'latency', '--smoke', '--json', json]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /not compared: base \(.*failing.*\) failed in pair 1: exit 3/);
  assert.match(r.stdout, /the stand-in base cannot run latency/);
  const record = JSON.parse(readFileSync(json, 'utf8')) as {
    scenarios: { failure?: string; runs: unknown[] }[];
  };
  assert.match(record.scenarios[0]?.failure ?? '', /^base .* failed in pair 1/);
  assert.equal(record.scenarios[0]?.runs.length, 1, 'the head did not run after its pair’s base failed');
});

test('interrupted, compare stops the running bench and what it started, and exits 130', async (t) => {
  const base = standInBase('sleeper', 'usage: npm run bench -- <converge|latency> [options]\n  --smoke');
  // This base's bench starts a process of its own (as a run starts kube-sim and the apps) and waits.
  writeFileSync(
    path.join(base, 'bench/run.ts'),
    `if (process.argv.includes('--help')) { console.log('usage: npm run bench -- <latency>'); process.exit(0); }\n` +
      `const { spawn } = await import('node:child_process');\n` +
      `const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)'], { stdio: 'ignore' });\n` +
      `console.error('grandchild ' + sleeper.pid);\nsetTimeout(() => {}, 600000);\n`,
  );
  const child = spawn(
    NODE,
    [path.join(REPO, 'bench/run.ts'), 'compare', '--base-dir', base, '--scenarios', 'latency'],
    {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  const grandchild = await new Promise<number>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const m = /grandchild (\d+)/.exec(stderr);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', () => reject(new Error(`compare ended first:\n${stderr}`)));
  });
  // Should the assertions below fail, the sleeper still goes.
  t.after(() => {
    try {
      process.kill(grandchild, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  assert.equal(await exited, 130, stderr);
  // The signal reached it directly; give it the moment it needs to end.
  const alive = (): boolean => {
    try {
      process.kill(grandchild, 0);
      return true;
    } catch {
      return false;
    }
  };
  // Polled until gone; the bound only ends a hang (a process that outlives the compare stays for good).
  await waitFor(`process ${grandchild} the base's bench started to end with the compare`, () => !alive(), {
    timeoutMs: 120_000,
    intervalMs: 100,
  });
});

interface CompareRecord {
  base: { dir: string; how: string };
  scenarios: {
    scenario: string;
    figures: { name: string; base: number[]; head: number[]; ratios: number[]; median: number }[];
    runs: { pair: number; side: string; code: number; file: string }[];
  }[];
}

test(
  'the working tree against itself: two pairs in swapped order, each figure’s ratios and spread',
  { timeout: 900_000 },
  async () => {
    const json = path.join(dir, 'self.json');
    const r = await compare(['--base-dir', REPO, '--scenarios', 'latency', '--smoke', '--json', json]);
    const context = `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr.slice(-4000)}`;
    assert.equal(r.code, 0, context);
    assert.match(
      r.stdout,
      /^figure\s+base runs\s+head runs\s+head÷base per pair\s+median \(min–max\)/m,
      context,
    );
    // The p50 row: its ratios are head ÷ base per pair, printed as such; a figure equal in all four runs (a
    // smoke run's whole-millisecond p50 can be) is named among those that never moved instead.
    const record = JSON.parse(readFileSync(json, 'utf8')) as CompareRecord;
    const latency = record.scenarios[0]!;
    const P50_ROW = 'row: event → reconcile start p50';
    const shown = latency.figures.find((f) => f.name === P50_ROW);
    assert.ok(shown, `${P50_ROW} compared`);
    const shownRatios = shown.base.map((b, i) => ratio(shown.head[i]!, b));
    // The record is JSON: an ∞ ratio (a base p50 of 0 ms) is kept as null.
    assert.deepEqual(shown.ratios, JSON.parse(JSON.stringify(shownRatios)));
    const everyRun = [...shown.base, ...shown.head];
    if (everyRun.every((v) => v === everyRun[0]))
      assert.match(r.stdout, new RegExp(`^the same in every run: .*${escape(P50_ROW)} = `, 'm'), context);
    else
      assert.match(
        r.stdout,
        new RegExp(
          `^${escape(P50_ROW)}\\s+\\S+, \\S+ ms\\s+\\S+, \\S+ ms\\s+${escape(shownRatios.map(ratioText).join(', '))}\\s`,
          'm',
        ),
        context,
      );
    // The runs' own output is streamed with a prefix saying which run it is.
    assert.match(r.stderr, /^\[head 2\/2 latency\] /m);
    assert.equal(record.base.how, 'given');
    assert.deepEqual(
      latency.runs.map((x) => `${x.pair}${x.side}`),
      ['1base', '1head', '2head', '2base'],
    );
    for (const run of latency.runs) {
      assert.equal(run.code, 0);
      assert.ok(existsSync(run.file), `each run's record is kept: ${run.file}`);
    }
    const p50 = latency.figures.find((f) => f.name === 'data.p50');
    assert.ok(p50, 'data.p50 compared');
    assert.equal(p50.ratios.length, 2);
    assert.deepEqual(p50.ratios, JSON.parse(JSON.stringify(p50.base.map((b, i) => ratio(p50.head[i]!, b)))));
  },
);
