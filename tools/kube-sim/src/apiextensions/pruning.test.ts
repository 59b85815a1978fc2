// pruneUnknownFields: the fields a CRD schema does not know, dropped and named; idempotent, and a valid value
// stays valid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyDefaults, pruneUnknownFields } from './schema.ts';
import type { Json, JsonObject } from '../apimachinery/types.ts';
import { causesOf, isObj, misc, podsetSchema, podsetValue } from '../../test/unit-support/schemas.ts';

test('fields named like Object.prototype members are ordinary unknown fields', () => {
  const obj = JSON.parse(
    '{"apiVersion":"podset.io/v1","kind":"PodSet","metadata":{"name":"x"},"spec":{"replicas":1,"constructor":{"a":1},"toString":"x","__proto__":{"replicas":-5}}}',
  ) as Json;
  const pruned = pruneUnknownFields(obj, podsetSchema);
  assert.deepEqual(pruned.unknownFields, ['spec.__proto__', 'spec.constructor', 'spec.toString']);
  assert.deepEqual(Object.keys((pruned.value as JsonObject).spec as JsonObject), ['replicas']);
  assert.deepEqual(causesOf(pruned.value), []);
});

test('pruning: unknown fields dropped and named; preserve-unknown-fields and embedded resources honoured', () => {
  const obj = {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name: 'web', anything: 1 },
    extra: true,
    spec: {
      replicas: 1,
      foo: 'bar',
      template: {
        metadata: { labels: { a: 'b' }, junk: 1 },
        spec: { containers: [{ name: 'a', image: 'b', ports: [{ containerPort: 80 }] }], nodeName: 'n1' },
      },
    },
    status: { replicas: 1, bogus: 2, conditions: [{ type: 'Available', status: 'True', x: 1 }] },
  };
  const { value, unknownFields } = pruneUnknownFields(obj, podsetSchema);
  assert.deepEqual(unknownFields, [
    'extra',
    'spec.foo',
    'spec.template.metadata.junk',
    'status.bogus',
    'status.conditions[0].x',
  ]);
  const v = value as JsonObject;
  assert.deepEqual(v.metadata, { name: 'web', anything: 1 });
  assert.equal(v.extra, undefined);
  assert.deepEqual((v.spec as JsonObject).template, {
    metadata: { labels: { a: 'b' } },
    spec: { containers: [{ name: 'a', image: 'b', ports: [{ containerPort: 80 }] }], nodeName: 'n1' },
  });
  const emb = pruneUnknownFields(
    {
      a: 1,
      emb: { apiVersion: 'v1', kind: 'X', metadata: { name: 'n', bad: 1 }, spec: { x: 'y', z: 1 }, w: 2 },
    },
    misc,
  );
  assert.deepEqual(emb.unknownFields, ['emb.metadata.bad', 'emb.spec.z', 'emb.w']);
  assert.deepEqual(emb.value, {
    a: 1,
    emb: { apiVersion: 'v1', kind: 'X', metadata: { name: 'n' }, spec: { x: 'y' } },
  });
});

test('property: pruning is idempotent, never reports a known field, and keeps valid values valid', () => {
  const noise = fc.dictionary(fc.stringMatching(/^zz[a-z]{1,5}$/), fc.jsonValue() as fc.Arbitrary<Json>, {
    maxKeys: 2,
  });
  fc.assert(
    fc.property(podsetValue(), noise, noise, (generated, n1, n2) => {
      const v = JSON.parse(JSON.stringify(generated)) as Json;
      const obj = v as JsonObject;
      const noisy: JsonObject = { ...obj, ...n1 };
      if (isObj(obj.spec)) noisy.spec = { ...obj.spec, ...n2 };
      const once = pruneUnknownFields(noisy, podsetSchema);
      const twice = pruneUnknownFields(once.value, podsetSchema);
      assert.deepEqual(twice.value, once.value);
      assert.deepEqual(twice.unknownFields, []);
      assert.deepEqual(once.value, v);
      for (const f of once.unknownFields) assert.match(f, /(^|\.)zz[a-z]+$/);
      assert.deepEqual(causesOf(applyDefaults(once.value, podsetSchema)), []);
    }),
    { numRuns: 150 },
  );
});
