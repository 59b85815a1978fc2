// The cluster suite leaves a cluster as it found it, even when the operator is gone: a namespace whose
// PodSets still carry the operator's finalizer is removed all the same, and the PodSet CRD is deleted only
// when the suite installed it. Against an in-process kube-sim, through the suite's own Target.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { startKubeSim } from '@podset/kube-sim';
import { REPO } from '../e2e/support/harness.ts';
import {
  CRD_NAME,
  openTarget,
  removeRunLeftovers,
  RUN_LABEL,
  RUN_VAR,
  SUITE_LABEL,
  Target,
} from './support/target.ts';

const FINALIZER = 'podset.io/cleanup';

test('a namespace is removed though its PodSet keeps the finalizer of an operator that is gone; an installed CRD goes too', async (t) => {
  const sim = await startKubeSim({
    controllerOptions: { podLifecycle: 'fast', startupDelayMs: 10, startupJitterMs: 0 },
  });
  t.after(() => sim.close());
  const target = await openTarget(sim.kubeconfigPath);
  let closed = false;
  t.after(async () => {
    if (!closed) await target.close();
  });
  assert.equal(target.isKubeSim, true, 'kube-sim is told from a real API server by its control API');
  await target.ensureCrd();
  const ns = Target.namespaceName('cleanup');
  await target.createNamespace(ns);
  const labels = await target.getJson<{ metadata: { labels?: Record<string, string> } }>(['namespace', ns]);
  assert.equal(labels.metadata.labels?.[SUITE_LABEL], 'cluster', 'the namespace carries the suite label');
  const podSet = {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name: 'orphaned', namespace: ns, finalizers: [FINALIZER] },
    spec: {
      replicas: 1,
      template: {
        metadata: { labels: { app: 'x' } },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      },
    },
  };
  await target.kubectl(['create', '-f', '-'], { input: JSON.stringify(podSet) });

  let operatorStopped = 0;
  await target.removeNamespace(
    ns,
    () => {
      operatorStopped++;
      return Promise.resolve();
    },
    // Nobody removes that finalizer: the PodSet cannot go by itself.
    { podSetsTimeoutMs: 1_000, namespaceTimeoutMs: 30_000 },
  );
  assert.equal(operatorStopped, 1, 'the operator is stopped once, after its PodSets had their chance to go');
  const left = await target.kubectl(['get', 'namespace', ns, '--ignore-not-found', '-o', 'name']);
  assert.equal(left.stdout.trim(), '', 'the namespace is gone');

  closed = true;
  await target.close();
  assert.equal(
    sim.cluster.get('customresourcedefinitions.apiextensions.k8s.io', undefined, CRD_NAME),
    undefined,
  );
});

test('a PodSet CRD that was there before is used and left in place', async (t) => {
  const sim = await startKubeSim({ controllers: false });
  t.after(() => sim.close());
  const target = await openTarget(sim.kubeconfigPath);
  let closed = false;
  t.after(async () => {
    if (!closed) await target.close();
  });
  await target.kubectl(['apply', '-f', path.join(REPO, 'crds/podset.yaml')]);
  const uid = sim.cluster.get('customresourcedefinitions.apiextensions.k8s.io', undefined, CRD_NAME)?.metadata
    .uid;
  await target.ensureCrd();
  closed = true;
  await target.close();
  assert.equal(
    sim.cluster.get('customresourcedefinitions.apiextensions.k8s.io', undefined, CRD_NAME)?.metadata.uid,
    uid,
    'the same CRD is still there',
  );
});

test("what an interrupted run left is removed by the run's id (its namespaces, the CRD it installed), another run's is not", async (t) => {
  const sim = await startKubeSim({
    controllerOptions: { podLifecycle: 'fast', startupDelayMs: 10, startupJitterMs: 0 },
  });
  const saved = process.env[RUN_VAR];
  t.after(() => {
    if (saved === undefined) delete process.env[RUN_VAR];
    else process.env[RUN_VAR] = saved;
  });
  const target = await openTarget(sim.kubeconfigPath);
  t.after(async () => {
    await target.close();
    await sim.close();
  });
  process.env[RUN_VAR] = 'run-a';
  await target.ensureCrd();
  const a = Target.namespaceName('a');
  await target.createNamespace(a);
  const podSet = {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name: 'left', namespace: a, finalizers: [FINALIZER] },
    spec: {
      replicas: 0,
      template: {
        metadata: { labels: { app: 'x' } },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      },
    },
  };
  await target.kubectl(['create', '-f', '-'], { input: JSON.stringify(podSet) });
  process.env[RUN_VAR] = 'run-b';
  const b = Target.namespaceName('b');
  await target.createNamespace(b);
  const labelled = await target.kubectl(['get', 'namespaces,crd', '-l', `${RUN_LABEL}=run-a`, '-o', 'name']);
  assert.deepEqual(labelled.stdout.trim().split('\n').sort(), [
    `customresourcedefinition.apiextensions.k8s.io/${CRD_NAME}`,
    `namespace/${a}`,
  ]);

  const removed = await removeRunLeftovers(sim.kubeconfigPath, 'run-a');
  assert.deepEqual(removed, [`namespace/${a}`, `customresourcedefinition.apiextensions.k8s.io/${CRD_NAME}`]);
  const left = await target.kubectl(['get', 'namespaces', '-l', SUITE_LABEL, '-o', 'name']);
  assert.equal(left.stdout.trim(), `namespace/${b}`, "the other run's namespace is left");
  assert.equal(
    sim.cluster.get('customresourcedefinitions.apiextensions.k8s.io', undefined, CRD_NAME),
    undefined,
  );
});
