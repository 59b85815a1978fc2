// kube-sim's REST semantics over HTTP: custom resources: a CRD served, validated, defaulted, pruned; several versions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pod, useServer } from './support.ts';

const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.test.io' },
  spec: {
    group: 'test.io',
    scope: 'Namespaced',
    names: {
      kind: 'Widget',
      listKind: 'WidgetList',
      plural: 'widgets',
      singular: 'widget',
      shortNames: ['wd'],
    },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: {
          status: {},
          scale: {
            specReplicasPath: '.spec.replicas',
            statusReplicasPath: '.status.replicas',
            labelSelectorPath: '.status.selector',
          },
        },
        additionalPrinterColumns: [
          { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Color', type: 'string', jsonPath: '.spec.color' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  replicas: { type: 'integer', minimum: 0, maximum: 100, default: 1 },
                  color: { type: 'string', enum: ['red', 'blue'] },
                },
              },
              status: {
                type: 'object',
                properties: { replicas: { type: 'integer' }, selector: { type: 'string' } },
              },
            },
          },
        },
      },
    ],
  },
};

describe('kube-sim server', () => {
  const server = useServer();
  const { call } = server;

  test('CRDs: established, served, defaulted, validated, pruned, status and scale subresources, printer columns', async () => {
    const crd = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', WIDGET_CRD);
    assert.equal(crd.status, 201, JSON.stringify(crd.body));
    const conds = crd.body.status.conditions.map(
      (c: { type: string; status: string }) => `${c.type}=${c.status}`,
    );
    assert.ok(conds.includes('Established=True') && conds.includes('NamesAccepted=True'));
    const disc = await call('GET', '/apis/test.io/v1');
    const names = disc.body.resources.map((r: { name: string }) => r.name);
    assert.deepEqual(names.sort(), ['widgets', 'widgets/scale', 'widgets/status']);
    const base = '/apis/test.io/v1/namespaces/default/widgets';
    const w = await call('POST', base, {
      apiVersion: 'test.io/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { color: 'red' },
      status: { replicas: 4 },
    });
    assert.equal(w.status, 201, JSON.stringify(w.body));
    assert.equal(w.body.spec.replicas, 1, 'defaulted');
    assert.equal(w.body.status, undefined, 'status dropped on create');
    const bad = await call('POST', base, {
      apiVersion: 'test.io/v1',
      kind: 'Widget',
      metadata: { name: 'bad' },
      spec: { replicas: 1000, color: 'green' },
    });
    assert.equal(bad.status, 422);
    const fields = bad.body.details.causes.map((c: { field: string }) => c.field).sort();
    assert.deepEqual(fields, ['spec.color', 'spec.replicas']);
    // fieldValidation
    const strict = await call('POST', base + '?fieldValidation=Strict', {
      apiVersion: 'test.io/v1',
      kind: 'Widget',
      metadata: { name: 's' },
      spec: { foo: 1 },
    });
    assert.equal(strict.status, 400);
    assert.match(strict.body.message, /unknown field "spec\.foo"/);
    const warn = await call('POST', base + '?fieldValidation=Warn', {
      apiVersion: 'test.io/v1',
      kind: 'Widget',
      metadata: { name: 's' },
      spec: { foo: 1 },
    });
    assert.equal(warn.status, 201);
    assert.equal(warn.body.spec.foo, undefined, 'pruned');
    assert.match(warn.headers.get('warning') ?? '', /299 - "unknown field \\"spec\.foo\\""/);
    // built-in kinds too: Strict names the unknown field, Warn warns (and keeps it)
    const podStrict = await call('POST', '/api/v1/namespaces/default/pods?fieldValidation=Strict', {
      ...pod('strict-pod'),
      spec: { containers: [{ name: 'c', image: 'x', imagee: 'y' }] },
    });
    assert.equal(podStrict.status, 400);
    assert.match(podStrict.body.message, /unknown field "spec\.containers\[0\]\.imagee"/);
    const podWarn = await call('POST', '/api/v1/namespaces/default/pods', { ...pod('warn-pod'), foo: 1 });
    assert.equal(podWarn.status, 201);
    assert.match(podWarn.headers.get('warning') ?? '', /unknown field \\"foo\\"/);
    // strategic merge patch is not for custom resources
    const smp = await call(
      'PATCH',
      base + '/w',
      { spec: { replicas: 2 } },
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    assert.equal(smp.status, 415);
    // status subresource
    const st = await call(
      'PATCH',
      base + '/w/status',
      { status: { replicas: 2, selector: 'app=w' }, spec: { replicas: 50 } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    assert.equal(st.status, 200);
    assert.equal(st.body.status.replicas, 2);
    assert.equal(st.body.spec.replicas, 1);
    const main = await call(
      'PATCH',
      base + '/w',
      { spec: { replicas: 3 }, status: { replicas: 9 } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    assert.equal(main.body.status.replicas, 2);
    assert.equal(main.body.metadata.generation, 2);
    // scale subresource
    const sc = await call('GET', base + '/w/scale');
    assert.deepEqual(
      [
        sc.body.apiVersion,
        sc.body.kind,
        sc.body.spec.replicas,
        sc.body.status.replicas,
        sc.body.status.selector,
      ],
      ['autoscaling/v1', 'Scale', 3, 2, 'app=w'],
    );
    const put = await call('PUT', base + '/w/scale', { ...sc.body, spec: { replicas: 5 } });
    assert.equal(put.body.spec.replicas, 5);
    const stale = await call('PUT', base + '/w/scale', { ...sc.body, spec: { replicas: 6 } });
    assert.equal(stale.status, 409);
    // printer columns
    const tbl = await call('GET', base, undefined, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    assert.equal(tbl.body.kind, 'Table');
    assert.deepEqual(
      tbl.body.columnDefinitions.map((c: { name: string }) => c.name),
      ['Name', 'Desired', 'Color'],
    );
    const row = tbl.body.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'w');
    assert.deepEqual(row.cells, ['w', 5, 'red']);
    // deleting the CRD removes its objects and its API
    const del = await call(
      'DELETE',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.test.io',
    );
    assert.equal(del.status, 200);
    assert.equal((await call('GET', base)).status, 404);
    assert.equal((await call('GET', '/apis/test.io/v1')).status, 404);
  });

  test('CRDs with several versions: one storage version, each served version sees its apiVersion', async () => {
    const schema = {
      openAPIV3Schema: {
        type: 'object',
        properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 3 } } } },
      },
    };
    const crd = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.mv.io' },
      spec: {
        group: 'mv.io',
        scope: 'Cluster',
        names: { kind: 'Thing', plural: 'things' },
        versions: [
          { name: 'v1beta1', served: true, storage: false, schema },
          { name: 'v1', served: true, storage: true, schema },
        ],
      },
    });
    assert.equal(crd.status, 201, JSON.stringify(crd.body));
    assert.deepEqual(crd.body.status.storedVersions, ['v1']);
    const group = await call('GET', '/apis/mv.io');
    assert.equal(group.body.preferredVersion.version, 'v1');
    const agg = await call('GET', '/apis', undefined, {
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    const mv = agg.body.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'mv.io');
    assert.deepEqual(
      mv.versions.map((v: { version: string }) => v.version),
      ['v1', 'v1beta1'],
    );
    const made = await call('POST', '/apis/mv.io/v1beta1/things', {
      apiVersion: 'mv.io/v1beta1',
      kind: 'Thing',
      metadata: { name: 't1' },
      spec: {},
    });
    assert.equal(made.body.apiVersion, 'mv.io/v1beta1');
    assert.equal(made.body.spec.size, 3);
    const v1 = await call('GET', '/apis/mv.io/v1/things/t1');
    assert.equal(v1.body.apiVersion, 'mv.io/v1');
    assert.equal(v1.body.metadata.uid, made.body.metadata.uid);
    const list = await call('GET', '/apis/mv.io/v1beta1/things');
    assert.equal(list.body.apiVersion, 'mv.io/v1beta1');
    assert.equal(list.body.items[0].apiVersion, 'mv.io/v1beta1');
    const wrong = await call('POST', '/apis/mv.io/v1/things', {
      apiVersion: 'mv.io/v1beta1',
      kind: 'Thing',
      metadata: { name: 't2' },
    });
    assert.equal(wrong.status, 400);
  });
});
