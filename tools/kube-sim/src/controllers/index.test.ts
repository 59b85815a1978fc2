import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeCluster, obj, until } from './fake-cluster.ts';
import { defaultControllerOptions, resolveControllerOptions, startControllers } from './index.ts';

test('defaults', () => {
  const o = resolveControllerOptions();
  assert.equal(o.nodes, 3);
  assert.equal(o.startupDelayMs, 200);
  assert.equal(o.startupJitterMs, 600);
  assert.equal(o.containerExitMs, 300);
  assert.equal(o.failFraction, 0);
  assert.equal(o.seed, undefined);
  assert.equal(o.podLifecycle, 'kubelet');
  assert.equal(o.schedulerBindMs, 20);
  assert.equal(o.kubeletRelistMs, 1000);
  assert.equal(o.kubeletStatusWriteMs, 40);
  assert.equal(o.podEvents, true);
  assert.equal(o.replicaSetController && o.deploymentController && o.jobController, true);
  assert.equal(o.jobBackoffMs, 10_000);
  assert.deepEqual(resolveControllerOptions({ nodes: undefined }), defaultControllerOptions);
});

test('invalid options are refused with the option named', () => {
  assert.throws(() => resolveControllerOptions({ failFraction: 1.5 }), /failFraction/);
  assert.throws(
    () => resolveControllerOptions({ failFraction: 0.6, neverReadyFraction: 0.6 }),
    /neverReadyFraction/,
  );
  assert.throws(() => resolveControllerOptions({ nodes: -1 }), /nodes/);
  assert.throws(() => resolveControllerOptions({ crashLoopBackoffMs: 0 }), /crashLoopBackoffMs must be ≥ 10/);
  assert.throws(() => resolveControllerOptions({ nodes: 1.5 }), /nodes/);
  assert.throws(() => resolveControllerOptions({ startupDelayMs: Number.NaN }), /startupDelayMs/);
  assert.throws(() => resolveControllerOptions({ seed: 0.5 }), /seed/);
  assert.throws(() => startControllers(new FakeCluster(), { containerExitMs: -1 }), /containerExitMs/);
  assert.throws(() => resolveControllerOptions({ lifecycle: false } as never), /unknown option lifecycle/);
  assert.throws(
    () => resolveControllerOptions({ podLifecycle: 'no' } as never),
    /podLifecycle must be one of kubelet, fast, off/,
  );
  assert.throws(() => resolveControllerOptions({ kubeletStatusWriteMs: -1 }), /kubeletStatusWriteMs/);
});

test('startControllers creates the nodes before returning; stop() is idempotent and silences everything', async () => {
  const cluster = new FakeCluster();
  const controllers = startControllers(cluster, { nodes: 2, startupDelayMs: 0, startupJitterMs: 0 });
  assert.equal(cluster.count('nodes'), 2);
  cluster.create('pods', obj('v1', 'Pod', 'p', 'default', { spec: { containers: [{ name: 'a' }] } }));
  await until(() => (cluster.get('pods', 'default', 'p')?.status as { phase?: string }).phase === 'Running');
  controllers.stop();
  controllers.stop();
  const writes = cluster.writes.length;
  cluster.create('pods', obj('v1', 'Pod', 'q', 'default', { spec: { containers: [{ name: 'a' }] } }));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(cluster.writes.length, writes + 1, 'only our own create: no controller reacted');
});

test('switching controllers off', async () => {
  const cluster = new FakeCluster();
  const controllers = startControllers(cluster, {
    nodes: 0,
    podLifecycle: false,
    garbageCollector: false,
    namespaceController: false,
    serviceAccountController: false,
    replicationController: false,
    replicaSetController: false,
    deploymentController: false,
    jobController: false,
  });
  try {
    assert.equal(cluster.count('nodes'), 0);
    cluster.create('pods', obj('v1', 'Pod', 'p', 'default', { spec: { containers: [{ name: 'a' }] } }));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(cluster.writes.length, 3, 'two namespaces and the pod: nothing else');
  } finally {
    controllers.stop();
  }
});

test('configure changes pod-lifecycle options at run time', async (t) => {
  const cluster = new FakeCluster();
  const controllers = startControllers(cluster, { startupDelayMs: 0, startupJitterMs: 0 });
  t.after(() => controllers.stop());
  const phase = (name: string) => (cluster.get('pods', 'default', name)?.status as { phase?: string }).phase;
  cluster.create('pods', obj('v1', 'Pod', 'before', 'default', { spec: { containers: [{ name: 'a' }] } }));
  await until(() => phase('before') === 'Running');
  controllers.configure({ failFraction: 1 });
  assert.equal(controllers.options().failFraction, 1);
  // Not restarted, so its failure ends it (a restarted one would crash-loop).
  cluster.create(
    'pods',
    obj('v1', 'Pod', 'after', 'default', { spec: { restartPolicy: 'Never', containers: [{ name: 'a' }] } }),
  );
  await until(() => phase('after') === 'Failed');
  assert.throws(() => controllers.configure({ failFraction: 2 }), /failFraction/);
  assert.equal(controllers.options().failFraction, 1, 'a refused change changes nothing');
  assert.throws(() => controllers.configure({ nodes: 5 } as never), /cannot be changed at run time/);
});
