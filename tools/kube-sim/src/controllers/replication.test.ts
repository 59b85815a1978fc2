import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeCluster, obj, until } from './fake-cluster.ts';
import { startControllers } from './index.ts';

const rc = (replicas: number) =>
  obj('v1', 'ReplicationController', 'front', 'default', {
    spec: {
      replicas,
      selector: { app: 'front' },
      template: {
        metadata: { labels: { app: 'front' } },
        spec: { containers: [{ name: 'web', image: 'nginx' }] },
      },
    },
  });

test('a ReplicationController keeps its replicas: creates, replaces, scales down, reports status', async (t) => {
  const cluster = new FakeCluster();
  const errors: string[] = [];
  const controllers = startControllers(cluster, {
    startupDelayMs: 0,
    startupJitterMs: 0,
    containerExitMs: 10,
    onError: (err, ctx) => errors.push(`${ctx}: ${String(err)}`),
  });
  t.after(() => controllers.stop());
  const created = cluster.create('replicationcontrollers', rc(3));
  const pods = () =>
    cluster
      .list('pods', 'default')
      .filter(
        (p) => !p.metadata.deletionTimestamp && p.metadata.ownerReferences?.[0]?.uid === created.metadata.uid,
      );
  const status = () =>
    cluster.get('replicationcontrollers', 'default', 'front')?.status as Record<string, number>;
  await until(() => status()?.readyReplicas === 3, 5_000, '3 ready');
  assert.equal(pods().length, 3);
  assert.ok(pods().every((p) => p.metadata.name?.startsWith('front-') && p.metadata.labels?.app === 'front'));
  assert.deepEqual(
    { ...status() },
    { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 },
  );

  const victim = pods()[0]!.metadata.name!;
  cluster.delete('pods', 'default', victim);
  await until(
    () => pods().length === 3 && !pods().some((p) => p.metadata.name === victim),
    5_000,
    'replaced',
  );

  const current = cluster.get('replicationcontrollers', 'default', 'front')!;
  cluster.update('replicationcontrollers', {
    ...current,
    spec: { ...(current.spec as object), replicas: 1 },
  });
  await until(() => pods().length === 1 && status()?.replicas === 1, 5_000, 'scaled to 1');
  assert.deepEqual(errors, []);
});
