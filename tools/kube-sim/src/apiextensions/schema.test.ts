// validateAgainstSchema: the causes kube-apiserver reports for a value against a CRD's structural schema, in
// its words, for each keyword; values generated to fit a schema validate, and a wrong type is found anywhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { parse } from 'yaml';
import { applyDefaults, validateAgainstSchema, validateCrd } from './schema.ts';
import type { Json, JsonObject, JSONSchemaProps } from '../apimachinery/types.ts';
import {
  arbFor,
  causesOf,
  crdWith,
  isObj,
  misc,
  msgs,
  podset,
  podsetSchema,
  podsetValue,
  rootSchemaArb,
  schemaOf,
  structuralMsgs,
  validSpec,
} from '../../test/unit-support/schemas.ts';

test('a valid PodSet has no causes; examples validate after defaulting', () => {
  assert.deepEqual(causesOf(podset(validSpec)), []);
  for (const f of ['web.yaml', 'defaults.yaml', 'custom.yaml', 'pool.yaml']) {
    const path = fileURLToPath(new URL(`../../../../examples/${f}`, import.meta.url));
    const obj = parse(readFileSync(path, 'utf8')) as Json;
    const defaulted = applyDefaults(obj, podsetSchema);
    assert.deepEqual(msgs(causesOf(defaulted)), [], f);
  }
});

test('messages are worded as kube-apiserver words them', () => {
  const cases: [Json, string][] = [
    [
      { ...validSpec, replicas: -1 },
      'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
    ],
    [
      { ...validSpec, replicas: 10001 },
      'spec.replicas: Invalid value: 10001: spec.replicas in body should be less than or equal to 10000',
    ],
    [
      { ...validSpec, replicas: 'x' },
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ],
    [
      { ...validSpec, replicas: 1.5 },
      'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
    ],
    [
      { ...validSpec, replicas: null },
      'spec.replicas: Invalid value: "null": spec.replicas in body must be of type integer: "null"',
    ],
  ];
  for (const [spec, expected] of cases) {
    assert.deepEqual(structuralMsgs(podset(spec)), [expected]);
  }
  // kube-openapi reports the format range and the maximum separately
  assert.deepEqual(structuralMsgs(podset({ ...validSpec, replicas: 3_000_000_000 })), [
    'spec.replicas: Invalid value: "": Checked value must be of type integer with format int32 in spec.replicas',
    'spec.replicas: Invalid value: 3000000000: spec.replicas in body should be less than or equal to 10000',
  ]);
  const more: [Json, string][] = [
    [{ replicas: 1, template: { spec: {} } }, 'spec.template.spec.containers: Required value'],
    [
      { replicas: 1, template: { spec: { containers: [] } } },
      'spec.template.spec.containers: Invalid value: 0: spec.template.spec.containers in body should have at least 1 items',
    ],
    [
      { replicas: 1, template: { spec: { containers: [{ name: 'Bad_Name', image: 'x' }] } } },
      'spec.template.spec.containers[0].name: Invalid value: "Bad_Name": spec.template.spec.containers[0].name in body should match \'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\'',
    ],
    [
      { replicas: 1, template: { spec: { containers: [{ name: 'a', image: '' }] } } },
      'spec.template.spec.containers[0].image: Invalid value: "": spec.template.spec.containers[0].image in body should be at least 1 chars long',
    ],
    [
      { replicas: 1, template: { spec: { containers: [{ name: 'a'.repeat(64), image: 'x' }] } } },
      'spec.template.spec.containers[0].name: Too long: may not be longer than 63',
    ],
    [
      {
        replicas: 1,
        template: {
          spec: {
            containers: [
              { name: 'a', image: 'x' },
              { name: 'a', image: 'y' },
            ],
          },
        },
      },
      'spec.template.spec.containers[1]: Duplicate value: map[string]interface {}{"name":"a"}',
    ],
    [
      { ...validSpec, template: 'x' },
      'spec.template: Invalid value: "string": spec.template in body must be of type object: "string"',
    ],
  ];
  for (const [spec, expected] of more) {
    assert.deepEqual(structuralMsgs(podset(spec)), [expected]);
  }
  const status = {
    ...(podset(validSpec) as JsonObject),
    status: { conditions: [{ type: 'Bogus', status: 'True', lastTransitionTime: 'yesterday' }] },
  };
  assert.deepEqual(structuralMsgs(status), [
    'status.conditions[0].type: Unsupported value: "Bogus": supported values: "Available", "Progressing", "ReplicaFailure"',
    'status.conditions[0].lastTransitionTime: Invalid value: "yesterday": status.conditions[0].lastTransitionTime in body must be of type date-time: "yesterday"',
  ]);
  const reasons = causesOf(podset({ ...validSpec, replicas: -1 })).map((c) => c.reason);
  assert.deepEqual(reasons, ['FieldValueInvalid']);
  assert.equal(causesOf(podset({ replicas: 1, template: { spec: {} } }))[0]?.reason, 'FieldValueRequired');
  assert.equal(causesOf(podset({ ...validSpec, replicas: 'x' }))[0]?.reason, 'FieldValueTypeInvalid');
});

