// The README's demo, run the way a user runs it: `npm run demo -- …` with the repository as cwd.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parseTable } from './support/check.ts';
import { REPO, sleep } from './support/harness.ts';
import { npmRun, until, within } from './support/npm-run.ts';
import { kubectl as runKubectl } from '@podset/testkit';

test('npm run demo -- --until-converged exits 0 once every example PodSet converged', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-e2e-demo-'));
  const run = npmRun('demo', ['--until-converged', '--dir', dir, '--timeout-seconds', '120']);
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
  const run = npmRun('demo', ['--dir', dir]);
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
