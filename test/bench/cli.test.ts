// The bench and chaos command lines: --help prints the usage and exits 0; a flag they don't know is
// named, with the usage, and exits 2 — never a stack trace.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

const REPO = path.resolve(import.meta.dirname, '../..');
const NODE = path.join(REPO, 'node_modules/.bin/node');

function run(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      NODE,
      [path.join(REPO, script), ...args],
      { cwd: REPO, timeout: 30_000 },
      (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
      },
    );
  });
}

for (const script of ['bench/chaos.ts', 'bench/run.ts', 'bench/failing-podset.ts']) {
  test(`${script} --help prints its usage and exits 0`, async () => {
    const r = await run(script, ['--help']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^usage: /);
    assert.doesNotMatch(r.stderr, /\bat .*\.ts:\d+/, 'no stack trace');
  });

  test(`${script} with an unknown flag names it and exits 2`, async () => {
    const r = await run(script, ['--no-such-flag']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /Unknown option '--no-such-flag'/);
    assert.match(r.stderr, /usage: /);
    assert.doesNotMatch(r.stderr, /\bat .*\.ts:\d+/, 'no stack trace');
  });
}

test('bench/run.ts --pod-startup-ms takes "DELAY,JITTER": anything else is named and exits 2', async () => {
  for (const bad of ['5', '5,x', '1,2,3', '-1,5']) {
    const r = await run('bench/run.ts', ['converge', `--pod-startup-ms=${bad}`]);
    assert.equal(r.code, 2, bad);
    assert.match(r.stderr, /--pod-startup-ms must be/, bad);
    assert.doesNotMatch(r.stderr, /\bat .*\.ts:\d+/, 'no stack trace');
  }
});

test("converge's --pod-startup-ms reaches kube-sim's options for the limit, the peer and the operator alike", async () => {
  const { simOptionsOf } = await import('../../bench/scenarios/converge/options.ts');
  assert.deepEqual(simOptionsOf({ latencyMs: 3, podStartup: { delay: 1000, jitter: 4000 } }), {
    latencyMs: 3,
    startupDelayMs: 1000,
    startupJitterMs: 4000,
  });
  assert.deepEqual(simOptionsOf({ latencyMs: 0 }), { latencyMs: 0 }, "kube-sim's defaults otherwise");
});

test('bench/run.ts converge: a --lifecycle it does not know, or one beside --node-agent, is named and exits 2', async () => {
  for (const [args, message] of [
    [['converge', '--lifecycle', 'slow'], /--lifecycle must be kubelet or fast, got "slow"/],
    [['converge', '--node-agent', '--lifecycle', 'fast'], /--node-agent replaces kube-sim's lifecycle/],
    [['latency', '--node-agent'], /--lifecycle and --node-agent are converge's/],
  ] as const) {
    const r = await run('bench/run.ts', [...args]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, message);
  }
});
