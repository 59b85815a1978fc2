// The demo run twice with one --dir: each run starts fresh log files, the previous run's kept as NAME.1,
// and the demo says where its logs are as it starts.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { npmRun } from './support/npm-run.ts';

const startsIn = (file: string, started: RegExp): number =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => started.test(l)).length;

async function converge(dir: string): Promise<string> {
  const run = npmRun('demo', ['--until-converged', '--dir', dir, '--timeout-seconds', '120']);
  const guard = setTimeout(() => void run.stopGroup('SIGKILL'), 180_000);
  try {
    const exit = await run.exited;
    assert.deepEqual(exit, { code: 0, signal: null }, run.output().slice(-3000));
    return run.output();
  } finally {
    clearTimeout(guard);
    await run.stopGroup();
  }
}

test('two demo runs: each log file holds one run, the previous run is NAME.1, and the demo says where', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-e2e-demo-logs-'));
  const logs = path.join(dir, 'logs');
  try {
    const first = await converge(dir);
    assert.equal(first.split('\n')[0], `demo: logs in ${logs}`, first.slice(0, 500));
    const second = await converge(dir);
    assert.match(
      second.split('\n')[0] ?? '',
      new RegExp(`^demo: logs in ${logs} \\(the previous run’s kept as NAME\\.1\\)$`),
    );
    for (const [app, started] of [
      ['watcher', /"msg":"watcher starting"/],
      ['worker-0', /"msg":"worker started"/],
      ['worker-1', /"msg":"worker started"/],
      ['dashboard', /"msg":"dashboard started"/],
    ] as const) {
      assert.equal(startsIn(path.join(logs, `${app}.log`), started), 1, `${app}.log holds one run`);
      assert.equal(
        startsIn(path.join(logs, `${app}.log.1`), started),
        1,
        `${app}.log.1 holds the run before`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