test('root metadata is left to the server, except name constraints in the schema', () => {
  const obj = podset(validSpec) as JsonObject;
  obj.metadata = { name: 'web', labels: { a: 'b' }, unknown: 1 };
  assert.deepEqual(causesOf(obj), []);
  obj.metadata = { name: 'x'.repeat(64) };
  assert.deepEqual(structuralMsgs(obj), ['metadata.name: Too long: may not be longer than 63']);
});

test('nullable, int-or-string, numbers, maps, sets, enums and embedded resources', () => {
  const v = (x: JsonObject) => msgs(validateAgainstSchema({ a: 1, ...x }, misc));
  assert.deepEqual(v({ n: null, ios: 3, free: { anything: [1, { b: 2 }] } }), []);
  assert.deepEqual(v({ ios: 'port' }), []);
  assert.deepEqual(v({ ios: true }), [
    'ios: Invalid value: "boolean": ios in body must be of type integer,string: "boolean"',
  ]);
  assert.deepEqual(msgs(validateAgainstSchema({}, misc)), ['a: Required value']);
  assert.deepEqual(v({ a: 0 }), ['a: Invalid value: 0: a in body should be greater than 0']);
  assert.deepEqual(v({ a: 1.5 }), ['a: Invalid value: 1.5: a in body should be less than 1.5']);
  assert.deepEqual(v({ big: 2000000.5 }), [
    'big: Invalid value: 2.0000005e+06: big in body should be less than or equal to 1e+06',
  ]);
  assert.deepEqual(v({ map: { x: 1, y: 'z' } }), [
    'map.y: Invalid value: "string": map.y in body must be of type integer: "string"',
  ]);
  assert.deepEqual(v({ map: { x: 1, y: 2, z: 3 } }), ['map: Too many: 3: must have at most 2 items']);
  assert.deepEqual(v({ tags: ['a', 'b', 'c'] }), ['tags: Too many: 3: must have at most 2 items']);
  assert.deepEqual(v({ tags: ['a', 'a'] }), ['tags[1]: Duplicate value: "a"']);
  assert.deepEqual(v({ e: 3 }), ['e: Unsupported value: 3: supported values: "1", "2"']);
  assert.deepEqual(
    v({ emb: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, spec: { x: 'y' } } }),
    [],
  );
  assert.deepEqual(v({ emb: { spec: {} } }), [
    'emb.apiVersion: Required value: must not be empty',
    'emb.kind: Required value: must not be empty',
  ]);
  assert.deepEqual(
    v({ emb: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad Name' } } }).length,
    1,
  );
});

test('multipleOf, allOf, anyOf, oneOf, not (kube-openapi wording, failing branch causes follow)', () => {
  const schema = {
    type: 'object',
    properties: {
      m: { type: 'integer', multipleOf: 5 },
      ios: { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true },
      one: {
        type: 'object',
        oneOf: [{ required: ['a'] }, { required: ['b'] }],
        properties: { a: { type: 'string' }, b: { type: 'string' } },
      },
      all: { type: 'string', allOf: [{ minLength: 2 }, { maxLength: 3 }] },
      not: { type: 'string', not: { enum: ['forbidden'] } },
    },
  } as JSONSchemaProps;
  const v = (x: JsonObject) => msgs(validateAgainstSchema(x, schema));
  assert.deepEqual(v({ m: 10, ios: '50%', one: { a: 'x' }, all: 'ab', not: 'ok' }), []);
  assert.deepEqual(v({ m: 7 }), ['m: Invalid value: 7: m in body should be a multiple of 5']);
  assert.deepEqual(v({ one: {} }), [
    'one: Invalid value: "": "one" must validate one and only one schema (oneOf). Found none valid',
    'one.a: Required value',
  ]);
  assert.deepEqual(v({ one: { a: 'x', b: 'y' } }), [
    'one: Invalid value: "": "one" must validate one and only one schema (oneOf). Found 2 valid alternatives',
  ]);
  assert.deepEqual(v({ all: 'abcd' }), [
    'all: Too long: may not be longer than 3',
    'all: Invalid value: "": "all" must validate all the schemas (allOf)',
  ]);
  assert.deepEqual(v({ not: 'forbidden' }), [
    'not: Invalid value: "": "not" must not validate the schema (not)',
  ]);
  assert.deepEqual(v({ ios: true }), [
    'ios: Invalid value: "boolean": ios in body must be of type integer,string: "boolean"',
  ]);
});

test('Go (RE2) patterns: inline flags, \\A/\\z, POSIX classes', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      a: { type: 'string', pattern: '^(?i)(abort|warn)?$' },
      b: { type: 'string', pattern: '\\A[[:alpha:]]+[[:digit:]]\\z' },
    },
  };
  assert.deepEqual(msgs(validateAgainstSchema({ a: 'ABORT', b: 'abc1' }, schema)), []);
  assert.deepEqual(msgs(validateAgainstSchema({ a: 'x', b: 'abc' }, schema)), [
    'a: Invalid value: "x": a in body should match \'^(?i)(abort|warn)?$\'',
    'b: Invalid value: "abc": b in body should match \'\\A[[:alpha:]]+[[:digit:]]\\z\'',
  ]);
  const crd = crdWith((spec) => {
    ((schemaOf(spec).properties as JsonObject).x as unknown) = {
      type: 'string',
      pattern: '^(?i)(abort|warn)?$',
    };
  });
  assert.deepEqual(validateCrd(crd), []);
});

