// The StatefulSet controller on the fake store, the test playing the kubelet (podLifecycle off): a pod is
// Ready only when the test says so, so the order the controller keeps can be seen step by step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, KubeObject } from '../apimachinery/types.ts';
import { FakeCluster, obj, until } from './fake-cluster.ts';
import { startControllers } from './index.ts';
import { ordinalOf } from './statefulsets.ts';

const STS = 'statefulsets.apps';

function start(t: { after: (f: () => void) => void }) {
  const cluster = new FakeCluster();
  const errors: string[] = [];
  const controllers = startControllers(cluster, {
    nodes: 1,
    podLifecycle: 'off',
    podEvents: false,
    onError: (err, ctx) => errors.push(`${ctx}: ${String(err)}`),
  });
  t.after(() => controllers.stop());
  return { cluster, errors };
}

const statefulSet = (name: string, spec: JsonObject = {}) =>
  obj('apps/v1', 'StatefulSet', name, 'default', {
    spec: {
      replicas: 3,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'redis:7' }] },
      },
      ...spec,
    },
  });

const podNames = (c: FakeCluster) =>
  c
    .list('pods', 'default')
    .map((p) => p.metadata.name ?? '')
    .sort();
const status = (c: FakeCluster, name: string) => (c.get(STS, 'default', name)?.status ?? {}) as JsonObject;
const pod = (c: FakeCluster, name: string) => c.get('pods', 'default', name) as KubeObject;

/** The kubelet's part: the pod bound to the node, then Running and Ready. */
function runReady(c: FakeCluster, name: string): void {
  if (!(pod(c, name).spec as JsonObject).nodeName) c.bind('default', name, 'sim-node-1');
  const p = pod(c, name);
  c.updateStatus('pods', {
    ...p,
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  } as KubeObject);
}

/** Lets the controller's queue run, then checks nothing more was made. */
const settle = () => new Promise((r) => setTimeout(r, 50));

test('ordinalOf reads <set>-<n> and nothing else', () => {
  assert.equal(ordinalOf('web', 'web-0'), 0);
  assert.equal(ordinalOf('web', 'web-12'), 12);
  assert.equal(ordinalOf('web', 'web-01'), undefined);
  assert.equal(ordinalOf('web', 'web-x'), undefined);
  assert.equal(ordinalOf('web', 'webx-1'), undefined);
});

test('OrderedReady: ordinal i+1 is created only once i is Running and Ready; the pods carry the set labels, hostname, claims and a controller reference', async (t) => {
  const { cluster, errors } = start(t);
  const created = cluster.create(
    STS,
    statefulSet('db', {
      volumeClaimTemplates: [
        { metadata: { name: 'data' }, spec: { resources: { requests: { storage: '1Gi' } } } },
      ],
    }),
  );
  await until(() => cluster.get('pods', 'default', 'db-0'), 5000, 'db-0');
  await settle();
  assert.deepEqual(podNames(cluster), ['db-0'], 'db-1 waits for db-0');
  runReady(cluster, 'db-0');
  await until(() => cluster.get('pods', 'default', 'db-1'), 5000, 'db-1');
  await settle();
  assert.deepEqual(podNames(cluster), ['db-0', 'db-1'], 'db-2 waits for db-1');
  runReady(cluster, 'db-1');
  await until(() => cluster.get('pods', 'default', 'db-2'), 5000, 'db-2');

  const p = pod(cluster, 'db-1');
  const revision = status(cluster, 'db').updateRevision;
  assert.match(String(revision), /^db-[a-z0-9]+$/);
  assert.deepEqual(
    { ...p.metadata.labels },
    {
      app: 'db',
      'apps.kubernetes.io/pod-index': '1',
      'controller-revision-hash': revision,
      'statefulset.kubernetes.io/pod-name': 'db-1',
    },
  );
  const ref = p.metadata.ownerReferences?.[0];
  assert.deepEqual(
    [ref?.kind, ref?.name, ref?.uid, ref?.controller],
    ['StatefulSet', 'db', created.metadata.uid, true],
  );
  const spec = p.spec as JsonObject;
  assert.equal(spec.hostname, 'db-1');
  assert.equal(spec.subdomain, 'db');
  assert.deepEqual(spec.volumes, [{ name: 'data', persistentVolumeClaim: { claimName: 'data-db-1' } }]);
  assert.deepEqual(
    cluster
      .list('persistentvolumeclaims', 'default')
      .map((c) => c.metadata.name)
      .sort(),
    ['data-db-0', 'data-db-1', 'data-db-2'],
  );
  assert.equal(
    cluster.get('controllerrevisions.apps', 'default', String(revision))?.metadata.ownerReferences?.[0]?.uid,
    created.metadata.uid,
  );
  assert.deepEqual(errors, []);
});

