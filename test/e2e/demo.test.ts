// The README's demo, run the way a user runs it: `npm run demo -- …` with the repository as cwd.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parseTable } from './support/check.ts';
import { demoLogReader, untilDemoStarted } from './support/demo-run.ts';
import { trackDescendants } from './support/processes.ts';
import { assertPrintedMetricsServe } from './support/printed-metrics.ts';
import { REPO } from './support/harness.ts';
import { npmRun, until, userEnv, within } from './support/npm-run.ts';
import { isAlive, kubectl as runKubectl, waitFor } from '@podset/testkit';
import { demoOptions } from '../../tools/demo/src/options.ts';

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
  // Every process of the run, however it is grouped (each child gets only its own variables: found by descent).
  const tree = trackDescendants(run.child.pid ?? -1);
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
    // The watcher's and the workers' /metrics, at the URLs it printed.
    await assertPrintedMetricsServe(run, ['watcher', 'worker-0', 'worker-1']);
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
    // The README's rollout, run as written (but for where the kubeconfig is): it changes the image only.
    const patched = await runShell(
      readmeCommand('patch ps web').replaceAll('.tmp/demo/kubeconfig', kubeconfig),
      dir,
    );
    assert.equal(patched.code, 0, patched.output);
    const web = await kubectl(['get', 'ps', 'web', '-o', 'json']);
    const template = (JSON.parse(web.stdout) as { spec: { template: { spec: unknown } } }).spec.template.spec;
    assert.deepEqual(template, {
      ...(template as object),
      containers: [{ name: 'nginx', image: 'nginx:1.28', ports: [{ containerPort: 80 }] }],
    });
    // npm's shell, the demo, redis-server, the script loader, the watcher, two workers, the dashboard.
    const alive = () => [...tree.seen].filter(isAlive);
    assert.ok(alive().length >= 8, tree.describe());
    // Ctrl-C in a terminal: SIGINT to the whole foreground process group.
    run.signalGroup('SIGINT');
    const exit = await within(run.exited, 20_000);
    assert.notEqual(
      exit,
      undefined,
      `expected the demo to stop within 20 s of Ctrl-C:\n${run.output().slice(-2000)}`,
    );
    // The demo's processes are in process groups of their own: look for them by what they were given.
    await waitFor('every process of the demo to be gone after Ctrl-C', () => alive().length === 0, {
      timeoutMs: 20_000,
      describe: () => tree.describe(),
    });
    assert.doesNotMatch(run.output(), /exited \(|shutdown did not finish/, run.output().slice(-2000));
    // One signal each, so each stopped the graceful way (an app that also got the terminal's SIGINT
    // would take the demo's SIGTERM as a second signal and exit without draining).
    for (const [app, stopped] of [
      ['watcher', 'watcher stopped'],
      ['worker-0', 'worker stopped'],
      ['worker-1', 'worker stopped'],
      ['dashboard', 'dashboard stopped'],
    ] as const) {
      const text = readFileSync(path.join(dir, 'logs', `${app}.log`), 'utf8');
      assert.doesNotMatch(text, /received again|exiting without waiting/, `${app}:\n${text.slice(-2000)}`);
      assert.match(text, new RegExp(`"msg":"${stopped}"`), `${app}:\n${text.slice(-2000)}`);
    }
  } finally {
    tree.stop();
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

test('npm run demo -- --help lists every option with its meaning and default', async () => {
  const run = npmRun('demo', ['--help']);
  const exit = await within(run.exited, 60_000);
  await run.stopGroup();
  assert.deepEqual(exit, { code: 0, signal: null }, run.output());
  for (const [name, o] of Object.entries(demoOptions(REPO))) {
    const line = run
      .output()
      .split('\n')
      .find((l) => l.trimStart().startsWith(`--${name}`));
    assert.ok(line?.includes(o.meaning), `--${name} is not explained in:\n${run.output()}`);
    if (o.type === 'string') assert.match(line ?? '', /\(default .+\)$/);
  }
});

test('npm run demo | head -3: the closed pipe ends the demo and all it started, with no EPIPE trace', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-e2e-demo-'));
  // As typed in a shell (head's three lines are npm's header): the pipe closes before the demo writes.
  const shell = spawn('sh', ['-c', `npm run demo -- --dir '${dir}' | head -3`], {
    cwd: REPO,
    env: userEnv({}),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const tree = trackDescendants(shell.pid ?? -1);
  let out = '';
  let err = '';
  shell.stdout.on('data', (c: Buffer) => (out += c.toString()));
  shell.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise((resolve) => shell.once('exit', resolve));
  try {
    // The shell waits for the whole pipeline, the demo included: it returns once the demo has stopped.
    const exit = await within(exited, 120_000);
    assert.notEqual(exit, undefined, `the demo did not end after its output closed:\n${out}\n${err}`);
    assert.equal(out.split('\n').length - 1, 3, out);
    assert.doesNotMatch(err, /EPIPE|Error|at .*\.ts:\d+/, err);
    await waitFor('every process the demo started to be gone', () => ![...tree.seen].some(isAlive), {
      timeoutMs: 30_000,
      describe: () => tree.describe(),
    });
  } finally {
    tree.stop();
    try {
      process.kill(-(shell.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a reader that goes away mid-run: the demo stops its apps as one Ctrl-C does, each draining', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-e2e-demo-'));
  const run = npmRun('demo', ['--dir', dir]);
  const logOf = demoLogReader(dir);
  try {
    await untilDemoStarted(run, logOf);
    // The read end of the demo's stdout, a real pipe, closes: its next write of the table fails.
    run.child.stdout?.destroy();
    const exit = await within(run.exited, 60_000);
    assert.notEqual(exit, undefined, `the demo did not end after its output closed:\n${run.output()}`);
    assert.doesNotMatch(run.output(), /EPIPE|Error|exited \(/, run.output().slice(-2000));
    for (const app of ['watcher', 'worker-0', 'worker-1']) {
      const text = logOf(app);
      assert.match(text, /"msg":"(watcher|worker) stopped"/, `${app}:\n${text.slice(-2000)}`);
      assert.doesNotMatch(text, /exiting without waiting|shutdown did not finish/, text.slice(-2000));
    }
  } finally {
    await run.stopGroup();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The README command (continued lines joined) in the shell block line that contains `words`. */
function readmeCommand(words: string): string {
  const lines = readFileSync(path.join(REPO, 'README.md'), 'utf8').split('\n');
  const start = lines.findIndex((l) => l.includes(words));
  assert.ok(start >= 0, `README has no command with "${words}"`);
  let command = lines[start] ?? '';
  for (let i = start + 1; command.endsWith('\\'); i++) command = `${command.slice(0, -1)}${lines[i] ?? ''}`;
  return command;
}

/** `command` in sh, from the repository, with HOME in `dir` so kubectl's cache stays there. */
function runShell(command: string, dir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? '', HOME: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = `$ ${command}\n`;
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}
