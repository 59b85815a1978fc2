// x-kubernetes-validations over HTTP: a CRD with CEL rules installed into kube-sim, then creates, updates,
// patches and status writes that keep or break them, answered as kube-apiserver answers them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type KubeSim, startKubeSim } from '../src/index.ts';

interface Resp {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

const BOTH_ZERO =
  "!((type(self.maxSurge) == int ? self.maxSurge == 0 : self.maxSurge == '0%') && " +
  "(type(self.maxUnavailable) == int ? self.maxUnavailable == 0 : self.maxUnavailable == '0%'))";

const intOrPercent = { 'x-kubernetes-int-or-string': true, default: '25%' };

function gadgetCrd(specRules: unknown[] = []) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.rules.test.io' },
    spec: {
      group: 'rules.test.io',
      scope: 'Namespaced',
      names: { kind: 'Gadget', plural: 'gadgets' },
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
                spec: {
                  type: 'object',
                  properties: {
                    replicas: { type: 'integer', default: 1 },
                    zone: {
                      type: 'string',
                      'x-kubernetes-validations': [
                        {
                          rule: 'self == oldSelf',
                          message: 'zone is immutable',
                          reason: 'FieldValueForbidden',
                        },
                      ],
                    },
                    rollingUpdate: {
                      type: 'object',
                      properties: { maxSurge: intOrPercent, maxUnavailable: intOrPercent },
                      'x-kubernetes-validations': [
                        {
                          rule: BOTH_ZERO,
                          message: 'maxSurge and maxUnavailable may not both be 0',
                          fieldPath: '.maxSurge',
                        },
                      ],
                    },
                  },
                  'x-kubernetes-validations': specRules,
                },
                status: {
                  type: 'object',
                  properties: { ready: { type: 'integer' } },
                  'x-kubernetes-validations': [
                    {
                      rule: '!has(self.ready) || self.ready >= 0',
                      messageExpression: '"ready may not be negative, got " + string(self.ready)',
                    },
                  ],
                },
              },
            },
          },
        },
      ],
    },
  };
}

function gadget(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'rules.test.io/v1', kind: 'Gadget', metadata: { name }, spec };
}

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const BASE = '/apis/rules.test.io/v1/namespaces/default/gadgets';
const MERGE = { 'content-type': 'application/merge-patch+json' };