test('status counts the pods; the revision becomes current once all are ready (what rollout status waits for)', async (t) => {
  const { cluster, errors } = start(t);
  cluster.create(STS, statefulSet('web', { replicas: 2 }));
  await until(() => cluster.get('pods', 'default', 'web-0'), 5000, 'web-0');
  runReady(cluster, 'web-0');
  await until(() => cluster.get('pods', 'default', 'web-1'), 5000, 'web-1');
  await until(() => status(cluster, 'web').replicas === 2, 5000, 'two replicas');
  const mid = status(cluster, 'web');
  assert.equal(mid.readyReplicas, 1);
  assert.equal(mid.updatedReplicas, 2);
  runReady(cluster, 'web-1');
  await until(() => status(cluster, 'web').readyReplicas === 2, 5000, 'two ready');
  const s = status(cluster, 'web');
  assert.deepEqual(
    {
      replicas: s.replicas,
      readyReplicas: s.readyReplicas,
      availableReplicas: s.availableReplicas,
      currentReplicas: s.currentReplicas,
      updatedReplicas: s.updatedReplicas,
      observedGeneration: s.observedGeneration,
    },
    {
      replicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      currentReplicas: 2,
      updatedReplicas: 2,
      observedGeneration: 1,
    },
  );
  assert.equal(s.currentRevision, s.updateRevision);
  assert.deepEqual(errors, []);
});

test('Parallel creates every pod at once, without waiting for readiness', async (t) => {
  const { cluster, errors } = start(t);
  cluster.create(STS, statefulSet('par', { podManagementPolicy: 'Parallel' }));
  await until(() => podNames(cluster).length === 3, 5000, 'three pods');
  assert.deepEqual(podNames(cluster), ['par-0', 'par-1', 'par-2']);
  assert.deepEqual(errors, []);
});

test('scale down removes the highest ordinal first, and the next only once it is gone', async (t) => {
  const { cluster, errors } = start(t);
  cluster.create(STS, statefulSet('s'));
  for (const n of ['s-0', 's-1', 's-2']) {
    await until(() => cluster.get('pods', 'default', n), 5000, n);
    runReady(cluster, n);
  }
  await until(() => status(cluster, 's').readyReplicas === 3, 5000, 'three ready');
  const set = cluster.get(STS, 'default', 's') as KubeObject;
  cluster.update(STS, { ...set, spec: { ...(set.spec as JsonObject), replicas: 1 } } as KubeObject);
  await until(() => pod(cluster, 's-2').metadata.deletionTimestamp, 5000, 's-2 deleted');
  await settle();
  assert.equal(pod(cluster, 's-1').metadata.deletionTimestamp, undefined, 's-1 waits while s-2 terminates');
  cluster.forceRemove('pods', 'default', 's-2');
  await until(() => pod(cluster, 's-1').metadata.deletionTimestamp, 5000, 's-1 deleted');
  cluster.forceRemove('pods', 'default', 's-1');
  await until(() => status(cluster, 's').replicas === 1, 5000, 'one replica');
  assert.deepEqual(podNames(cluster), ['s-0']);
  assert.deepEqual(errors, []);
});

test('RollingUpdate replaces the pods of an old template highest ordinal first, one at a time', async (t) => {
  const { cluster, errors } = start(t);
  cluster.create(STS, statefulSet('r', { replicas: 2 }));
  for (const n of ['r-0', 'r-1']) {
    await until(() => cluster.get('pods', 'default', n), 5000, n);
    runReady(cluster, n);
  }
  await until(() => status(cluster, 'r').readyReplicas === 2, 5000, 'two ready');
  const first = String(status(cluster, 'r').currentRevision);
  const set = cluster.get(STS, 'default', 'r') as KubeObject;
  const spec = set.spec as JsonObject;
  const template = spec.template as JsonObject;
  cluster.update(STS, {
    ...set,
    spec: { ...spec, template: { ...template, spec: { containers: [{ name: 'c', image: 'redis:8' }] } } },
  } as KubeObject);
  await until(() => pod(cluster, 'r-1').metadata.deletionTimestamp, 5000, 'r-1 replaced first');
  assert.equal(pod(cluster, 'r-0').metadata.deletionTimestamp, undefined);
  cluster.forceRemove('pods', 'default', 'r-1');
  await until(
    () => cluster.get('pods', 'default', 'r-1')?.metadata.labels?.['controller-revision-hash'] !== first,
    5000,
    'r-1 of the new revision',
  );
  const second = String(status(cluster, 'r').updateRevision);
  assert.notEqual(second, first);
  assert.equal(status(cluster, 'r').currentRevision, first, 'not current while r-0 is old');
  await settle();
  assert.equal(pod(cluster, 'r-0').metadata.deletionTimestamp, undefined, 'r-0 waits for r-1 to be ready');
  runReady(cluster, 'r-1');
  await until(() => pod(cluster, 'r-0').metadata.deletionTimestamp, 5000, 'r-0 replaced next');
  cluster.forceRemove('pods', 'default', 'r-0');
  await until(() => cluster.get('pods', 'default', 'r-0'), 5000, 'r-0 again');
  runReady(cluster, 'r-0');
  await until(() => status(cluster, 'r').currentRevision === second, 5000, 'the new revision current');
  assert.equal(
    (pod(cluster, 'r-0').spec as { containers: { image: string }[] }).containers[0]?.image,
    'redis:8',
  );
  assert.deepEqual(errors, []);
});

