// Server-side apply and metadata.managedFields as kubectl 1.32 and @kubernetes/client-node see them:
// ownership recorded on every write, conflicts worded as the API server words them, --force-conflicts,
// removal of fields a manager stops applying, shared ownership, list merge keys of built-ins and CRDs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ApiException,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { useKubeSim } from './support/sim-kubectl.ts';

// Field ownership of the clients' writes alone: the Deployment controller (which would add its own
// entries for the status and revision annotations it writes) stays off.
const k = useKubeSim('ssa', {
  controllerOptions: { podLifecycle: false, deploymentController: false, replicaSetController: false },
});
const { kubectl } = k;
const apply = (obj: unknown, ...flags: string[]) => k.withManifest(['apply', ...flags], obj);

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}
interface Obj {
  metadata: { labels?: Record<string, string>; managedFields?: Entry[] };
  spec: Record<string, unknown>;
}

async function get(resource: string, name: string): Promise<Obj> {
  const r = await kubectl(['get', resource, name, '-o', 'json', '--show-managed-fields']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Obj;
}

const entry = (o: Obj, manager: string, operation = 'Apply'): Entry | undefined =>
  o.metadata.managedFields?.find((e) => e.manager === manager && e.operation === operation);

function deployment(
  name: string,
  spec: { replicas?: number; labels?: Record<string, string>; env?: unknown[] },
) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name, ...spec.labels } },
    spec: {
      ...(spec.replicas !== undefined ? { replicas: spec.replicas } : {}),
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1.27',
              ports: [{ containerPort: 80 }],
              ...(spec.env ? { env: spec.env } : {}),
            },
          ],
        },
      },
    },
  };
}

test('apply --server-side creates with an Apply entry; get hides managedFields unless asked', async () => {
  const r = await apply(deployment('ssa-create', { replicas: 2 }), '--server-side');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /deployment.apps\/ssa-create serverside-applied/);
  const o = await get('deployment', 'ssa-create');
  assert.equal(o.metadata.managedFields?.length, 1);
  const e = entry(o, 'kubectl') as Entry;
  assert.equal(e.apiVersion, 'apps/v1');
  assert.equal(e.fieldsType, 'FieldsV1');
  assert.match(e.time ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.deepEqual(e.fieldsV1, {
    'f:metadata': { 'f:labels': { 'f:app': {} } },
    'f:spec': {
      'f:replicas': {},
      'f:selector': {},
      'f:template': {
        'f:metadata': { 'f:labels': { 'f:app': {} } },
        'f:spec': {
          'f:containers': {
            'k:{"name":"web"}': {
              '.': {},
              'f:image': {},
              'f:name': {},
              'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
            },
          },
        },
      },
    },
  });
  const plain = await kubectl(['get', 'deployment', 'ssa-create', '-o', 'yaml']);
  assert.doesNotMatch(plain.stdout, /managedFields/);
});

test("another manager's different value conflicts; --force-conflicts takes the field", async () => {
  assert.equal((await apply(deployment('ssa-conflict', { replicas: 2 }), '--server-side')).code, 0);
  const r = await apply(
    deployment('ssa-conflict', { replicas: 4 }),
    '--server-side',
    '--field-manager=autoscaler',
  );
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /^error: Apply failed with 1 conflict: conflict with "kubectl": \.spec\.replicas\n/);
  assert.equal((await get('deployment', 'ssa-conflict')).spec.replicas, 2);

  const forced = await apply(
    deployment('ssa-conflict', { replicas: 4 }),
    '--server-side',
    '--field-manager=autoscaler',
    '--force-conflicts',
  );
  assert.equal(forced.code, 0, forced.stderr);
  const o = await get('deployment', 'ssa-conflict');
  assert.equal(o.spec.replicas, 4);
  const spec = (e: Entry | undefined) => e?.fieldsV1['f:spec'] as Record<string, unknown>;
  assert.ok('f:replicas' in spec(entry(o, 'autoscaler')));
  assert.ok(!('f:replicas' in spec(entry(o, 'kubectl'))), 'kubectl lost .spec.replicas');
  // The fields both applied with the same values are shared, not taken.
  assert.ok('f:selector' in spec(entry(o, 'kubectl')));
});

