// `npm run operator` as a user runs it against the current kubeconfig context, here a kube-sim's:
// it installs the missing CRD, starts a Redis and the apps, reconciles a PodSet applied with kubectl,
// and stops everything on Ctrl-C.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startKubeSim, type KubeSim } from '@podset/kube-sim';
import { kubectl as runKubectl } from '@podset/testkit';
import { PODS, PODSETS, podSetProblems } from './support/check.ts';
import { FAST_PODS, sleep } from './support/harness.ts';
import { npmRun, until, within } from './support/npm-run.ts';

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

    // Ctrl-C in a terminal: SIGINT to the whole foreground process group.
    run.signalGroup('SIGINT');
    const exit = await within(run.exited, 45_000);
    assert.notEqual(
      exit,
      undefined,
      `expected it to stop within 45 s of Ctrl-C:\n${run.output().slice(-2000)}`,
    );
    assert.match(run.output(), /operator: stopped/);
    let gone = false;
    for (let i = 0; i < 50 && !gone; i++) {
      gone = !run.groupAlive();
      if (!gone) await sleep(200);
    }
    assert.ok(gone, 'expected every process (redis-server, watcher, workers) to be gone after Ctrl-C');
    assert.doesNotMatch(run.output(), /exited \(/, run.output().slice(-2000));
  } finally {
    await run.stopGroup();
  }
});
