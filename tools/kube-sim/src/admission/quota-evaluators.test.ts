// What one object adds to a quota, as kube-apiserver's evaluators measure it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatQuantity } from '../apimachinery/quantity.ts';
import {
  matchesScopes,
  matchingResources,
  namespaceUsage,
  podCharged,
  podConstraintError,
  quotaSpecOf,
  type ResourceList,
  usageOf,
} from './quota-evaluators.ts';
import type { KubeObject } from '../apimachinery/types.ts';

const text = (l: ResourceList): Record<string, string> =>
  Object.fromEntries([...l].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, formatQuantity(v)]));

const res = (requests?: Record<string, string>, limits?: Record<string, string>) => ({
  resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
});

function pod(spec: Record<string, unknown>, meta: Record<string, unknown> = {}, status = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', ...meta }, spec, status };
}

test('pod usage: containers add up, init containers take the max, sidecars add, overhead adds', () => {
  const p = pod({
    containers: [
      { name: 'a', ...res({ cpu: '100m', memory: '64Mi' }, { cpu: '200m' }) },
      { name: 'b', ...res(undefined, { cpu: '300m', memory: '128Mi' }) }, // requests default to limits
    ],
    initContainers: [
      { name: 'side', restartPolicy: 'Always', ...res({ cpu: '50m' }) },
      { name: 'big', ...res({ cpu: '1', memory: '1Gi' }) },
    ],
    overhead: { cpu: '10m' },
  });
  assert.deepEqual(text(usageOf('pods', p, Date.now())), {
    'count/pods': '1',
    cpu: '1060m', // max(100m + 300m + 50m, 1 + 50m) + 10m
    'limits.cpu': '510m', // 200m + 300m, overhead on a limit that is set
    'limits.memory': '128Mi',
    memory: '1Gi',
    pods: '1',
    'requests.cpu': '1060m',
    'requests.memory': '1Gi',
  });
});

test('terminal and long-terminating pods keep only count/pods', () => {
  const now = Date.parse('2026-01-01T00:01:00Z');
  for (const phase of ['Succeeded', 'Failed']) {
    const p = pod({ containers: [{ name: 'a' }] }, {}, { phase });
    assert.deepEqual(text(usageOf('pods', p, now)), { 'count/pods': '1' });
  }
  const deleting = (at: string) =>
    pod({ containers: [{ name: 'a' }] }, { deletionTimestamp: at, deletionGracePeriodSeconds: 30 });
  assert.equal(podCharged(deleting('2026-01-01T00:00:45Z'), now), true); // within twice the grace
  assert.equal(podCharged(deleting('2026-01-01T00:00:15Z'), now), false);
});

test('containers must name cpu/memory a quota tracks (init containers too); others need not', () => {
  const p = pod({
    containers: [{ name: 'z', ...res({ cpu: '1' }) }, { name: 'a' }],
    initContainers: [{ name: 'init', ...res({ cpu: '1', memory: '1' }) }],
  });
  assert.equal(
    podConstraintError(['requests.cpu', 'memory', 'pods', 'requests.storage'], p),
    'must specify memory for: a,z; requests.cpu for: a',
  );
  assert.equal(podConstraintError(['pods', 'requests.ephemeral-storage'], p), undefined);
});

test('which quota names each kind answers to', () => {
  const names = [
    'pods',
    'count/pods',
    'requests.cpu',
    'hugepages-2Mi',
    'requests.example.com/gpu',
    'services',
    'services.nodeports',
    'secrets',
    'count/secrets',
    'count/podsets.podset.io',
    'gold.storageclass.storage.k8s.io/requests.storage',
    'requests.storage',
  ];
  assert.deepEqual(matchingResources('pods', names), [
    'pods',
    'count/pods',
    'requests.cpu',
    'hugepages-2Mi',
    'requests.example.com/gpu',
  ]);
  assert.deepEqual(matchingResources('services', names), ['services', 'services.nodeports']);
  assert.deepEqual(matchingResources('secrets', names), ['secrets', 'count/secrets']);
  assert.deepEqual(matchingResources('podsets.podset.io', names), ['count/podsets.podset.io']);
  assert.deepEqual(matchingResources('persistentvolumeclaims', names), [
    'gold.storageclass.storage.k8s.io/requests.storage',
    'requests.storage',
  ]);
});