test('a field the manager stops applying is removed; one another manager also applied stays', async () => {
  const env = [
    { name: 'A', value: '1' },
    { name: 'B', value: '2' },
  ];
  const first = await apply(
    deployment('ssa-prune', { replicas: 1, labels: { tier: 'web', team: 'x' }, env }),
    '--server-side',
  );
  assert.equal(first.code, 0, first.stderr);
  // A second manager co-owns the team label (same value): no conflict.
  const co = await apply(
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'ssa-prune', labels: { team: 'x' } },
    },
    '--server-side',
    '--field-manager=labeller',
  );
  assert.equal(co.code, 0, co.stderr);

  const again = await apply(
    deployment('ssa-prune', { replicas: 1, env: [{ name: 'A', value: '1' }] }),
    '--server-side',
  );
  assert.equal(again.code, 0, again.stderr);
  const o = await get('deployment', 'ssa-prune');
  assert.deepEqual(o.metadata.labels, { app: 'ssa-prune', team: 'x' });
  const template = o.spec.template as { spec: { containers: { env?: unknown[] }[] } };
  assert.deepEqual(template.spec.containers[0]?.env, [{ name: 'A', value: '1' }]);
  const labels = (e: Entry | undefined) =>
    (e?.fieldsV1['f:metadata'] as { 'f:labels': Record<string, unknown> })['f:labels'];
  assert.deepEqual(Object.keys(labels(entry(o, 'kubectl'))), ['f:app']);
  assert.deepEqual(Object.keys(labels(entry(o, 'labeller'))), ['f:team']);
});

test('kubectl scale, then apply of another replica count: a conflict with the scale subresource', async () => {
  assert.equal((await apply(deployment('ssa-scale', { replicas: 2 }), '--server-side')).code, 0);
  const s = await kubectl(['scale', 'deployment', 'ssa-scale', '--replicas=5']);
  assert.equal(s.code, 0, s.stderr);
  const o = await get('deployment', 'ssa-scale');
  const scale = o.metadata.managedFields?.find((e) => e.subresource === 'scale');
  assert.equal(scale?.operation, 'Update');
  assert.deepEqual(scale?.fieldsV1, { 'f:spec': { 'f:replicas': {} } });

  const r = await apply(deployment('ssa-scale', { replicas: 2 }), '--server-side');
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /^error: Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps\/v1: \.spec\.replicas\n/,
  );
  // Applying the live value co-owns it instead.
  assert.equal((await apply(deployment('ssa-scale', { replicas: 5 }), '--server-side')).code, 0);
});

test('client-side apply, then server-side apply: other managers conflict, kubectl takes over', async () => {
  const csa = await apply(deployment('ssa-migrate', { replicas: 2 }));
  assert.equal(csa.code, 0, csa.stderr);
  const o = await get('deployment', 'ssa-migrate');
  assert.ok(entry(o, 'kubectl-client-side-apply', 'Update'));

  const other = await apply(
    deployment('ssa-migrate', { replicas: 3 }),
    '--server-side',
    '--field-manager=deployer',
  );
  assert.notEqual(other.code, 0);
  assert.match(
    other.stderr,
    /^error: Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps\/v1: \.spec\.replicas\n/,
  );
  // kubectl's own manager may take what the last client-side apply set (and nobody changed since).
  const ssa = await apply(deployment('ssa-migrate', { replicas: 3 }), '--server-side');
  assert.equal(ssa.code, 0, ssa.stderr);
  const migrated = await get('deployment', 'ssa-migrate');
  assert.equal(migrated.spec.replicas, 3);
  // The client-side apply annotation follows, so a later client-side apply starts from this configuration.
  const annotations = (migrated.metadata as { annotations?: Record<string, string> }).annotations ?? {};
  const last = JSON.parse(annotations['kubectl.kubernetes.io/last-applied-configuration'] ?? '{}') as Obj;
  assert.equal(last.spec.replicas, 3);
});

