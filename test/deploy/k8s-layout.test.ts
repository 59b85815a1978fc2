// What k8s/ deploys, rendered with kustomize: the watcher, the workers and their autoscaling, Redis with AOF
// and the NetworkPolicy in front of it; and what the external-redis and keda overlays change.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import {
  appOf,
  find,
  render,
  workloads,
  type Container,
  type K8sObject,
  type Workload,
} from './manifests.ts';
import { REPO } from './support.ts';

/** Only the kustomizations these tests read, each rendered once for the file. */
const rendered = new Map<string, K8sObject[]>(
  ['k8s', 'k8s/overlays/external-redis', 'k8s/overlays/keda'].map((k) => [k, render(k)]),
);
const base = rendered.get('k8s') as K8sObject[];

test('k8s: watcher (2 replicas, leader election by pod name), worker (3 replicas, HPA on CPU), Redis with AOF on a PVC', () => {
  const watcher = find<Workload>(base, 'Deployment', 'podset-watcher');
  const worker = find<Workload>(base, 'Deployment', 'podset-worker');
  assert.ok(watcher && worker);
  assert.equal(watcher.spec.replicas, 2);
  assert.equal(worker.spec.replicas, 3);
  const podName = watcher.spec.template.spec.containers[0]?.env?.find((e) => e.name === 'POD_NAME');
  assert.deepEqual(
    podName?.valueFrom,
    { fieldRef: { fieldPath: 'metadata.name' } },
    'POD_NAME from the downward API',
  );
  const hpa = find<K8sObject & { spec: Record<string, unknown> }>(
    base,
    'HorizontalPodAutoscaler',
    'podset-worker',
  );
  assert.equal(hpa?.apiVersion, 'autoscaling/v2');
  assert.deepEqual(hpa?.spec.scaleTargetRef, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: 'podset-worker',
  });
  assert.equal((hpa?.spec.metrics as { resource: { name: string } }[])[0]?.resource.name, 'cpu');
  for (const name of ['podset-watcher', 'podset-worker']) assert.ok(find(base, 'PodDisruptionBudget', name));

  const redis = find<Workload & { spec: { volumeClaimTemplates: { metadata: { name: string } }[] } }>(
    base,
    'StatefulSet',
    'podset-redis',
  );
  assert.ok(redis);
  const cmd = redis.spec.template.spec.containers[0]?.command ?? [];
  assert.equal(cmd[cmd.indexOf('--appendonly') + 1], 'yes', 'AOF on');
  assert.equal(cmd[cmd.indexOf('--maxmemory-policy') + 1], 'noeviction', 'BullMQ needs noeviction');
  assert.deepEqual(
    redis.spec.volumeClaimTemplates.map((v) => v.metadata.name),
    ['data'],
  );
  const config = find<K8sObject & { data: Record<string, string> }>(base, 'ConfigMap', 'podset-operator');
  assert.match(
    config?.data.QUEUE_PREFIX ?? '',
    /^\{[^}]+\}$/,
    'the queue prefix is a Redis Cluster hash tag',
  );
});

test('k8s: the NetworkPolicy lets only the operator pods reach Redis', () => {
  const np = find<
    K8sObject & {
      spec: {
        podSelector: { matchLabels: Record<string, string> };
        ingress: {
          from: {
            podSelector: { matchExpressions: { key: string; operator: string; values: string[] }[] };
          }[];
        }[];
      };
    }
  >(base, 'NetworkPolicy', 'podset-redis');
  assert.ok(np);
  const matches = (
    labels: Record<string, string>,
    sel: { key: string; operator: string; values: string[] }[],
  ) => sel.every((e) => e.operator === 'In' && e.values.includes(labels[e.key] ?? '\0'));
  const selects = (labels: Record<string, string>) =>
    Object.entries(np.spec.podSelector.matchLabels).every(([k, v]) => labels[k] === v);
  const allowed = (labels: Record<string, string>) =>
    np.spec.ingress.some((r) => r.from.some((f) => matches(labels, f.podSelector.matchExpressions)));
  for (const w of workloads(base)) {
    const labels = w.spec.template.metadata.labels;
    const app = appOf(w.spec.template.spec.containers[0] as Container);
    if (w.metadata.name === 'podset-redis') assert.ok(selects(labels), 'the policy selects the Redis pods');
    else assert.ok(!selects(labels), `${w.metadata.name} is not selected`);
    if (app !== undefined) assert.ok(allowed(labels), `${w.metadata.name} may reach Redis`);
  }
  assert.ok(!allowed({ 'app.kubernetes.io/name': 'something-else' }), 'other pods may not');
});

test('overlay external-redis: no in-cluster Redis, REDIS_URL from the Secret in every app', () => {
  const objects = rendered.get('k8s/overlays/external-redis') as K8sObject[];
  assert.equal(find(objects, 'StatefulSet', 'podset-redis'), undefined);
  assert.equal(find(objects, 'Service', 'podset-redis'), undefined);
  const config = find<K8sObject & { data: Record<string, string> }>(objects, 'ConfigMap', 'podset-operator');
  assert.equal(config?.data.REDIS_URL, undefined);
  for (const w of workloads(objects)) {
    const env = w.spec.template.spec.containers[0]?.env?.find((e) => e.name === 'REDIS_URL');
    assert.deepEqual(env?.valueFrom, { secretKeyRef: { name: 'podset-redis', key: 'url' } }, w.metadata.name);
  }
});

test('overlay keda: a ScaledObject on the queue depth replaces the CPU HPA', () => {
  const objects = rendered.get('k8s/overlays/keda') as K8sObject[];
  assert.equal(find(objects, 'HorizontalPodAutoscaler', 'podset-worker'), undefined, 'KEDA owns the HPA');
  const so = find<
    K8sObject & {
      spec: {
        scaleTargetRef: { name: string };
        triggers: { type: string; metadata: Record<string, string> }[];
      };
    }
  >(objects, 'ScaledObject', 'podset-worker');
  assert.ok(so);
  assert.equal(so.spec.scaleTargetRef.name, 'podset-worker');
  assert.ok(find(objects, 'Deployment', so.spec.scaleTargetRef.name));
  // The metric the trigger queries is one an app exports, for the queue the apps use.
  const query = so.spec.triggers.find((tr) => tr.type === 'prometheus')?.metadata.query ?? '';
  const metric = /([a-z_]+)\{([^}]*)\}/.exec(query);
  assert.ok(metric, `a Prometheus query on a metric with labels: ${query}`);
  const exporters = execFileSync('grep', ['-rl', `name: '${metric[1]}'`, 'apps', 'libs'], {
    cwd: REPO,
    encoding: 'utf8',
  });
  assert.ok(exporters.trim() !== '', `${metric[1]} is exported by the apps`);
  const config = find<K8sObject & { data: Record<string, string> }>(objects, 'ConfigMap', 'podset-operator');
  assert.match(
    metric[2] ?? '',
    new RegExp(`queue="${config?.data.QUEUE_NAME ?? '?'}"`),
    'the queue the apps use',
  );
  assert.match(metric[2] ?? '', /state=~"waiting\|prioritized"/, 'waiting jobs, prioritized ones included');
});
