// `npm run operator` as a user runs it against the current kubeconfig context, here a kube-sim's:
// it installs the missing CRD, starts a Redis and the apps, reconciles a PodSet applied with kubectl,
// and stops everything on Ctrl-C.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startKubeSim, type KubeSim } from '@podset/kube-sim';
import { kubectl as runKubectl, waitFor } from '@podset/testkit';
import { PODS, PODSETS, activePodsOf, podSetProblems } from './support/check.ts';
import { FAST_PODS } from './support/harness.ts';
import { npmRun, until, within } from './support/npm-run.ts';
import { descendantsOf, processesNaming, stillRunning, type SeenProcess } from './support/processes.ts';
import { assertPrintedMetricsServe } from './support/printed-metrics.ts';

const CRD = 'customresourcedefinitions.apiextensions.k8s.io';
let dir: string;
let sim: KubeSim;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'podset-e2e-operator-'));
  sim = await startKubeSim({ kubeconfigPath: path.join(dir, 'kubeconfig'), controllerOptions: FAST_PODS });
});
after(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Every process the run started, as the process tree under npm has it now, checked to hold each kind the
 * launcher starts. Each is in a process group of its own and has only its own variables, so neither the
 * group nor an environment variable finds them all; by descent they are all there while the launcher runs.
 */
/** The launcher's own process (npm runs it through a shell, `sh -c node …`). */
const LAUNCHER = /^(?!sh -c )\S*node .*tools\/demo\/src\/operator\.ts/;
const NPM_SHELL = /^sh -c /;

/**
 * What the launcher said it stopped ("operator: stopped watcher 12, worker-0 13, …"): it names each process
 * once it has stopped it and waited for it to end. Every process it started but itself and npm's shell must
 * be named: none was left to stop by itself once the launcher was gone (die-with-parent, Redis's watchdog),
 * which would hide a launcher that forgot one.
 */
function assertLauncherStopped(output: string, started: SeenProcess[]): void {
  const line = /operator: stopped (.*)/.exec(output)?.[1] ?? '';
  const named = new Set(line.split(', ').map((n) => Number(n.split(' ').at(-1))));
  const unnamed = started.filter(
    (p) => !named.has(p.pid) && !LAUNCHER.test(p.cmdline) && !NPM_SHELL.test(p.cmdline),
  );
  assert.deepEqual(
    unnamed.map((p) => `${p.pid} ${p.cmdline}`),
    [],
    `the launcher said it stopped: ${line}`,
  );
}

function startedBy(run: { child: { pid?: number | undefined } }, workers: number): SeenProcess[] {
  const started = descendantsOf(run.child.pid ?? -1);
  const all = started.map((p) => `${p.pid} ${p.cmdline}`).join('\n');
  const expected: [string, RegExp, number][] = [
    ['the launcher', LAUNCHER, 1],
    ['redis-server', /(^|\/)redis-server\b/, 1],
    ["redis-server's watchdog", /redis-watchdog\.ts/, 1],
    ['the script loader', /redis-scripts-main\.ts/, 1],
    ['the watcher', /apps\/watcher\/src\/main\.ts/, 1],
    ['the workers', /apps\/worker\/src\/main\.ts/, workers],
  ];
  for (const [what, pattern, count] of expected) {
    const found = started.filter((p) => pattern.test(p.cmdline)).length;
    assert.equal(found, count, `${what}: ${found} found under the run:\n${all}`);
  }
  return started;
}

const describeRunning = (started: SeenProcess[]) =>
  started
    .filter(stillRunning)
    .map((p) => `still running: ${p.pid} ${p.cmdline}`)
    .join('\n');

/** KUBECONFIG is the only way the run learns of the cluster; HOME has no ~/.kube. */
const userEnv = (kubeconfig: string) => ({ KUBECONFIG: kubeconfig, HOME: dir });

test('--no-install-crd on a cluster without the CRD says how to install it (exit 1)', async () => {
  const run = npmRun(
    'operator',
    ['--no-install-crd', '--dir', path.join(dir, 'run-0')],
    userEnv(sim.kubeconfigPath),
  );
  try {
    const exit = await within(run.exited, 60_000);
    assert.deepEqual(exit, { code: 1, signal: null }, run.output());
    assert.match(
      run.output(),
      /the PodSet CRD podsets\.podset\.io is not installed in this cluster: kubectl apply -k crds/,
    );
    assert.equal(sim.cluster.get(CRD, undefined, 'podsets.podset.io'), undefined);
  } finally {
    await run.stopGroup();
  }
});

test('no kubeconfig, or an API server that does not answer: said plainly, before anything starts', async () => {
  const none = npmRun('operator', ['--dir', path.join(dir, 'run-none')], { HOME: dir });
  const noneExit = await within(none.exited, 60_000);
  await none.stopGroup();
  assert.deepEqual(noneExit, { code: 2, signal: null }, none.output());
  assert.match(none.output(), /no kubeconfig: .*\.kube\/config does not exist/);

  const dead = path.join(dir, 'dead-kubeconfig');
  writeFileSync(
    dead,
    readFileSync(sim.kubeconfigPath, 'utf8').replace(/server: \S+/, 'server: https://127.0.0.1:1'),
  );
  const run = npmRun('operator', ['--dir', path.join(dir, 'run-dead')], userEnv(dead));
  const exit = await within(run.exited, 60_000);
  await run.stopGroup();
  assert.deepEqual(exit, { code: 1, signal: null }, run.output());
  assert.match(run.output(), /cannot reach the API server at https:\/\/127\.0\.0\.1:1/);
  assert.doesNotMatch(run.output(), /redis-server started/);
});

test('npm run operator installs the CRD, reconciles a PodSet applied with kubectl; Ctrl-C stops it all', async () => {
  const run = npmRun(
    'operator',
    ['--dir', path.join(dir, 'run-1'), '--workers', '2'],
    userEnv(sim.kubeconfigPath),
  );
  const kubectl = (args: string[]) =>
    runKubectl(args, {
      kubeconfig: sim.kubeconfigPath,
      cacheDir: path.join(dir, 'kube-cache'),
      timeoutMs: 30_000,
    });
  try {
    await until('the watcher to lead', 90_000, () => run.output().includes('watcher leading'), run);
    assert.match(run.output(), /CRD podsets\.podset\.io installed now from crds\/podset\.yaml/);
    assert.match(run.output(), /a redis-server started for the operator/);
    assert.notEqual(sim.cluster.get(CRD, undefined, 'podsets.podset.io'), undefined);
    // The watcher's and the workers' /metrics, at the URLs it printed.
    await assertPrintedMetricsServe(run, ['watcher', 'worker-0', 'worker-1']);

    const manifest = {
      apiVersion: 'podset.io/v1',
      kind: 'PodSet',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 3 },
    };
    const file = path.join(dir, 'web.json');
    writeFileSync(file, JSON.stringify(manifest));
    await kubectl(['apply', '-f', file]);
    let seen: string[] = [];
    await until(
      'web to converge (3 pods running and ready, status reported)',
      90_000,
      () => {
        seen = podSetProblems(
          sim.cluster.get(PODSETS, 'default', 'web'),
          sim.cluster.list(PODS, 'default'),
          'web',
        );
        return seen.length === 0;
      },
      run,
      () => seen.join('\n'),
    );

    const started = startedBy(run, 2);
    // Ctrl-C in a terminal: SIGINT to the whole foreground process group.
    run.signalGroup('SIGINT');
    const exit = await within(run.exited, 45_000);
    assert.notEqual(
      exit,
      undefined,
      `expected it to stop within 45 s of Ctrl-C:\n${run.output().slice(-2000)}`,
    );
    assert.match(run.output(), /operator: stopped/);
    assertLauncherStopped(run.output(), started);
    await waitFor(
      'every process the run started (the launcher, redis-server and its watchdog, the script loader, the watcher, the workers) to be gone after Ctrl-C',
      () => !started.some(stillRunning),
      { timeoutMs: 20_000, describe: () => describeRunning(started) },
    );
    assert.doesNotMatch(run.output(), /exited \(/, run.output().slice(-2000));
  } finally {
    await run.stopGroup();
  }
});

/** A process's environment, by /proc. */
function environOf(pid: number): Map<string, string> {
  const vars = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  return new Map(
    vars.filter((v) => v.includes('=')).map((v) => [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)]),
  );
}