test('property: any value generated to fit the PodSet schema validates with no causes (once defaulted, as the API server validates)', () => {
  fc.assert(
    fc.property(podsetValue(), (v) => {
      assert.deepEqual(causesOf(applyDefaults(v, podsetSchema)), []);
    }),
    { numRuns: 100 },
  );
});

/** Every (path, setter) in a value where the schema fixes a type, so a wrong-typed value must be reported there. */
function typedSlots(
  v: Json,
  s: JSONSchemaProps,
  path: string,
  out: { path: string; type: string; set: (x: Json) => void }[],
) {
  if (isObj(v)) {
    for (const [k, child] of Object.entries(v)) {
      const sub =
        s.properties?.[k] ??
        (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
      if (!sub) continue;
      const p = path ? `${path}.${k}` : k;
      if (sub.type) out.push({ path: p, type: sub.type, set: (x) => (v[k] = x) });
      typedSlots(child, sub, p, out);
    }
  } else if (Array.isArray(v) && s.items) {
    const items = s.items;
    v.forEach((child, i) => {
      const p = `${path}[${i}]`;
      if (items.type) out.push({ path: p, type: items.type, set: (x) => (v[i] = x) });
      typedSlots(child, items, p, out);
    });
  }
}

test('property: a wrong-typed value anywhere is reported at its path', () => {
  fc.assert(
    fc.property(
      rootSchemaArb.chain((schema) => fc.tuple(fc.constant(schema), arbFor(schema), fc.nat())),
      ([schema, generated, pick]) => {
        const value = JSON.parse(JSON.stringify(generated)) as Json;
        const slots: { path: string; type: string; set: (x: Json) => void }[] = [];
        typedSlots(value, schema, '', slots);
        fc.pre(slots.length > 0);
        const slot = slots[pick % slots.length];
        assert.ok(slot);
        slot.set(slot.type === 'boolean' ? 'x' : true);
        const causes = validateAgainstSchema(value, schema);
        assert.ok(
          causes.some((c) => c.field === slot.path && c.reason === 'FieldValueTypeInvalid'),
          `${slot.path}: ${JSON.stringify(causes)}`,
        );
      },
    ),
    { numRuns: 100 },
  );
});
