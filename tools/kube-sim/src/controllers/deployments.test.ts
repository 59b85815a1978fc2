import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type JsonObject, type KubeObject } from '../apimachinery/types.ts';
import { FakeCluster, obj, PodRefusingCluster, until } from './fake-cluster.ts';
import { startControllers, type ControllerOptions } from './index.ts';

const D = 'deployments.apps';
const RS = 'replicasets.apps';

function start(t: { after: (f: () => void) => void }, options: ControllerOptions = {}) {
  const cluster = new FakeCluster();
  const errors: string[] = [];
  const controllers = startControllers(cluster, {
    startupDelayMs: 0,
    startupJitterMs: 20,
    containerExitMs: 20,
    podEvents: false,
    onError: (err, ctx) => errors.push(`${ctx}: ${String(err)}`),
    ...options,
  });
  t.after(() => controllers.stop());
  return { cluster, errors };
}

const deployment = (spec: JsonObject, image = 'nginx:1', annotations: Record<string, string> = {}) =>
  obj('apps/v1', 'Deployment', 'web', 'default', {
    metadata: { annotations },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } },
      ...spec,
    },
  });

const get = (c: FakeCluster) => c.get(D, 'default', 'web')!;
const status = (c: FakeCluster) => (get(c).status ?? {}) as Record<string, number | JsonObject[]>;
const condition = (c: FakeCluster, type: string) =>
  ((status(c).conditions ?? []) as JsonObject[]).find((x) => x.type === type);
/** What `kubectl rollout status` checks. */
const rolledOut = (c: FakeCluster) => {
  const d = get(c);
  const s = status(c);
  return (
    (d.metadata.generation ?? 1) <= Number(s.observedGeneration ?? 0) &&
    s.updatedReplicas === (d.spec as JsonObject).replicas &&
    s.replicas === s.updatedReplicas &&
    s.availableReplicas === s.updatedReplicas
  );
};
const replicaSets = (c: FakeCluster) => c.list(RS, 'default').sort((a, b) => revision(a) - revision(b));
const revision = (o: KubeObject) =>
  Number(o.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0);
const specReplicas = (o: KubeObject) => Number((o.spec as JsonObject).replicas);

function setImage(c: FakeCluster, image: string, extra: JsonObject = {}) {
  const d = get(c);
  const spec = d.spec as JsonObject;
  const template = spec.template as JsonObject;
  c.update(D, {
    ...d,
    spec: { ...spec, ...extra, template: { ...template, spec: { containers: [{ name: 'web', image }] } } },
  });
}

test('RollingUpdate with maxSurge 1 / maxUnavailable 0: never more than 4 replicas, never fewer than 3 available', async (t) => {
  const { cluster, errors } = start(t);
  cluster.create(
    D,
    deployment({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }),
  );
  await until(() => rolledOut(cluster), 10_000, 'first rollout');
  const [first] = replicaSets(cluster);
  assert.equal(first?.metadata.name, `web-${first?.metadata.labels?.['pod-template-hash']}`);
  assert.deepEqual(
    { ...first?.metadata.annotations },
    {
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
    },
  );
  const violations: string[] = [];
  const unsubscribe = cluster.subscribe((e) => {
    if (e.resource === RS) {
      const total = cluster.list(RS, 'default').reduce((n, rs) => n + specReplicas(rs), 0);
      if (total > 4) violations.push(`${total} replicas`);
    }
    if (e.resource === D) {
      const available = Number((e.object.status as JsonObject | undefined)?.availableReplicas ?? 0);
      if (available < 3) violations.push(`${available} available`);
    }
  });
  t.after(unsubscribe);
  setImage(cluster, 'nginx:2');
  await until(() => rolledOut(cluster) && replicaSets(cluster).length === 2, 10_000, 'second rollout');
  assert.deepEqual(violations, []);
  assert.deepEqual(
    replicaSets(cluster).map((rs) => [revision(rs), specReplicas(rs)]),
    [
      [1, 0],
      [2, 3],
    ],
  );
  assert.equal(get(cluster).metadata.annotations?.['deployment.kubernetes.io/revision'], '2');
  assert.equal(condition(cluster, 'Progressing')?.reason, 'NewReplicaSetAvailable');
  assert.equal(condition(cluster, 'Available')?.reason, 'MinimumReplicasAvailable');
  assert.deepEqual(errors, []);
});

test('Recreate: the new pods start only once every old pod is gone', async (t) => {
  const { cluster, errors } = start(t);
  cluster.create(D, deployment({ strategy: { type: 'Recreate' } }));
  await until(() => rolledOut(cluster), 10_000, 'first rollout');
  const oldUid = replicaSets(cluster)[0]?.metadata.uid;
  const violations: string[] = [];
  const unsubscribe = cluster.subscribe((e) => {
    if (e.resource !== 'pods' || e.type !== 'ADDED') return;
    const oldLeft = cluster
      .list('pods', 'default')
      .filter((p) => p.metadata.ownerReferences?.[0]?.uid === oldUid);
    if (oldLeft.length > 0)
      violations.push(`${e.object.metadata.name} created with ${oldLeft.length} old pods left`);
  });
  t.after(unsubscribe);
  setImage(cluster, 'nginx:2');
  await until(() => rolledOut(cluster) && replicaSets(cluster).length === 2, 10_000, 'second rollout');
  assert.deepEqual(violations, []);
  assert.deepEqual(errors, []);
});