test('npm run operator gives each child its own variables only: the dashboard no PROJECTION_HMAC_KEY', async () => {
  const key = 'test-projection-key-' + 'k'.repeat(32);
  const token = 'test-dashboard-token-0123456789';
  const run = npmRun('operator', ['--dir', path.join(dir, 'run-env'), '--workers', '1', '--dashboard'], {
    ...userEnv(sim.kubeconfigPath),
    PROJECTION_HMAC_KEY: key,
    DASHBOARD_TOKEN: token,
  });
  try {
    await until('the watcher to lead', 90_000, () => run.output().includes('watcher leading'), run);
    await until('the dashboard to listen', 60_000, () => /dashboard\s+http/.test(run.output()), run);
    const byEntry = (entry: string) => {
      // This run's (other runs may be on the machine): each has this cluster's KUBECONFIG.
      const found = processesNaming(`KUBECONFIG=${sim.kubeconfigPath}`).filter((p) => p.includes(entry));
      assert.equal(found.length, 1, `one ${entry}: ${found.join('\n')}`);
      return environOf(Number(found[0]?.split(' ')[0]));
    };
    const watcher = byEntry('apps/watcher/src/main.ts');
    const worker = byEntry('apps/worker/src/main.ts');
    const dashboard = byEntry('apps/dashboard/src/main.ts');
    assert.equal(watcher.get('PROJECTION_HMAC_KEY'), key, 'the watcher gets the key it needs');
    assert.equal(worker.get('PROJECTION_HMAC_KEY'), key, 'the worker gets the key it needs');
    assert.equal(dashboard.has('PROJECTION_HMAC_KEY'), false, 'the dashboard is not given the key');
    assert.equal(dashboard.get('DASHBOARD_TOKEN'), token, 'the dashboard gets its token');
    for (const [app, env] of [
      ['watcher', watcher],
      ['worker', worker],
    ] as const)
      assert.equal(env.has('DASHBOARD_TOKEN'), false, `the ${app} is not given the dashboard's token`);
    // Nor does any other child have the key: only the run's own processes (npm, its shell, the operator)
    // and the watcher and the worker. Not redis-server, not the script loader, not the dashboard.
    const holders = processesNaming(`PROJECTION_HMAC_KEY=${key}`).map((p) => p.split(' ').slice(1).join(' '));
    const children = holders.filter((c) => !/\bnpm\b|^sh |tools\/demo\/src\/operator\.ts/.test(c));
    assert.equal(children.length, 2, `the watcher and the worker only:\n${children.join('\n')}`);
    assert.ok(
      children.every((c) => /apps\/(watcher|worker)\/src\/main\.ts/.test(c)),
      children.join('\n'),
    );
  } finally {
    await run.stopGroup();
  }
});

