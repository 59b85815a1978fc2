import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeCluster, fakeResourceTypes, obj, until } from './fake-cluster.ts';
import type { ResourceType } from '../apimachinery/types.ts';
import { startResourceQuotaController } from './resourcequota.ts';

const pod = (name: string, memory?: string, extra: Record<string, unknown> = {}) =>
  obj('v1', 'Pod', name, 'default', {
    spec: {
      nodeName: 'n1',
      containers: [{ name: 'c', image: 'nginx', ...(memory ? { resources: { requests: { memory } } } : {}) }],
    },
    ...extra,
  });

test('status.hard and status.used follow the quota and the objects it counts', async (t) => {
  const cluster = new FakeCluster();
  const errors: string[] = [];
  const c = startResourceQuotaController(cluster, (err, ctx) => errors.push(`${ctx}: ${String(err)}`));
  t.after(() => c.stop());
  const status = () =>
    cluster.get('resourcequotas', 'default', 'q')?.status as
      { hard: Record<string, string>; used: Record<string, string> } | undefined;
  cluster.create('pods', pod('a', '100Mi'));
  cluster.create(
    'resourcequotas',
    obj('v1', 'ResourceQuota', 'q', 'default', {
      spec: {
        hard: {
          pods: '10',
          'requests.memory': '1Gi',
          'count/podsets.podset.io': '1000m',
          'count/widgets.example.com': '1', // a kind not served: no usage for it
          configmaps: '5',
        },
      },
    }),
  );
  await until(() => status()?.used?.pods === '1', 5_000, 'first sync');
  assert.deepEqual(status(), {
    hard: {
      configmaps: '5',
      'count/podsets.podset.io': '1',
      'count/widgets.example.com': '1',
      pods: '10',
      'requests.memory': '1Gi',
    },
    used: { configmaps: '0', 'count/podsets.podset.io': '0', pods: '1', 'requests.memory': '100Mi' },
  });

  cluster.create('pods', pod('b', '0.5Gi'));
  cluster.create('podsets.podset.io', obj('podset.io/v1', 'PodSet', 'ps', 'default', { spec: {} }));
  cluster.create('configmaps', obj('v1', 'ConfigMap', 'cm', 'default'));
  // Pods elsewhere don't count.
  cluster.create('pods', { ...pod('other', '1Gi'), metadata: { name: 'other', namespace: 'kube-system' } });
  await until(() => status()?.used?.configmaps === '1' && status()?.used?.pods === '2', 5_000, 'counted');
  assert.deepEqual(status()?.used, {
    configmaps: '1',
    'count/podsets.podset.io': '1',
    pods: '2',
    'requests.memory': '612Mi',
  });

  // A pod that has finished no longer counts.
  const b = cluster.get('pods', 'default', 'b')!;
  cluster.updateStatus('pods', { ...b, status: { phase: 'Failed' } });
  await until(() => status()?.used?.pods === '1', 5_000, 'failed pod released');
  assert.equal(status()?.used?.['requests.memory'], '100Mi');

  // A terminating pod counts until its grace period has passed twice.
  cluster.delete('pods', 'default', 'a', { gracePeriodSeconds: 1 });
  assert.equal(status()?.used?.pods, '1');
  await until(() => status()?.used?.pods === '0', 10_000, 'terminating pod released');
  assert.ok(cluster.get('pods', 'default', 'a'), 'still stored: only the charge ended');

  // A changed spec.hard shows in status.hard.
  const q = cluster.get('resourcequotas', 'default', 'q')!;
  cluster.update('resourcequotas', { ...q, spec: { hard: { pods: '3' } } });
  await until(() => status()?.hard?.pods === '3', 5_000, 'new hard');
  assert.deepEqual(status(), { hard: { pods: '3' }, used: { pods: '0' } });
  assert.deepEqual(errors, []);
});

const kind = (group: string, kind: string, plural: string, namespaced: boolean): ResourceType => ({
  group,
  version: 'v1',
  kind,
  listKind: `${kind}List`,
  plural,
  singular: kind.toLowerCase(),
  namespaced,
  shortNames: [],
  categories: [],
  verbs: ['create', 'delete', 'get', 'list', 'watch'],
  subresources: {},
});

test('a kind served after the quota was made gets its count/… usage', async (t) => {
  const types = [
    ...fakeResourceTypes,
    kind('apiextensions.k8s.io', 'CustomResourceDefinition', 'customresourcedefinitions', false),
  ];
  const cluster = new FakeCluster(types);
  const c = startResourceQuotaController(cluster, (err) => assert.fail(String(err)));
  t.after(() => c.stop());
  cluster.create(
    'resourcequotas',
    obj('v1', 'ResourceQuota', 'q', 'default', { spec: { hard: { 'count/gadgets.example.com': '2' } } }),
  );
  const used = () =>
    (cluster.get('resourcequotas', 'default', 'q')?.status as { used?: Record<string, string> } | undefined)
      ?.used;
  await until(() => used() !== undefined, 5_000, 'first sync');
  assert.deepEqual(used(), {});
  // What installing a CRD does: a new kind is served, and a CRD event tells the controllers.
  types.push(kind('example.com', 'Gadget', 'gadgets', true));
  cluster.create(
    'customresourcedefinitions.apiextensions.k8s.io',
    obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'gadgets.example.com', undefined),
  );
  await until(() => used()?.['count/gadgets.example.com'] === '0', 5_000, 'usage of the new kind');
});

test('a burst of creates in a large namespace ends with status.used counting every pod', async (t) => {
  const cluster = new FakeCluster();
  const c = startResourceQuotaController(cluster, (err) => assert.fail(String(err)));
  t.after(() => c.stop());
  cluster.create(
    'resourcequotas',
    obj('v1', 'ResourceQuota', 'q', 'default', {
      spec: { hard: { pods: '5000', 'requests.memory': '1Ti' } },
    }),
  );
  // Recounts of a namespace this size are spaced out while pods keep coming; the last one still happens.
  for (let i = 0; i < 1500; i++) {
    cluster.create('pods', pod(`p${i}`, '1Mi'));
    if (i % 10 === 0) await new Promise((r) => setImmediate(r));
  }
  const used = () =>
    (cluster.get('resourcequotas', 'default', 'q')?.status as { used?: Record<string, string> } | undefined)
      ?.used;
  await until(() => used()?.pods === '1500', 20_000, 'all 1500 pods counted');
  assert.deepEqual(used(), { pods: '1500', 'requests.memory': '1500Mi' });
});
