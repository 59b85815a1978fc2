// The demo's own redis-server dies (killed, out of memory): the demo says so in one line, starts it again
// on the same port (empty), and the operator carries on — a scale made after it converges.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { isAlive, kubectl as runKubectl } from '@podset/testkit';
import { parseTable } from './support/check.ts';
import { npmRun, until, within } from './support/npm-run.ts';
import { demoLogReader, untilDemoStarted } from './support/demo-run.ts';
import { trackDescendants } from './support/processes.ts';

const cmdline = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
};

test("the demo's redis-server killed: one line saying so, restarted, and the operator still converges", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-e2e-demo-redis-'));
  const run = npmRun('demo', ['--dir', dir]);
  const tree = trackDescendants(run.child.pid ?? -1);
  const logOf = demoLogReader(dir);
  const kubectl = (args: string[]) =>
    runKubectl(args, {
      kubeconfig: path.join(dir, 'kubeconfig'),
      cacheDir: path.join(dir, 'kube-cache'),
      allowFail: true,
      timeoutMs: 30_000,
    });
  try {
    await untilDemoStarted(run, logOf);
    const servers = () =>
      [...tree.seen].filter((pid) => isAlive(pid) && cmdline(pid).startsWith('redis-server'));
    const [server] = servers();
    assert.ok(server !== undefined, tree.describe());
    process.kill(server, 'SIGKILL');

    const died = /its redis-server on port (\d+) died \(SIGKILL\); restarting it in [\d.]+ s/;
    await until('the demo to say its redis-server died', 30_000, () => died.test(run.output()), run);
    await until(
      'the demo to say its redis-server is back',
      60_000,
      () => /redis-server is back/.test(run.output()),
      run,
    );
    assert.equal(
      run
        .output()
        .split('\n')
        .filter((l) => died.test(l)).length,
      1,
      run.output(),
    );
    const port = died.exec(run.output())?.[1];
    const restarted = servers();
    assert.equal(restarted.length, 1, tree.describe());
    assert.match(cmdline(restarted[0] ?? -1), new RegExp(`:${port}\\b`));

    // The operator works on the new, empty Redis: a scale made now converges.
    const scaled = await kubectl(['scale', 'ps', 'web', '--replicas=4']);
    assert.equal(scaled.code, 0, scaled.stderr);
    let last = '';
    await until(
      'kubectl get ps web to show DESIRED 4 CURRENT 4 AVAILABLE 4',
      90_000,
      async () => {
        const r = await kubectl(['get', 'ps', 'web']);
        last = r.stdout + r.stderr;
        const row = parseTable(r.stdout)[0];
        return row?.DESIRED === '4' && row.CURRENT === '4' && row.AVAILABLE === '4';
      },
      run,
      () => last,
    );
    run.signalGroup('SIGINT');
    const exit = await within(run.exited, 30_000);
    // npm itself ends by the signal; the demo's own word is what it printed.
    assert.notEqual(exit, undefined, `the demo did not stop on Ctrl-C:\n${run.output().slice(-2000)}`);
    assert.doesNotMatch(run.output(), /exited \(|stopping the demo/, run.output().slice(-2000));
  } finally {
    tree.stop();
    await run.stopGroup();
    rmSync(dir, { recursive: true, force: true });
  }
});
