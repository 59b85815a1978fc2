// The README's demo, run the way a user runs it: `npm run demo -- …` with the repository as cwd.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parseTable } from './support/check.ts';
import { REPO, sleep } from './support/harness.ts';
import { kubectl as runKubectl, waitFor } from '@podset/testkit';

/** The user's environment, minus what would make the run depend on the machine or the test runner. */
function userEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.REDIS_URL; // the demo then starts its own redis-server
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  delete env.KUBECONFIG;
  return env;
}

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM to the whole process group (npm, sh, node and the demo's children), SIGKILL after a grace. */
  stopGroup: (signal?: NodeJS.Signals) => Promise<void>;
  signalGroup: (signal: NodeJS.Signals) => void;
  groupAlive: () => boolean;
}

function npmRunDemo(args: string[]): Run {
  // Its own process group, so that a test timeout can end npm, the demo and every child it started.
  const child = spawn('npm', ['run', '--silent', 'demo', '--', ...args], {
    cwd: REPO,
    env: userEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const group = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const stopGroup = async (signal: NodeJS.Signals = 'SIGTERM') => {
    group(signal);
    const timer = setTimeout(() => group('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
    // npm may be gone while the demo's own children are still exiting.
    await sleep(200);
    group('SIGKILL');
  };
  const groupAlive = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  process.once('exit', () => group('SIGKILL'));
  return { child, output: () => out, exited, stopGroup, signalGroup: group, groupAlive };
}

test('npm run demo -- --until-converged exits 0 once every example PodSet converged', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-e2e-demo-'));
  const run = npmRunDemo(['--until-converged', '--dir', dir, '--timeout-seconds', '120']);
  const guard = setTimeout(() => void run.stopGroup('SIGKILL'), 180_000);
  try {
    const exit = await run.exited;
    assert.deepEqual(
      exit,
      { code: 0, signal: null },
      `expected the demo to exit 0; it printed:\n${run.output().slice(-3000)}\n${logTails(dir)}`,
    );
    assert.match(run.output(), /all \d+ PodSets converged/);
  } finally {
    clearTimeout(guard);
    await run.stopGroup();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('while the demo runs, kubectl with its kubeconfig scales a PodSet and sees it converge; SIGINT exits 0', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-e2e-demo-'));
  const run = npmRunDemo(['--dir', dir]);
  const kubeconfig = path.join(dir, 'kubeconfig');
  const kubectl = (args: string[]) =>
    runKubectl(args, {
      kubeconfig,
      cacheDir: path.join(dir, 'kube-cache'),
      allowFail: true,
      timeoutMs: 30_000,
    });
  try {
    await until(
      'the demo to print its kubeconfig path',
      60_000,
      () => run.output().includes(kubeconfig),
      run,
    );
    // The demo created the examples as `kubectl apply` would: applying them again warns about nothing.
    const reapplied = await kubectl(['apply', '-f', path.join(REPO, 'examples')]);
    assert.equal(reapplied.code, 0, reapplied.stderr);
    assert.doesNotMatch(reapplied.stderr, /last-applied-configuration|Warning/, reapplied.stderr);
    const scaled = await kubectl(['scale', 'ps', 'web', '--replicas=5']);
    assert.equal(scaled.code, 0, `kubectl scale failed: ${scaled.stderr}`);
    let last = '';
    await until(
      'kubectl get ps web to show DESIRED 5 CURRENT 5 UP-TO-DATE 5 AVAILABLE 5',
      90_000,
      async () => {
        const r = await kubectl(['get', 'ps', 'web']);
        last = r.stdout + r.stderr;
        const row = parseTable(r.stdout)[0];
        return (
          row?.DESIRED === '5' && row.CURRENT === '5' && row['UP-TO-DATE'] === '5' && row.AVAILABLE === '5'
        );
      },
      run,
      () => last,
    );
    // Ctrl-C in a terminal: SIGINT to the whole foreground process group.
    run.signalGroup('SIGINT');
    const exit = await within(run.exited, 20_000);
    assert.notEqual(
      exit,
      undefined,
      `expected the demo to stop within 20 s of Ctrl-C:\n${run.output().slice(-2000)}`,
    );
    let gone = false;
    for (let i = 0; i < 50 && !gone; i++) {
      gone = !run.groupAlive();
      if (!gone) await sleep(200);
    }
    assert.ok(
      gone,
      'expected every process of the demo (kube-sim, redis, watcher, workers) to be gone after Ctrl-C',
    );
    assert.doesNotMatch(run.output(), /exited \(|shutdown did not finish/, run.output().slice(-2000));
  } finally {
    await run.stopGroup();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Waits for `ok`; gives up at once when the demo exits. Either failure shows what was seen and the demo's output. */
async function until(
  what: string,
  timeoutMs: number,
  ok: () => boolean | Promise<boolean>,
  run: Run,
  seen: () => string = () => '',
): Promise<void> {
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void run.exited.then((e) => (exit = e));
  await waitFor(what, ok, {
    timeoutMs,
    intervalMs: 300,
    giveUp: () => (exit === undefined ? undefined : `the demo exited (${JSON.stringify(exit)})`),
    describe: () => `last seen:\n${seen()}\ndemo output:\n${run.output().slice(-3000)}`,
  });
}

/** The promise's value, or undefined after `ms` (the timer does not outlive the wait). */
async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function logTails(dir: string): string {
  const parts: string[] = [];
  for (const name of ['watcher', 'worker-0', 'worker-1']) {
    try {
      const text = readFileSync(path.join(dir, 'logs', `${name}.log`), 'utf8')
        .trim()
        .split('\n');
      parts.push(`--- ${name}.log (last lines)\n${text.slice(-12).join('\n')}`);
    } catch {
      parts.push(`--- ${name}.log: none`);
    }
  }
  return parts.join('\n');
}
