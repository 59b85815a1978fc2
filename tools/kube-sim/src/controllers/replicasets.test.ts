import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type KubeObject } from '../apimachinery/types.ts';
import { FakeCluster, obj, PodRefusingCluster, until } from './fake-cluster.ts';
import { startControllers } from './index.ts';

const RS = 'replicasets.apps';

const replicaSet = (replicas: number, minReadySeconds = 0) =>
  obj('apps/v1', 'ReplicaSet', 'front', 'default', {
    spec: {
      replicas,
      minReadySeconds,
      selector: {
        matchLabels: { app: 'front' },
        matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }],
      },
      template: {
        metadata: { labels: { app: 'front', tier: 'web' } },
        spec: { containers: [{ name: 'web', image: 'nginx' }] },
      },
    },
  });

function start(t: { after: (f: () => void) => void }) {
  const cluster = new FakeCluster();
  const errors: string[] = [];
  const controllers = startControllers(cluster, {
    startupDelayMs: 0,
    startupJitterMs: 0,
    containerExitMs: 10,
    podEvents: false,
    onError: (err, ctx) => errors.push(`${ctx}: ${String(err)}`),
  });
  t.after(() => controllers.stop());
  return { cluster, errors };
}

const status = (c: FakeCluster) =>
  c.get(RS, 'default', 'front')?.status as Record<string, number> | undefined;
const owned = (c: FakeCluster, uid: string | undefined) =>
  c
    .list('pods', 'default')
    .filter((p) => !p.metadata.deletionTimestamp && p.metadata.ownerReferences?.some((r) => r.uid === uid));

test('a ReplicaSet gets its pods (controller ownerReference, blockOwnerDeletion) and reports status', async (t) => {
  const { cluster, errors } = start(t);
  const rs = cluster.create(RS, replicaSet(3));
  await until(() => status(cluster)?.availableReplicas === 3, 5_000, '3 available');
  assert.deepEqual(
    { ...status(cluster) },
    { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 },
  );
  for (const p of owned(cluster, rs.metadata.uid)) {
    assert.match(p.metadata.name ?? '', /^front-/);
    assert.deepEqual(p.metadata.ownerReferences, [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: 'front',
        uid: rs.metadata.uid ?? '',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  }
  const current = cluster.get(RS, 'default', 'front')!;
  cluster.update(RS, { ...current, spec: { ...(current.spec as object), replicas: 1 } });
  await until(
    () => status(cluster)?.replicas === 1 && owned(cluster, rs.metadata.uid).length === 1,
    5_000,
    'scaled to 1',
  );
  assert.equal(status(cluster)?.observedGeneration, 2);
  assert.deepEqual(errors, []);
});

test('orphans the selector matches are adopted; a pod relabelled out of the selector is released', async (t) => {
  const { cluster, errors } = start(t);
  const orphan = cluster.create(
    'pods',
    obj('v1', 'Pod', 'stray', 'default', {
      metadata: { labels: { app: 'front', tier: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx' }] },
    }),
  );
  const rs = cluster.create(RS, replicaSet(2));
  await until(() => status(cluster)?.readyReplicas === 2, 5_000, '2 ready');
  const mine = owned(cluster, rs.metadata.uid);
  assert.equal(mine.length, 2);
  assert.ok(
    mine.some((p) => p.metadata.uid === orphan.metadata.uid),
    'the orphan was adopted',
  );

  const stray = cluster.get('pods', 'default', 'stray') as KubeObject;
  cluster.update('pods', { ...stray, metadata: { ...stray.metadata, labels: { app: 'front', tier: 'db' } } });
  await until(
    () => cluster.get('pods', 'default', 'stray')?.metadata.ownerReferences === undefined,
    5_000,
    'released',
  );
  await until(() => owned(cluster, rs.metadata.uid).length === 2, 5_000, 'replaced');
  assert.deepEqual(errors, []);
});

test('minReadySeconds: Ready pods count as available only once Ready for that long', async (t) => {
  const { cluster, errors } = start(t);
  // Ready times are whole seconds, so 2 s leaves at least 1 s between ready and available.
  const seen: string[] = [];
  const unsubscribe = cluster.subscribe((e) => {
    if (e.resource !== RS) return;
    const s = e.object.status as Record<string, number> | undefined;
    seen.push(`${s?.readyReplicas ?? 0}/${s?.availableReplicas ?? 0}`);
  });
  t.after(unsubscribe);
  cluster.create(RS, replicaSet(1, 2));
  await until(() => status(cluster)?.availableReplicas === 1, 10_000, 'available after minReadySeconds');
  assert.ok(seen.includes('1/0'), `a ready but not yet available pod was reported: ${seen.join(' ')}`);
  assert.deepEqual(errors, []);
});

test('a refused pod create: FailedCreate Event and ReplicaFailure condition, retried, cleared once pods are created', async (t) => {
  const cluster = new PodRefusingCluster('pods "front-x" is forbidden: exceeded quota: pods');
  const errors: string[] = [];
  const controllers = startControllers(cluster, {
    startupDelayMs: 0,
    startupJitterMs: 0,
    onError: (err, ctx) => errors.push(`${ctx}: ${String(err)}`),
  });
  t.after(() => controllers.stop());
  cluster.create(RS, replicaSet(2));
  const failure = () =>
    (
      (status(cluster) as { conditions?: { type: string; reason: string; message: string }[] } | undefined)
        ?.conditions ?? []
    ).find((c) => c.type === 'ReplicaFailure');
  await until(() => failure(), 5_000, 'ReplicaFailure');
  assert.equal(failure()?.reason, 'FailedCreate');
  assert.match(failure()?.message ?? '', /exceeded quota/);
  const event = cluster.list('events', 'default').find((e) => e.reason === 'FailedCreate');
  assert.equal(event?.type, 'Warning');
  assert.match(String(event?.message), /^Error creating: pods "front-x" is forbidden/);
  cluster.refuse = false;
  await until(() => status(cluster)?.readyReplicas === 2 && !failure(), 10_000, 'created on a retry');
  assert.deepEqual(errors, []);
});
