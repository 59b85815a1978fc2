import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeCluster, obj, until } from './fake-cluster.ts';
import { startControllers } from './index.ts';

function setup() {
  const cluster = new FakeCluster();
  const errors: string[] = [];
  const controllers = startControllers(cluster, {
    startupDelayMs: 0,
    startupJitterMs: 0,
    containerExitMs: 20,
    namespaceRecheckMs: 50,
    namespaceDeletionDelayMs: 0,
    onError: (err, ctx) => errors.push(`${ctx}: ${String(err)}`),
  });
  return { cluster, controllers, errors };
}

test('deleting a namespace deletes its content, then the namespace', async (t) => {
  const { cluster, controllers, errors } = setup();
  t.after(() => controllers.stop());
  cluster.create('namespaces', obj('v1', 'Namespace', 'team', undefined));
  for (let i = 0; i < 5; i++) {
    cluster.create('configmaps', obj('v1', 'ConfigMap', `cm-${i}`, 'team'));
    cluster.create(
      'pods',
      obj('v1', 'Pod', `pod-${i}`, 'team', { spec: { containers: [{ name: 'a', image: 'busybox' }] } }),
    );
    cluster.create('podsets.podset.io', obj('podset.io/v1', 'PodSet', `ps-${i}`, 'team', { spec: {} }));
  }
  cluster.create('configmaps', obj('v1', 'ConfigMap', 'keep', 'default'));
  await until(() =>
    cluster.list('pods', 'team').every((p) => (p.status as { phase?: string }).phase === 'Running'),
  );
  const ns = cluster.delete('namespaces', undefined, 'team');
  assert.equal((ns?.status as { phase?: string }).phase, 'Terminating');
  await until(() => !cluster.get('namespaces', undefined, 'team'), 10_000, 'namespace removed');
  assert.equal(cluster.list('configmaps', 'team').length, 0);
  assert.equal(cluster.list('pods', 'team').length, 0);
  assert.equal(cluster.list('podsets.podset.io', 'team').length, 0);
  assert.ok(cluster.get('configmaps', 'default', 'keep'));
  assert.deepEqual(errors, []);
});

test('an object with a finalizer holds its namespace in Terminating until released', async (t) => {
  const { cluster, controllers } = setup();
  t.after(() => controllers.stop());
  cluster.create('namespaces', obj('v1', 'Namespace', 'held', undefined));
  cluster.create(
    'configmaps',
    obj('v1', 'ConfigMap', 'cm', 'held', { metadata: { name: 'cm', finalizers: ['example.com/hold'] } }),
  );
  cluster.delete('namespaces', undefined, 'held');
  await until(
    () => cluster.get('configmaps', 'held', 'cm')?.metadata.deletionTimestamp,
    5000,
    'content being deleted',
  );
  await new Promise((r) => setTimeout(r, 150)); // several re-checks
  const ns = cluster.get('namespaces', undefined, 'held');
  assert.deepEqual((ns?.spec as { finalizers?: string[] }).finalizers, ['kubernetes']);
  const reported = await until(
    () => {
      const c = (
        cluster.get('namespaces', undefined, 'held')?.status as {
          conditions?: { type: string; status: string; message: string }[];
        }
      ).conditions?.find((x) => x.type === 'NamespaceFinalizersRemaining');
      return c?.status === 'True' ? c : undefined;
    },
    5000,
    'the finalizer reported',
  );
  assert.equal(
    reported.message,
    'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
  );
  const cm = cluster.get('configmaps', 'held', 'cm')!;
  cluster.update('configmaps', { ...cm, metadata: { ...cm.metadata, finalizers: [] } });
  await until(() => !cluster.get('namespaces', undefined, 'held'), 5000, 'namespace removed');
});

test('a namespace already terminating when the controllers start is finished', async (t) => {
  const cluster = new FakeCluster();
  cluster.create('namespaces', obj('v1', 'Namespace', 'old', undefined));
  cluster.create('configmaps', obj('v1', 'ConfigMap', 'cm', 'old'));
  cluster.delete('namespaces', undefined, 'old');
  assert.ok(cluster.get('namespaces', undefined, 'old'));
  const controllers = startControllers(cluster, {
    nodes: 0,
    podLifecycle: false,
    namespaceRecheckMs: 50,
    namespaceDeletionDelayMs: 0,
  });
  t.after(() => controllers.stop());
  await until(() => !cluster.get('namespaces', undefined, 'old'), 5000, 'namespace removed');
  assert.equal(cluster.list('configmaps', 'old').length, 0);
});