test('a failed pod is deleted and made again under the same name', async (t) => {
  const { cluster, errors } = start(t);
  cluster.create(STS, statefulSet('f', { replicas: 1 }));
  const before = await until(() => cluster.get('pods', 'default', 'f-0'), 5000, 'f-0');
  cluster.updateStatus('pods', { ...before, status: { phase: 'Failed' } } as KubeObject);
  await until(
    () => {
      const p = cluster.get('pods', 'default', 'f-0');
      return p && p.metadata.uid !== before.metadata.uid;
    },
    5000,
    'f-0 made again',
  );
  assert.deepEqual(errors, []);
});

/** Two Ready pods, then a new image: the set's name and its first revision. */
async function changedTemplate(cluster: FakeCluster, name: string, updateStrategy: JsonObject) {
  cluster.create(STS, statefulSet(name, { replicas: 2, updateStrategy }));
  for (const n of [`${name}-0`, `${name}-1`]) {
    await until(() => cluster.get('pods', 'default', n), 5000, n);
    runReady(cluster, n);
  }
  await until(() => status(cluster, name).readyReplicas === 2, 5000, 'two ready');
  const first = String(status(cluster, name).currentRevision);
  const set = cluster.get(STS, 'default', name) as KubeObject;
  const spec = set.spec as JsonObject;
  cluster.update(STS, {
    ...set,
    spec: {
      ...spec,
      template: { ...(spec.template as JsonObject), spec: { containers: [{ name: 'c', image: 'redis:8' }] } },
    },
  } as KubeObject);
  await until(() => status(cluster, name).updateRevision !== first, 5000, 'a new update revision');
  return first;
}

const revisionOf = (c: FakeCluster, name: string) =>
  pod(c, name).metadata.labels?.['controller-revision-hash'];

test('a RollingUpdate partition keeps the pods below it at the current revision', async (t) => {
  const { cluster, errors } = start(t);
  const first = await changedTemplate(cluster, 'p', {
    type: 'RollingUpdate',
    rollingUpdate: { partition: 1 },
  });
  await until(() => pod(cluster, 'p-1').metadata.deletionTimestamp, 5000, 'p-1 replaced');
  cluster.forceRemove('pods', 'default', 'p-1');
  await until(() => cluster.get('pods', 'default', 'p-1'), 5000, 'p-1 again');
  runReady(cluster, 'p-1');
  await until(
    () => status(cluster, 'p').updatedReplicas === 1 && status(cluster, 'p').readyReplicas === 2,
    5000,
    'one updated',
  );
  await settle();
  assert.equal(pod(cluster, 'p-0').metadata.deletionTimestamp, undefined, 'p-0 is below the partition');
  assert.equal(revisionOf(cluster, 'p-0'), first);
  assert.equal(status(cluster, 'p').currentRevision, first);
  assert.deepEqual(errors, []);
});

test('OnDelete replaces nothing itself; a pod you delete comes back at the update revision', async (t) => {
  const { cluster, errors } = start(t);
  const first = await changedTemplate(cluster, 'o', { type: 'OnDelete' });
  await settle();
  assert.equal(pod(cluster, 'o-1').metadata.deletionTimestamp, undefined);
  assert.equal(revisionOf(cluster, 'o-1'), first);
  const update = status(cluster, 'o').updateRevision;
  cluster.forceRemove('pods', 'default', 'o-0');
  await until(() => cluster.get('pods', 'default', 'o-0'), 5000, 'o-0 again');
  assert.equal(revisionOf(cluster, 'o-0'), update);
  assert.deepEqual(errors, []);
});
