import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, OwnerReference } from '../apimachinery/types.ts';
import { FakeCluster, obj, until } from './fake-cluster.ts';
import { startGarbageCollector } from './gc.ts';

function ref(owner: KubeObject, blockOwnerDeletion = true): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    controller: true,
    blockOwnerDeletion,
  };
}

function podset(cluster: FakeCluster, name: string, namespace = 'default'): KubeObject {
  return cluster.create(
    'podsets.podset.io',
    obj('podset.io/v1', 'PodSet', name, namespace, { spec: { replicas: 1 } }),
  );
}

function configmap(
  cluster: FakeCluster,
  name: string,
  owners: OwnerReference[],
  namespace = 'default',
  finalizers?: string[],
) {
  return cluster.create(
    'configmaps',
    obj('v1', 'ConfigMap', name, namespace, {
      metadata: { name, namespace, ownerReferences: owners, ...(finalizers ? { finalizers } : {}) },
    }),
  );
}

function start(cluster: FakeCluster) {
  const errors: string[] = [];
  const gc = startGarbageCollector(cluster, (err, ctx) => errors.push(`${ctx}: ${String(err)}`));
  return { gc, errors };
}

const exists = (c: FakeCluster, resource: string, name: string, ns: string | undefined = 'default') =>
  !!c.get(resource, ns, name);
const tick = () => new Promise((r) => setTimeout(r, 30));

test('background: deleting the owner deletes its dependents', async (t) => {
  const cluster = new FakeCluster();
  const { gc, errors } = start(cluster);
  t.after(() => gc.stop());
  const owner = podset(cluster, 'web');
  for (const n of ['a', 'b', 'c']) configmap(cluster, n, [ref(owner)]);
  configmap(cluster, 'unrelated', []);
  cluster.delete('podsets.podset.io', 'default', 'web');
  await until(() => cluster.count('configmaps') === 1, 5000, 'dependents deleted');
  assert.ok(exists(cluster, 'configmaps', 'unrelated'));
  await until(() => gc.graphSize().dependents === 0 && gc.graphSize().owners === 0, 5000, 'graph emptied');
  assert.deepEqual(errors, []);
});

test('owners are matched by uid: a re-created owner of the same name does not own old dependents', async (t) => {
  const cluster = new FakeCluster();
  const { gc } = start(cluster);
  t.after(() => gc.stop());
  const old = podset(cluster, 'web');
  const oldRef = ref(old);
  cluster.delete('podsets.podset.io', 'default', 'web');
  const fresh = podset(cluster, 'web');
  configmap(cluster, 'leftover', [oldRef]); // created after its owner is gone: dangling from the start
  configmap(cluster, 'mine', [ref(fresh)]);
  await until(() => !exists(cluster, 'configmaps', 'leftover'), 5000, 'leftover deleted');
  await tick();
  assert.ok(exists(cluster, 'configmaps', 'mine'));
});

test('a dependent with one live owner left keeps living, minus the dangling reference', async (t) => {
  const cluster = new FakeCluster();
  const { gc } = start(cluster);
  t.after(() => gc.stop());
  const a = podset(cluster, 'a');
  const b = podset(cluster, 'b');
  configmap(cluster, 'shared', [ref(a), ref(b, false)]);
  cluster.delete('podsets.podset.io', 'default', 'a');
  await until(() => cluster.get('configmaps', 'default', 'shared')?.metadata.ownerReferences?.length === 1);
  assert.equal(
    cluster.get('configmaps', 'default', 'shared')?.metadata.ownerReferences?.[0]?.uid,
    b.metadata.uid,
  );
  cluster.delete('podsets.podset.io', 'default', 'b');
  await until(() => !exists(cluster, 'configmaps', 'shared'), 5000, 'deleted with its last owner');
});