test('revisionHistoryLimit: old ReplicaSets beyond it are deleted, oldest revision first', async (t) => {
  const { cluster, errors } = start(t);
  cluster.create(D, deployment({ revisionHistoryLimit: 1, strategy: { type: 'Recreate' } }));
  for (const image of ['nginx:2', 'nginx:3']) {
    await until(() => rolledOut(cluster), 10_000, 'rollout');
    setImage(cluster, image);
  }
  await until(() => rolledOut(cluster) && replicaSets(cluster).length === 2, 10_000, 'cleaned up');
  assert.deepEqual(
    replicaSets(cluster).map((rs) => revision(rs)),
    [2, 3],
  );
  assert.deepEqual(errors, []);
});

test('paused: a new template waits, scaling still applies; resuming rolls out', async (t) => {
  const { cluster, errors } = start(t);
  cluster.create(D, deployment({ paused: true, replicas: 2 }));
  await until(
    () => condition(cluster, 'Progressing')?.reason === 'DeploymentPaused',
    5_000,
    'paused condition',
  );
  assert.equal(replicaSets(cluster).length, 0, 'a paused Deployment creates no ReplicaSet');
  cluster.update(D, { ...get(cluster), spec: { ...(get(cluster).spec as JsonObject), paused: false } });
  await until(() => rolledOut(cluster), 10_000, 'rollout after resume');
  setImage(cluster, 'nginx:2', { paused: true, replicas: 4 });
  await until(() => status(cluster).availableReplicas === 4, 10_000, 'scaled while paused');
  assert.equal(replicaSets(cluster).length, 1, 'no new ReplicaSet while paused');
  cluster.update(D, { ...get(cluster), spec: { ...(get(cluster).spec as JsonObject), paused: false } });
  await until(() => rolledOut(cluster) && replicaSets(cluster).length === 2, 10_000, 'rollout after resume');
  assert.deepEqual(errors, []);
});

test('progressDeadlineSeconds: a rollout that makes no progress ends ProgressDeadlineExceeded', async (t) => {
  const { cluster, errors } = start(t, { neverReadyFraction: 1 });
  cluster.create(D, deployment({ replicas: 1, progressDeadlineSeconds: 1 }));
  await until(
    () => condition(cluster, 'Progressing')?.reason === 'ProgressDeadlineExceeded',
    10_000,
    'deadline',
  );
  const c = condition(cluster, 'Progressing')!;
  assert.equal(c.status, 'False');
  assert.match(String(c.message), /^ReplicaSet "web-[a-z0-9]+" has timed out progressing\.$/);
  assert.equal(condition(cluster, 'Available')?.reason, 'MinimumReplicasUnavailable');
  assert.deepEqual(errors, []);
});

test('scaling in the middle of a rollout spreads the new replicas in proportion (proportional scaling)', async (t) => {
  const { cluster, errors } = start(t);
  cluster.create(D, deployment({ replicas: 10 }));
  await until(() => rolledOut(cluster), 10_000, 'first rollout');
  // A new template whose pods never get ready: the rollout stops at 8 old + 5 new (maxSurge 3, maxUnavailable 2).
  const d = get(cluster);
  const spec = d.spec as JsonObject;
  cluster.update(D, {
    ...d,
    spec: {
      ...spec,
      template: {
        metadata: { labels: { app: 'web' }, annotations: { 'kube-sim.podset.io/fate': 'never-ready' } },
        spec: { containers: [{ name: 'web', image: 'nginx:2' }] },
      },
    },
  });
  const sizes = () => replicaSets(cluster).map((rs) => specReplicas(rs));
  await until(() => JSON.stringify(sizes()) === '[8,5]', 10_000, 'a stuck rollout at 8 + 5');
  cluster.update(D, { ...get(cluster), spec: { ...(get(cluster).spec as JsonObject), replicas: 20 } });
  // 25 allowed (20 + maxSurge 5), 13 now: the old one gets round(8 * 25 / 13) = 15, the new one round(5 * 25 / 13) = 10.
  await until(() => JSON.stringify(sizes()) === '[15,10]', 10_000, 'proportionally scaled');
  for (const rs of replicaSets(cluster)) {
    assert.equal(rs.metadata.annotations?.['deployment.kubernetes.io/desired-replicas'], '20');
    assert.equal(rs.metadata.annotations?.['deployment.kubernetes.io/max-replicas'], '25');
  }
  assert.deepEqual(errors, []);
});

test('a ReplicaSet that cannot create pods: its ReplicaFailure shows on the Deployment until pods are created', async (t) => {
  const cluster = new PodRefusingCluster('exceeded quota: pods');
  const errors: string[] = [];
  const controllers = startControllers(cluster, {
    startupDelayMs: 0,
    startupJitterMs: 0,
    onError: (err, ctx) => errors.push(`${ctx}: ${String(err)}`),
  });
  t.after(() => controllers.stop());
  cluster.create(D, deployment({}));
  await until(() => condition(cluster, 'ReplicaFailure'), 5_000, 'ReplicaFailure on the Deployment');
  assert.deepEqual(
    [condition(cluster, 'ReplicaFailure')?.reason, condition(cluster, 'ReplicaFailure')?.message],
    ['FailedCreate', 'exceeded quota: pods'],
  );
  cluster.refuse = false;
  await until(
    () => rolledOut(cluster) && !condition(cluster, 'ReplicaFailure'),
    10_000,
    'rolled out, cleared',
  );
  assert.deepEqual(errors, []);
});