describe('x-kubernetes-validations over HTTP', () => {
  let sim: KubeSim;
  async function call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Resp> {
    const h: Record<string, string> = {
      authorization: `Bearer ${sim.tokens.admin}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    };
    const res = await fetch(sim.url + path, {
      method,
      headers: h,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as unknown };
  }

  before(async () => {
    sim = await startKubeSim({ controllers: false });
  });
  after(async () => {
    await sim.close();
  });

  test('a CRD whose rule does not compile is refused', async () => {
    const crd = gadgetCrd([{ rule: 'self.replicas >' }]);
    const res = await call('POST', CRDS, crd);
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.reason, 'Invalid');
    const [cause] = res.body.details.causes;
    assert.equal(
      cause.field,
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
    );
    assert.match(cause.message, /compilation failed: ERROR: <input>:1:16: Syntax error/);
    assert.equal((await call('GET', `${CRDS}/gadgets.rules.test.io`)).status, 404);
  });

  test('create: a violating object gets 422 with the rule message, a valid one is created', async () => {
    assert.equal((await call('POST', CRDS, gadgetCrd())).status, 201);

    const bad = await call(
      'POST',
      BASE,
      gadget('bad', { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } }),
    );
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    assert.equal(bad.body.kind, 'Status');
    assert.equal(bad.body.reason, 'Invalid');
    assert.equal(bad.body.code, 422);
    assert.equal(
      bad.body.message,
      'Gadget.rules.test.io "bad" is invalid: spec.rollingUpdate.maxSurge: Invalid value: "object": maxSurge and maxUnavailable may not both be 0',
    );
    assert.deepEqual(bad.body.details.causes, [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.rollingUpdate.maxSurge',
        message: 'Invalid value: "object": maxSurge and maxUnavailable may not both be 0',
      },
    ]);
    assert.equal((await call('GET', `${BASE}/bad`)).status, 404, 'nothing stored');

    // maxUnavailable is defaulted to 25% before the rule runs, so maxSurge 0 alone is fine
    const ok = await call('POST', BASE, gadget('g', { zone: 'a', rollingUpdate: { maxSurge: 0 } }));
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.deepEqual(ok.body.spec.rollingUpdate, { maxSurge: 0, maxUnavailable: '25%' });
  });

  test('update and patch: a change that breaks a rule gets 422 and leaves the object as it was', async () => {
    const cur = (await call('GET', `${BASE}/g`)).body;
    const put = await call('PUT', `${BASE}/g`, {
      ...cur,
      spec: { ...cur.spec, rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } },
    });
    assert.equal(put.status, 422, JSON.stringify(put.body));
    assert.match(
      put.body.message,
      /spec\.rollingUpdate\.maxSurge: Invalid value: "object": maxSurge and maxUnavailable/,
    );

    const patch = await call(
      'PATCH',
      `${BASE}/g`,
      { spec: { rollingUpdate: { maxUnavailable: '0%' } } },
      MERGE,
    );
    assert.equal(patch.status, 422, JSON.stringify(patch.body));
    assert.equal(patch.body.details.causes[0].field, 'spec.rollingUpdate.maxSurge');

    const after = (await call('GET', `${BASE}/g`)).body;
    assert.equal(after.metadata.resourceVersion, cur.metadata.resourceVersion);
    assert.deepEqual(after.spec.rollingUpdate, { maxSurge: 0, maxUnavailable: '25%' });

    const fine = await call('PATCH', `${BASE}/g`, { spec: { rollingUpdate: { maxUnavailable: 1 } } }, MERGE);
    assert.equal(fine.status, 200, JSON.stringify(fine.body));
    assert.deepEqual(fine.body.spec.rollingUpdate, { maxSurge: 0, maxUnavailable: 1 });
  });

  test('transition rules: self == oldSelf refuses a changed zone on update only', async () => {
    const moved = await call('PATCH', `${BASE}/g`, { spec: { zone: 'b' } }, MERGE);
    assert.equal(moved.status, 422, JSON.stringify(moved.body));
    assert.deepEqual(moved.body.details.causes, [
      { reason: 'FieldValueForbidden', field: 'spec.zone', message: 'Forbidden: zone is immutable' },
    ]);
    const same = await call('PATCH', `${BASE}/g`, { spec: { zone: 'a', replicas: 5 } }, MERGE);
    assert.equal(same.status, 200, JSON.stringify(same.body));
    // a new object may pick any zone: transition rules do not run on create
    assert.equal((await call('POST', BASE, gadget('other', { zone: 'b' }))).status, 201);
  });

  test('status subresource: rules under status run on status writes', async () => {
    const bad = await call('PATCH', `${BASE}/g/status`, { status: { ready: -1 } }, MERGE);
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    assert.deepEqual(bad.body.details.causes, [
      {
        reason: 'FieldValueInvalid',
        field: 'status',
        message: 'Invalid value: "object": ready may not be negative, got -1',
      },
    ]);
    const good = await call('PATCH', `${BASE}/g/status`, { status: { ready: 2 } }, MERGE);
    assert.equal(good.status, 200, JSON.stringify(good.body));
    assert.equal(good.body.status.ready, 2);
  });

  test('a rule added later: unchanged values are ratcheted (a warning), changes must comply', async () => {
    // g has replicas 5; the new rule allows at most 3
    const crd = (await call('GET', `${CRDS}/gadgets.rules.test.io`)).body;
    const next = gadgetCrd([{ rule: 'self.replicas <= 3', message: 'at most 3 replicas' }]);
    const put = await call('PUT', `${CRDS}/gadgets.rules.test.io`, { ...next, metadata: crd.metadata });
    assert.equal(put.status, 200, JSON.stringify(put.body));

    const status = await call('PATCH', `${BASE}/g/status`, { status: { ready: 3 } }, MERGE);
    assert.equal(status.status, 200, JSON.stringify(status.body));
    assert.match(
      status.headers.get('warning') ?? '',
      /spec: Invalid value: \\"object\\": at most 3 replicas/,
    );

    const labels = await call('PATCH', `${BASE}/g`, { metadata: { labels: { a: 'b' } } }, MERGE);
    assert.equal(labels.status, 200, JSON.stringify(labels.body));
    assert.match(labels.headers.get('warning') ?? '', /at most 3 replicas/);

    const scale = await call('PATCH', `${BASE}/g`, { spec: { replicas: 4 } }, MERGE);
    assert.equal(scale.status, 422, JSON.stringify(scale.body));
    assert.equal(
      scale.body.message,
      'Gadget.rules.test.io "g" is invalid: spec: Invalid value: "object": at most 3 replicas',
    );
    assert.equal((await call('PATCH', `${BASE}/g`, { spec: { replicas: 3 } }, MERGE)).status, 200);
  });

  test('a schema error that blocks the rules is reported with the note that rules were not checked', async () => {
    const res = await call(
      'POST',
      BASE,
      gadget('typed', { replicas: 'two', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } }),
    );
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`),
      [
        'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
        '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      ],
    );
  });
});