test('one Ctrl-C to the process group drains: each worker finishes its active reconcile, none exits at once', async () => {
  const runDir = path.join(dir, 'run-drain');
  const logs = path.join(runDir, 'logs');
  const run = npmRun('operator', ['--dir', runDir, '--workers', '2'], userEnv(sim.kubeconfigPath));
  const podsOf = (name: string) => {
    const ps = sim.cluster.get(PODSETS, 'default', name);
    return ps === undefined ? [] : activePodsOf(ps, sim.cluster.list(PODS, 'default'));
  };
  try {
    await until('the watcher to lead', 90_000, () => run.output().includes('watcher leading'), run);
    for (const name of ['drain-a', 'drain-b']) {
      sim.cluster.create(PODSETS, {
        apiVersion: 'podset.io/v1',
        kind: 'PodSet',
        metadata: { name, namespace: 'default' },
        spec: { replicas: 0 },
      });
    }
    // Slow API calls, so each scale-up below is one long reconcile (all its creates in one pass: 90 is
    // below a pass's cap, 100 at the default KUBE_QPS) that is still creating when Ctrl-C comes.
    sim.faults.set({ latencyMs: 400 });
    for (const name of ['drain-a', 'drain-b']) {
      const ps = sim.cluster.get(PODSETS, 'default', name);
      assert.ok(ps);
      sim.cluster.update(PODSETS, { ...ps, spec: { ...(ps['spec'] as object), replicas: 90 } });
    }
    await until(
      'both scale-ups to have created their first pods',
      90_000,
      () => podsOf('drain-a').length > 0 && podsOf('drain-b').length > 0,
      run,
    );

    // Ctrl-C in a terminal: SIGINT to the whole foreground process group (npm, the operator).
    run.signalGroup('SIGINT');
    const exit = await within(run.exited, 120_000);
    // npm itself ends by the SIGINT it got; what counts is what the operator and its workers did.
    assert.notEqual(exit, undefined, `expected it to stop after Ctrl-C:\n${run.output().slice(-2000)}`);
    assert.match(run.output(), /operator: stopped/);

    const stopping: number[] = [];
    for (const worker of ['worker-0', 'worker-1']) {
      const text = readFileSync(path.join(logs, `${worker}.log`), 'utf8');
      assert.doesNotMatch(
        text,
        /exiting without waiting|received again|shutdown did not finish/,
        text.slice(-3000),
      );
      assert.match(text, /"msg":"worker stopped"/, text.slice(-3000));
      const line = text.split('\n').find((l) => l.includes('worker stopping'));
      assert.ok(line, `${worker} never logged that it was stopping:\n${text.slice(-3000)}`);
      stopping.push((JSON.parse(line) as { active: number }).active);
    }
    assert.ok(
      stopping.some((active) => active > 0),
      `Ctrl-C came with no reconcile active (active per worker: ${stopping.join(', ')}): the test proved nothing`,
    );
    // Finished, not cut short: each active scale-up created every pod it planned.
    for (const name of ['drain-a', 'drain-b']) {
      assert.equal(podsOf(name).length, 90, `${name}: its scale-up was cut short`);
    }
  } finally {
    sim.faults.set({ latencyMs: 0 });
    await run.stopGroup();
  }
});

test('the apps, out of the terminal process group, still stop when the operator is SIGKILLed', async () => {
  const run = npmRun(
    'operator',
    ['--dir', path.join(dir, 'run-killed'), '--workers', '1'],
    userEnv(sim.kubeconfigPath),
  );
  try {
    await until('the watcher to lead', 90_000, () => run.output().includes('watcher leading'), run);
    const started = startedBy(run, 1);
    // npm and the operator die at once, with no chance to stop their children.
    run.signalGroup('SIGKILL');
    await run.exited;
    await waitFor(
      'redis-server, the script loader, the watcher and the worker to stop by themselves',
      () => !started.some(stillRunning),
      {
        // Their Redis went with the operator, so a drain may wait out SHUTDOWN_TIMEOUT_SECONDS (25 s).
        timeoutMs: 90_000,
        describe: () => describeRunning(started),
      },
    );
  } finally {
    await run.stopGroup();
  }
});