test('creates, edits and label changes are Update entries of their managers', async () => {
  assert.equal((await kubectl(['create', 'configmap', 'ssa-cm', '--from-literal=a=1'])).code, 0);
  assert.equal((await kubectl(['label', 'configmap', 'ssa-cm', 'team=x'])).code, 0);
  const o = await get('configmap', 'ssa-cm');
  assert.deepEqual(entry(o, 'kubectl-create', 'Update')?.fieldsV1, { 'f:data': { '.': {}, 'f:a': {} } });
  assert.deepEqual(entry(o, 'kubectl-label', 'Update')?.fieldsV1, {
    'f:metadata': { 'f:labels': { '.': {}, 'f:team': {} } },
  });
  // Table output is unchanged by managedFields.
  const table = await kubectl(['get', 'configmap', 'ssa-cm']);
  assert.match(table.stdout, /^NAME\s+DATA\s+AGE\nssa-cm\s+1\s+/);
});

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.ssa.example.com' },
  spec: {
    group: 'ssa.example.com',
    names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              status: { type: 'object', properties: { phase: { type: 'string' } } },
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer' },
                  parts: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name'],
                    items: {
                      type: 'object',
                      required: ['name'],
                      properties: { name: { type: 'string' }, count: { type: 'integer' } },
                    },
                  },
                  tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
                  args: { type: 'array', items: { type: 'string' } },
                  owner: {
                    type: 'object',
                    'x-kubernetes-map-type': 'atomic',
                    properties: { name: { type: 'string' }, team: { type: 'string' } },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

const gadget = (spec: Record<string, unknown>) => ({
  apiVersion: 'ssa.example.com/v1',
  kind: 'Gadget',
  metadata: { name: 'g1' },
  spec,
});

test('custom resources merge by x-kubernetes-list-type and -map-type; untyped lists are atomic', async () => {
  assert.equal((await apply(CRD, '--server-side')).code, 0);
  let ok = await apply(
    gadget({ parts: [{ name: 'a', count: 1 }], tags: ['x'], args: ['1'], owner: { name: 'al' } }),
    '--server-side',
    '--field-manager=one',
  );
  for (
    let i = 0;
    ok.code !== 0 && /no matches for kind|the server could not find/.test(ok.stderr) && i < 50;
    i++
  ) {
    ok = await apply(
      gadget({ parts: [{ name: 'a', count: 1 }], tags: ['x'], args: ['1'], owner: { name: 'al' } }),
      '--server-side',
      '--field-manager=one',
    );
  }
  assert.equal(ok.code, 0, ok.stderr);
  const two = await apply(
    gadget({ parts: [{ name: 'b', count: 2 }], tags: ['y'] }),
    '--server-side',
    '--field-manager=two',
  );
  assert.equal(two.code, 0, two.stderr);
  let o = await get('gadget', 'g1');
  assert.deepEqual(o.spec.parts, [
    { name: 'a', count: 1 },
    { name: 'b', count: 2 },
  ]);
  assert.deepEqual(o.spec.tags, ['x', 'y']);
  assert.deepEqual(entry(o, 'two')?.fieldsV1, {
    'f:spec': {
      'f:parts': { 'k:{"name":"b"}': { '.': {}, 'f:count': {}, 'f:name': {} } },
      'f:tags': { 'v:"y"': {} },
    },
  });

  // An atomic list, or an atomic map, is one field: a different value conflicts.
  const args = await apply(
    gadget({ args: ['2'], owner: { team: 't' } }),
    '--server-side',
    '--field-manager=two',
  );
  assert.notEqual(args.code, 0);
  assert.match(
    args.stderr,
    /^error: Apply failed with 2 conflicts: conflicts with "one":\n- \.spec\.args\n- \.spec\.owner\n/,
  );

  // Manager one drops part a and tag x: they go; two's part b and tag y stay.
  const drop = await apply(
    gadget({ args: ['1'], owner: { name: 'al' } }),
    '--server-side',
    '--field-manager=one',
  );
  assert.equal(drop.code, 0, drop.stderr);
  o = await get('gadget', 'g1');
  assert.deepEqual(o.spec.parts, [{ name: 'b', count: 2 }]);
  assert.deepEqual(o.spec.tags, ['y']);
});

test('the status subresource is applied separately: its own entry, its own conflicts', async () => {
  const st = await apply(
    { ...gadget({}), status: { phase: 'Ready' } },
    '--server-side',
    '--subresource=status',
    '--field-manager=reporter',
  );
  assert.equal(st.code, 0, st.stderr);
  const o = (await get('gadget', 'g1')) as Obj & { status?: { phase?: string } };
  assert.equal(o.status?.phase, 'Ready');
  const e = entry(o, 'reporter');
  assert.equal(e?.subresource, 'status');
  assert.deepEqual(e?.fieldsV1, { 'f:status': { 'f:phase': {} } });

  // The main resource's apply neither writes nor owns the status.
  const main = await apply(
    { ...gadget({ args: ['1'], owner: { name: 'al' } }), status: { phase: 'Broken' } },
    '--server-side',
    '--field-manager=one',
  );
  assert.equal(main.code, 0, main.stderr);
  const after = (await get('gadget', 'g1')) as Obj & { status?: { phase?: string } };
  assert.equal(after.status?.phase, 'Ready');
  assert.ok(!('f:status' in (entry(after, 'one')?.fieldsV1 ?? {})));

  const other = await apply(
    { ...gadget({}), status: { phase: 'Failed' } },
    '--server-side',
    '--subresource=status',
    '--field-manager=prober',
  );
  assert.notEqual(other.code, 0);
  assert.match(
    other.stderr,
    /^error: Apply failed with 1 conflict: conflict with "reporter" with subresource "status": \.status\.phase\n/,
  );
});

test('client-node: apply-patch+yaml with fieldManager and force; 409 with FieldManagerConflict causes', async () => {
  const kc = new KubeConfig();
  kc.loadFromString(k.sim.kubeconfigYaml());
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const cm = (data: Record<string, string>): KubernetesObject & { data: Record<string, string> } => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'ssa-node', namespace: 'default' },
    data,
  });
  const ssa = PatchStrategy.ServerSideApply;
  const created = await objects.patch(cm({ a: '1', b: '2' }), undefined, undefined, 'ctrl-a', false, ssa);
  assert.equal(created.metadata?.managedFields?.[0]?.manager, 'ctrl-a');
  assert.equal(created.metadata?.managedFields?.[0]?.operation, 'Apply');

  let err: unknown;
  try {
    await objects.patch(cm({ a: '9' }), undefined, undefined, 'ctrl-b', false, ssa);
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof ApiException, String(err));
  assert.equal(err.code, 409);
  const status = JSON.parse(err.body as string) as {
    message: string;
    reason: string;
    details: { causes: { reason: string; message: string; field: string }[] };
  };
  assert.equal(status.reason, 'Conflict');
  assert.equal(status.message, 'Apply failed with 1 conflict: conflict with "ctrl-a": .data.a');
  assert.deepEqual(status.details.causes, [
    { reason: 'FieldManagerConflict', message: 'conflict with "ctrl-a"', field: '.data.a' },
  ]);

  const forced = await objects.patch(cm({ a: '9' }), undefined, undefined, 'ctrl-b', true, ssa);
  assert.deepEqual(forced.data, { a: '9', b: '2' });
  // ctrl-a drops b: it goes, as nobody else owns it.
  const dropped = await objects.patch(cm({}), undefined, undefined, 'ctrl-a', false, ssa);
  assert.deepEqual(dropped.data, { a: '9' });

  // A resourceVersion in the configuration is a precondition, as on an update.
  let stale: unknown;
  try {
    await objects.patch(
      { ...cm({ a: '9' }), metadata: { ...cm({}).metadata, resourceVersion: '1' } } as KubernetesObject,
      undefined,
      undefined,
      'ctrl-b',
      false,
      ssa,
    );
  } catch (e) {
    stale = e;
  }
  assert.ok(stale instanceof ApiException, String(stale));
  assert.equal(stale.code, 409);
  assert.match(
    String(stale.body),
    /Operation cannot be fulfilled on configmaps \\"ssa-node\\": the object has been modified; please apply your changes to the latest version and try again/,
  );

  // A write without a fieldManager is recorded under the client's User-Agent name.
  const updated = await objects.patch(
    { ...cm({}), data: { c: '3' } } as KubernetesObject,
    undefined,
    undefined,
    undefined,
    undefined,
    PatchStrategy.MergePatch,
  );
  const managers = (updated.metadata?.managedFields ?? []).map((e) => `${e.manager}/${e.operation}`);
  assert.ok(managers.includes('kubernetes-client-javascript/Update'), managers.join(','));

  // managedFields: [{}] clears them; the write itself is then the only manager.
  const cleared = await objects.patch(
    {
      ...cm({}),
      metadata: { ...cm({}).metadata, managedFields: [{}] },
      data: { d: '4' },
    } as KubernetesObject,
    undefined,
    undefined,
    'resetter',
    undefined,
    PatchStrategy.MergePatch,
  );
  assert.deepEqual(
    (cleared.metadata?.managedFields ?? []).map((e) => e.manager),
    ['resetter'],
  );
  // Any other valid list replaces them.
  const mine = {
    manager: 'importer',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2026-01-01T00:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:data': { 'f:d': {} } },
  };
  const replaced = await objects.patch(
    { ...cm({}), metadata: { ...cm({}).metadata, managedFields: [mine] } } as unknown as KubernetesObject,
    undefined,
    undefined,
    'resetter',
    undefined,
    PatchStrategy.MergePatch,
  );
  assert.deepEqual(
    (replaced.metadata?.managedFields ?? []).map((e) => [e.manager, e.operation, e.fieldsV1]),
    [['importer', 'Update', mine.fieldsV1]],
  );
});