test('claims are charged whole bytes, per storage class too; services their node ports', () => {
  const pvc: KubeObject = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'c' },
    spec: { storageClassName: 'gold', resources: { requests: { storage: '1.5' } } },
  };
  assert.deepEqual(text(usageOf('persistentvolumeclaims', pvc, 0)), {
    'count/persistentvolumeclaims': '1',
    'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
    'gold.storageclass.storage.k8s.io/requests.storage': '2',
    persistentvolumeclaims: '1',
    'requests.storage': '2',
  });
  const svc = (type: string, extra = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's' },
    spec: { type, ports: [{ port: 80 }, { port: 443, nodePort: 30443 }], ...extra },
  });
  assert.equal(text(usageOf('services', svc('NodePort'), 0))['services.nodeports'], '2');
  assert.equal(text(usageOf('services', svc('LoadBalancer'), 0))['services.loadbalancers'], '1');
  assert.equal(
    text(usageOf('services', svc('LoadBalancer', { allocateLoadBalancerNodePorts: false }), 0))[
      'services.nodeports'
    ],
    '1',
  );
  assert.equal(text(usageOf('services', svc('ClusterIP'), 0))['services.nodeports'], '0');
});

test('scopes: pods only; priority classes by selector', () => {
  const q = (spec: Record<string, unknown>) =>
    quotaSpecOf({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q' },
      spec: { hard: { pods: '1' }, ...spec },
    });
  const best = pod({ containers: [{ name: 'a' }] });
  const burst = pod({ containers: [{ name: 'a', ...res({ memory: '1Mi' }) }], activeDeadlineSeconds: 10 });
  assert.equal(matchesScopes('pods', q({ scopes: ['BestEffort'] }), best), true);
  assert.equal(matchesScopes('pods', q({ scopes: ['BestEffort'] }), burst), false);
  assert.equal(matchesScopes('pods', q({ scopes: ['NotBestEffort', 'Terminating'] }), burst), true);
  assert.equal(matchesScopes('pods', q({ scopes: ['NotTerminating'] }), burst), false);
  assert.equal(matchesScopes('configmaps', q({ scopes: ['BestEffort'] }), best), false);
  const high = pod({ containers: [{ name: 'a' }], priorityClassName: 'high' });
  const sel = (operator: string, values?: string[]) =>
    q({
      scopeSelector: {
        matchExpressions: [{ scopeName: 'PriorityClass', operator, ...(values ? { values } : {}) }],
      },
    });
  assert.equal(matchesScopes('pods', sel('In', ['high']), high), true);
  assert.equal(matchesScopes('pods', sel('In', ['high']), best), false);
  assert.equal(matchesScopes('pods', sel('NotIn', ['high']), best), true);
  assert.equal(matchesScopes('pods', sel('Exists'), high), true);
  assert.equal(matchesScopes('pods', sel('DoesNotExist'), high), false);
});

test('namespace sums: the format of the first pod that adds to them, as Quantity.Add keeps it', () => {
  const pods = (...memory: string[]) =>
    memory.map((m, i) => pod({ containers: [{ name: 'a', ...res({ memory: m }) }] }, { name: `p${i}` }));
  const reader = (list: KubeObject[]) => ({ list: () => list, count: () => list.length });
  const quota = quotaSpecOf({
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'q' },
    spec: { hard: { 'requests.memory': '1Gi', 'count/pods': '9', pods: '9' } },
  });
  const sum = (list: KubeObject[]) =>
    text(namespaceUsage(reader(list), 'pods', 'ns', quota, ['requests.memory', 'count/pods', 'pods'], 0));
  assert.deepEqual(sum(pods('1Mi', '1024000')), {
    'count/pods': '2',
    pods: '2',
    'requests.memory': '2024Ki',
  });
  assert.deepEqual(sum(pods('1024000', '1Mi')), {
    'count/pods': '2',
    pods: '2',
    'requests.memory': '2072576',
  });
  assert.deepEqual(sum([]), { 'count/pods': '0', pods: '0', 'requests.memory': '0' });
});