test('foreground: the owner waits for its blocking dependents, which are deleted first', async (t) => {
  const cluster = new FakeCluster();
  const { gc, errors } = start(cluster);
  t.after(() => gc.stop());
  const owner = podset(cluster, 'web');
  configmap(cluster, 'held', [ref(owner)], 'default', ['example.com/hold']);
  configmap(cluster, 'plain', [ref(owner)]);
  configmap(cluster, 'nonblocking', [ref(owner, false)], 'default', ['example.com/hold']);
  cluster.delete('podsets.podset.io', 'default', 'web', { propagationPolicy: 'Foreground' });
  await until(() => !exists(cluster, 'configmaps', 'plain'), 5000, 'plain dependent deleted');
  await until(() => cluster.get('configmaps', 'default', 'nonblocking')?.metadata.deletionTimestamp);
  const held = cluster.get('configmaps', 'default', 'held')!;
  assert.ok(held.metadata.deletionTimestamp, 'the blocking dependent is being deleted');
  await tick();
  const waiting = cluster.get('podsets.podset.io', 'default', 'web');
  assert.ok(waiting, 'the owner is still there while a blocking dependent exists');
  assert.deepEqual(waiting.metadata.finalizers, ['foregroundDeletion']);
  cluster.update('configmaps', { ...held, metadata: { ...held.metadata, finalizers: [] } });
  await until(() => !exists(cluster, 'podsets.podset.io', 'web'), 5000, 'owner removed');
  // The non-blocking dependent didn't hold the owner back; it is still finishing its own deletion.
  assert.ok(exists(cluster, 'configmaps', 'nonblocking'));
  assert.deepEqual(errors, []);
});

test('foreground through a chain: owner → middle → leaf', async (t) => {
  const cluster = new FakeCluster();
  const { gc } = start(cluster);
  t.after(() => gc.stop());
  const top = cluster.create('deployments.apps', obj('apps/v1', 'Deployment', 'top', 'default'));
  const mid = cluster.create(
    'replicasets.apps',
    obj('apps/v1', 'ReplicaSet', 'mid', 'default', {
      metadata: { name: 'mid', ownerReferences: [ref(top)] },
    }),
  );
  configmap(cluster, 'leaf', [ref(mid)], 'default', ['example.com/hold']);
  cluster.delete('deployments.apps', 'default', 'top', { propagationPolicy: 'Foreground' });
  await until(
    () => cluster.get('configmaps', 'default', 'leaf')?.metadata.deletionTimestamp,
    5000,
    'leaf being deleted',
  );
  const m = cluster.get('replicasets.apps', 'default', 'mid');
  assert.ok(
    m?.metadata.finalizers?.includes('foregroundDeletion'),
    'the middle object is deleted in the foreground too',
  );
  assert.ok(exists(cluster, 'deployments.apps', 'top'));
  const leaf = cluster.get('configmaps', 'default', 'leaf')!;
  cluster.update('configmaps', { ...leaf, metadata: { ...leaf.metadata, finalizers: [] } });
  await until(
    () => !exists(cluster, 'deployments.apps', 'top') && !exists(cluster, 'replicasets.apps', 'mid'),
    5000,
    'chain removed',
  );
});

test('foreground with no dependents completes at once', async (t) => {
  const cluster = new FakeCluster();
  const { gc } = start(cluster);
  t.after(() => gc.stop());
  podset(cluster, 'lonely');
  cluster.delete('podsets.podset.io', 'default', 'lonely', { propagationPolicy: 'Foreground' });
  await until(() => !exists(cluster, 'podsets.podset.io', 'lonely'), 5000, 'owner removed');
});

test('orphan: dependents lose the ownerReference and stay; the owner goes', async (t) => {
  const cluster = new FakeCluster();
  const { gc } = start(cluster);
  t.after(() => gc.stop());
  const owner = podset(cluster, 'web');
  const other = podset(cluster, 'other');
  configmap(cluster, 'a', [ref(owner)]);
  configmap(cluster, 'b', [ref(owner), ref(other)]);
  cluster.delete('podsets.podset.io', 'default', 'web', { propagationPolicy: 'Orphan' });
  await until(() => !exists(cluster, 'podsets.podset.io', 'web'), 5000, 'owner removed');
  await tick();
  assert.equal(cluster.get('configmaps', 'default', 'a')?.metadata.ownerReferences, undefined);
  assert.deepEqual(
    cluster.get('configmaps', 'default', 'b')?.metadata.ownerReferences?.map((r) => r.uid),
    [other.metadata.uid],
  );
});

test('namespaces: a namespaced owner is looked up in the dependent’s namespace; cluster-scoped owners work', async (t) => {
  const cluster = new FakeCluster();
  cluster.create('namespaces', obj('v1', 'Namespace', 'other', undefined));
  const { gc } = start(cluster);
  t.after(() => gc.stop());
  const owner = podset(cluster, 'web', 'default');
  const thing = cluster.create(
    'clusterthings.example.com',
    obj('example.com/v1', 'ClusterThing', 'thing', undefined),
  );
  configmap(cluster, 'cross', [ref(owner)], 'other'); // owner named in another namespace: not found → dangling
  configmap(cluster, 'by-cluster-owner', [ref(thing)], 'other');
  // A cluster-scoped dependent naming a namespaced owner kind is unresolvable: never collected.
  cluster.create(
    'clusterthings.example.com',
    obj('example.com/v1', 'ClusterThing', 'invalid', undefined, {
      metadata: { name: 'invalid', ownerReferences: [ref(owner)] },
    }),
  );
  // An owner of a kind the server doesn't serve is unresolvable too.
  configmap(cluster, 'unknown-kind', [{ apiVersion: 'nope.io/v1', kind: 'Nope', name: 'x', uid: 'u-1' }]);
  await until(
    () => !exists(cluster, 'configmaps', 'cross', 'other'),
    5000,
    'cross-namespace dependent deleted',
  );
  await tick();
  assert.ok(exists(cluster, 'configmaps', 'by-cluster-owner', 'other'));
  assert.ok(exists(cluster, 'clusterthings.example.com', 'invalid', undefined));
  assert.ok(exists(cluster, 'configmaps', 'unknown-kind'));
  cluster.delete('clusterthings.example.com', undefined, 'thing');
  await until(
    () => !exists(cluster, 'configmaps', 'by-cluster-owner', 'other'),
    5000,
    'deleted with its cluster-scoped owner',
  );
});

test('objects orphaned before the collector started are collected at start', async (t) => {
  const cluster = new FakeCluster();
  const owner = podset(cluster, 'web');
  configmap(cluster, 'a', [ref(owner)]);
  cluster.delete('podsets.podset.io', 'default', 'web');
  configmap(cluster, 'still-owned', [ref(podset(cluster, 'live'))]);
  assert.ok(exists(cluster, 'configmaps', 'a'));
  const { gc } = start(cluster);
  t.after(() => gc.stop());
  await until(() => !exists(cluster, 'configmaps', 'a'), 5000, 'orphan collected');
  assert.ok(exists(cluster, 'configmaps', 'still-owned'));
});

test('a pod deleted by the collector gets the pod grace period (graceful delete)', async (t) => {
  const cluster = new FakeCluster();
  const { gc } = start(cluster);
  t.after(() => gc.stop());
  const owner = podset(cluster, 'web');
  cluster.create(
    'pods',
    obj('v1', 'Pod', 'web-1', 'default', {
      metadata: { name: 'web-1', ownerReferences: [ref(owner)] },
      spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'x' }] },
    }),
  );
  cluster.delete('podsets.podset.io', 'default', 'web');
  const p = await until(() => {
    const x = cluster.get('pods', 'default', 'web-1');
    return x?.metadata.deletionTimestamp ? x : undefined;
  });
  assert.equal(p.metadata.deletionGracePeriodSeconds, 30);
});

test('many dependents of one owner', async (t) => {
  const cluster = new FakeCluster();
  const { gc, errors } = start(cluster);
  t.after(() => gc.stop());
  const owner = podset(cluster, 'big');
  for (let i = 0; i < 3000; i++) configmap(cluster, `cm-${i}`, [ref(owner)]);
  await until(() => gc.graphSize().dependents === 3000);
  const reads = cluster.writes.length;
  cluster.delete('podsets.podset.io', 'default', 'big', { propagationPolicy: 'Foreground' });
  await until(() => !exists(cluster, 'podsets.podset.io', 'big'), 20_000, 'owner removed');
  assert.equal(cluster.count('configmaps'), 0);
  // one write per dependent plus a few for the owner: no repeated passes over the dependents
  assert.ok(cluster.writes.length - reads <= 3000 + 5, `${cluster.writes.length - reads} writes`);
  assert.deepEqual(errors, []);
});
