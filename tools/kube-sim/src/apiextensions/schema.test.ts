import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { parse } from 'yaml';
import {
  applyDefaults,
  crdResourceTypes,
  pruneUnknownFields,
  validateAgainstSchema,
  validateCrd,
} from './schema.ts';
import { goFloat } from '../apimachinery/field-errors.ts';
import type { FieldCause, Json, JsonObject, JSONSchemaProps, KubeObject } from '../apimachinery/types.ts';

const crdPath = fileURLToPath(new URL('../../../../crds/podset.yaml', import.meta.url));
const podsetCrd = parse(readFileSync(crdPath, 'utf8')) as KubeObject;
const podsetSchema = crdResourceTypes(podsetCrd)[0]?.schema as JSONSchemaProps;

function podset(spec: Json): Json {
  return {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name: 'web', namespace: 'default' },
    spec,
  };
}
const validSpec = { replicas: 3, template: { spec: { containers: [{ name: 'app', image: 'nginx' }] } } };

function causesOf(value: Json, schema = podsetSchema): FieldCause[] {
  return validateAgainstSchema(value, schema);
}
function msgs(causes: FieldCause[]): string[] {
  return causes.map((c) => `${c.field}: ${c.message}`);
}
/** What a real server adds after a blocking cause when the schema has CEL rules (the PodSet CRD may have some). */
const RULES_NOT_CHECKED =
  '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
/** The schema's own causes, without that note: the wording tests below are about kube-openapi's messages. */
function structuralMsgs(value: Json): string[] {
  return msgs(causesOf(value)).filter((m) => m !== RULES_NOT_CHECKED);
}

test('the PodSet CRD is valid and registers one served, stored version', () => {
  assert.deepEqual(validateCrd(podsetCrd), []);
  const types = crdResourceTypes(podsetCrd);
  assert.equal(types.length, 1);
  const rt = types[0];
  assert.ok(rt);
  assert.equal(rt.group, 'podset.io');
  assert.equal(rt.version, 'v1');
  assert.equal(rt.kind, 'PodSet');
  assert.equal(rt.listKind, 'PodSetList');
  assert.equal(rt.plural, 'podsets');
  assert.equal(rt.singular, 'podset');
  assert.equal(rt.namespaced, true);
  assert.deepEqual(rt.shortNames, ['ps']);
  assert.deepEqual(rt.categories, ['all']);
  assert.deepEqual(rt.verbs, [
    'create',
    'delete',
    'deletecollection',
    'get',
    'list',
    'patch',
    'update',
    'watch',
  ]);
  assert.deepEqual(rt.subresources, {
    status: true,
    scale: {
      specReplicasPath: '.spec.replicas',
      statusReplicasPath: '.status.replicas',
      labelSelectorPath: '.status.selector',
    },
  });
  assert.equal(rt.storage, true);
  assert.equal(rt.printerColumns?.length, 5);
  assert.equal(rt.schema?.type, 'object');
});

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

const misc: JSONSchemaProps = {
  type: 'object',
  required: ['a'],
  properties: {
    a: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1.5, exclusiveMaximum: true },
    n: { type: 'string', nullable: true },
    ios: { 'x-kubernetes-int-or-string': true },
    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    map: { type: 'object', additionalProperties: { type: 'integer' }, maxProperties: 2 },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2, 'x-kubernetes-list-type': 'set' },
    e: { type: 'integer', enum: [1, 2] },
    big: { type: 'number', maximum: 1e6 },
    emb: {
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } },
    },
  },
};

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

test('fields named like Object.prototype members are ordinary unknown fields', () => {
  const obj = JSON.parse(
    '{"apiVersion":"podset.io/v1","kind":"PodSet","metadata":{"name":"x"},"spec":{"replicas":1,"constructor":{"a":1},"toString":"x","__proto__":{"replicas":-5}}}',
  ) as Json;
  const pruned = pruneUnknownFields(obj, podsetSchema);
  assert.deepEqual(pruned.unknownFields, ['spec.__proto__', 'spec.constructor', 'spec.toString']);
  assert.deepEqual(Object.keys((pruned.value as JsonObject).spec as JsonObject), ['replicas']);
  assert.deepEqual(causesOf(pruned.value), []);
});

test('goFloat prints as Go %v does', () => {
  assert.equal(goFloat(1.5), '1.5');
  assert.equal(goFloat(1e6), '1e+06');
  assert.equal(goFloat(123456), '123456');
  assert.equal(goFloat(1234567), '1.234567e+06');
  assert.equal(goFloat(0.0001), '0.0001');
  assert.equal(goFloat(0.00001), '1e-05');
});

test('defaults: nested, recursive into defaults, nulls replaced or dropped; metadata untouched', () => {
  const d = applyDefaults(
    { apiVersion: 'podset.io/v1', kind: 'PodSet', metadata: { name: 'x' } },
    podsetSchema,
  ) as JsonObject;
  assert.deepEqual(d.spec, {
    replicas: 1,
    minReadySeconds: 0,
    progressDeadlineSeconds: 600,
    paused: false,
    revisionHistoryLimit: 10,
    strategy: { type: 'RollingUpdate' },
    template: { spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }] } },
  });
  const d2 = applyDefaults(
    podset({ replicas: null, template: validSpec.template }),
    podsetSchema,
  ) as JsonObject;
  assert.deepEqual(d2.spec, {
    replicas: 1,
    minReadySeconds: 0,
    progressDeadlineSeconds: 600,
    paused: false,
    revisionHistoryLimit: 10,
    strategy: { type: 'RollingUpdate' },
    template: validSpec.template,
  });
  const d3 = applyDefaults({ a: 1, n: null, e: null }, misc) as JsonObject;
  assert.deepEqual(d3, { a: 1, n: null });
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      list: { type: 'array', items: { type: 'object', properties: { p: { type: 'integer', default: 80 } } } },
      m: {
        type: 'object',
        additionalProperties: { type: 'object', properties: { q: { type: 'string', default: 'z' } } },
      },
    },
  };
  assert.deepEqual(applyDefaults({ list: [{}, { p: 1 }], m: { a: {} } }, schema), {
    list: [{ p: 80 }, { p: 1 }],
    m: { a: { q: 'z' } },
  });
  // the input is not modified
  const input = podset({});
  applyDefaults(input, podsetSchema);
  assert.deepEqual(input, podset({}));
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

function crdWith(patch: (spec: JsonObject) => void): KubeObject {
  const crd = structuredClone(podsetCrd);
  patch(crd.spec as JsonObject);
  return crd;
}
function version0(spec: JsonObject): JsonObject {
  return (spec.versions as JsonObject[])[0] as JsonObject;
}
function schemaOf(spec: JsonObject): JsonObject {
  return (version0(spec).schema as JsonObject).openAPIV3Schema as JsonObject;
}

test('validateCrd: names, group, scope, versions, structural schemas, subresources, printer columns', () => {
  const check = (patch: (spec: JsonObject) => void, expected: string[]) =>
    assert.deepEqual(msgs(validateCrd(crdWith(patch))), expected);
  check(
    (s) => (s.group = 'podset'),
    [
      'metadata.name: Invalid value: "podsets.podset.io": must be spec.names.plural+"."+spec.group',
      'spec.group: Invalid value: "podset": should be a domain with at least one dot',
    ],
  );
  check(
    (s) => (s.scope = 'Global'),
    ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'],
  );
  check((s) => ((s.names as JsonObject).kind = ''), ['spec.names.kind: Required value']);
  check(
    (s) => ((s.names as JsonObject).shortNames = ['PS']),
    [
      `spec.names.shortNames[0]: Invalid value: "PS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ],
  );
  check(
    (s) => (version0(s).storage = false),
    [
      'spec.versions: Invalid value: []interface {}{"v1"}: must have exactly one version marked as storage version',
    ],
  );
  check(
    (s) => (s.versions = []),
    ['spec.versions: Required value: must have exactly one version marked as storage version'],
  );
  check(
    (s) => delete schemaOf(s).type,
    ['spec.versions[0].schema.openAPIV3Schema.type: Required value: must not be empty at the root'],
  );
  check(
    (s) => delete ((schemaOf(s).properties as JsonObject).spec as JsonObject).type,
    [
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
    ],
  );
  check(
    (s) =>
      ((((schemaOf(s).properties as JsonObject).spec as JsonObject).properties as JsonObject).replicas = {
        type: 'integer',
        default: -1,
        minimum: 0,
      }),
    [
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[replicas].default: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
    ],
  );
  check(
    (s) =>
      ((schemaOf(s).properties as JsonObject).metadata = {
        type: 'object',
        properties: { labels: { type: 'object' } },
      }),
    [
      'spec.versions[0].schema.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
    ],
  );
  check(
    (s) =>
      ((schemaOf(s).properties as JsonObject).x = {
        type: 'object',
        properties: {},
        additionalProperties: false,
      }),
    [
      'spec.versions[0].schema.openAPIV3Schema.properties[x].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
      'spec.versions[0].schema.openAPIV3Schema.properties[x].additionalProperties: Forbidden: additionalProperties cannot be set to false',
    ],
  );
  check(
    (s) =>
      ((schemaOf(s).properties as JsonObject).x = {
        type: 'object',
        properties: { a: { type: 'string' } },
        default: { a: 'x', b: 1 },
      }),
    [
      'spec.versions[0].schema.openAPIV3Schema.properties[x].default: Invalid value: map[string]interface {}{"a":"x", "b":1}: must not have unknown fields, got: [x.b]',
    ],
  );
  check(
    (s) => ((schemaOf(s).properties as JsonObject).x = { type: 'array' }),
    ['spec.versions[0].schema.openAPIV3Schema.properties[x].items: Required value: must be specified'],
  );
  check(
    (s) =>
      (((version0(s).subresources as JsonObject).scale as JsonObject).specReplicasPath = '.status.replicas'),
    [
      'spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
    ],
  );
  check(
    (s) => (((version0(s).additionalPrinterColumns as JsonObject[])[0] as JsonObject).type = 'float'),
    [
      'spec.versions[0].additionalPrinterColumns[0].type: Unsupported value: "float": supported values: "integer", "number", "string", "boolean", "date"',
    ],
  );
});

test('crdResourceTypes: one per served version, storage flag, defaulted names, cluster scope', () => {
  const crd = crdWith((s) => {
    s.scope = 'Cluster';
    delete (s.names as JsonObject).listKind;
    delete (s.names as JsonObject).singular;
    const v1 = version0(s);
    v1.storage = false;
    const v2: JsonObject = { ...structuredClone(v1), name: 'v2', storage: true };
    delete v2.subresources;
    const v0 = { ...structuredClone(v1), name: 'v0', served: false };
    s.versions = [v0, v1, v2];
  });
  assert.deepEqual(validateCrd(crd), []);
  const types = crdResourceTypes(crd);
  assert.deepEqual(
    types.map((t) => [
      t.version,
      t.storage,
      t.namespaced,
      t.listKind,
      t.singular,
      Object.keys(t.subresources),
    ]),
    [
      ['v1', false, false, 'PodSetList', 'podset', ['status', 'scale']],
      ['v2', true, false, 'PodSetList', 'podset', []],
    ],
  );
});

// ---------------------------------------------------------------------------------------------
// Property tests: values generated to fit a schema validate cleanly; pruning and defaulting are idempotent.

function arbFor(s: JSONSchemaProps, depth = 0): fc.Arbitrary<Json> {
  if (s.nullable) return fc.oneof(fc.constant(null), arbFor({ ...s, nullable: false }, depth));
  if (s['x-kubernetes-int-or-string']) {
    // minimum applies to the int, pattern to the string (as the API server applies them)
    return fc.oneof(
      fc.integer({ min: s.minimum ?? -1000, max: 1000 }),
      s.pattern ? fc.stringMatching(new RegExp(s.pattern)) : fc.string(),
    );
  }
  if (s.enum) return fc.constantFrom(...s.enum);
  switch (s.type) {
    case 'integer': {
      const max = s.maximum ?? (s.format === 'int32' ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER);
      const min = s.minimum ?? (s.format === 'int32' ? -(2 ** 31) : Number.MIN_SAFE_INTEGER);
      return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
    }
    case 'number':
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        min: s.minimum ?? -1e9,
        max: s.maximum ?? 1e9,
      });
    case 'boolean':
      return fc.boolean();
    case 'string': {
      if (s.format === 'date-time') return fc.constant('2026-01-02T03:04:05Z');
      if (s.pattern) {
        const max = s.maxLength ?? 63;
        const min = s.minLength ?? 0;
        return fc.stringMatching(new RegExp(s.pattern)).filter((x) => x.length <= max && x.length >= min);
      }
      return fc.string({ minLength: s.minLength ?? 0, maxLength: s.maxLength ?? 20 });
    }
    case 'array': {
      const items = s.items ? arbFor(s.items, depth + 1) : fc.constant(null);
      const arr = fc.array(items, { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 3, 3) });
      if (s['x-kubernetes-list-type'] === 'map') {
        const keys = s['x-kubernetes-list-map-keys'] ?? [];
        return arr
          .map((xs) => {
            const seen = new Set<string>();
            return xs.filter((x) => {
              const k = JSON.stringify(keys.map((key) => (x as JsonObject)[key] ?? null));
              if (seen.has(k)) return false;
              seen.add(k);
              return true;
            });
          })
          .filter((xs) => xs.length >= (s.minItems ?? 0));
      }
      return arr;
    }
    default: {
      if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        return fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), arbFor(s.additionalProperties, depth + 1), {
          maxKeys: 3,
        }) as fc.Arbitrary<Json>;
      }
      const props = s.properties ?? {};
      const req = new Set(s.required ?? []);
      const record: Record<string, fc.Arbitrary<Json>> = {};
      for (const [k, p] of Object.entries(props)) {
        // Deep down, only the required keys (a value without one would not fit the schema).
        if (k === 'metadata' || (depth > 6 && !req.has(k))) continue;
        record[k] = arbFor(p, depth + 1);
      }
      const requiredKeys = Object.keys(record).filter((k) => req.has(k));
      return fc.record(record, { requiredKeys }) as fc.Arbitrary<Json>;
    }
  }
}

/**
 * The PodSet's CEL rules (x-kubernetes-validations), written out: progressDeadlineSeconds (default 600) is
 * above minReadySeconds (default 0), a strategy of type Recreate has no rollingUpdate, and maxSurge and
 * maxUnavailable are not both zero. (The rule against the operator's own template labels needs no twin:
 * generated label keys are never theirs.)
 */
function keepsPodSetRules(v: Json): boolean {
  const spec = isObj(v) ? v.spec : undefined;
  const num = (x: Json | undefined, d: number) => (typeof x === 'number' ? x : d);
  if (isObj(spec) && num(spec.progressDeadlineSeconds, 600) <= num(spec.minReadySeconds, 0)) return false;
  const strategy = isObj(spec) ? spec.strategy : undefined;
  if (!isObj(strategy)) return true;
  if (strategy.type === 'Recreate' && strategy.rollingUpdate !== undefined) return false;
  const ru = strategy.rollingUpdate;
  const zero = (x: Json | undefined) => x === 0 || x === '0%';
  return !(isObj(ru) && zero(ru.maxSurge) && zero(ru.maxUnavailable));
}
/** Values that fit the PodSet schema, rules included. */
const podsetValue = () => arbFor(podsetSchema).filter(keepsPodSetRules);

test('property: any value generated to fit the PodSet schema validates with no causes (once defaulted, as the API server validates)', () => {
  fc.assert(
    fc.property(podsetValue(), (v) => {
      assert.deepEqual(causesOf(applyDefaults(v, podsetSchema)), []);
    }),
    { numRuns: 100 },
  );
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

test('property: defaulting is idempotent and never overrides a given value', () => {
  fc.assert(
    fc.property(podsetValue(), (v) => {
      const once = applyDefaults(v, podsetSchema);
      assert.deepEqual(applyDefaults(once, podsetSchema), once);
      const spec = (v as JsonObject).spec;
      if (isObj(spec) && spec.replicas !== undefined) {
        assert.equal(((once as JsonObject).spec as JsonObject).replicas, spec.replicas);
      }
      assert.deepEqual(causesOf(once), []);
    }),
    { numRuns: 150 },
  );
});

function isObj(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Random structural schemas: the CRD validator accepts them, values generated for them validate, pruning keeps them.
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
function defined(o: Record<string, unknown>): JSONSchemaProps {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as JSONSchemaProps;
}
const leafSchema: fc.Arbitrary<JSONSchemaProps> = fc.oneof(
  fc
    .record({
      min: opt(fc.integer({ min: -100, max: 0 })),
      max: opt(fc.integer({ min: 0, max: 100 })),
      format: opt(fc.constantFrom('int32', 'int64')),
      nullable: opt(fc.boolean()),
    })
    .map((r) =>
      defined({ type: 'integer', minimum: r.min, maximum: r.max, format: r.format, nullable: r.nullable }),
    ),
  fc
    .record({
      min: opt(fc.double({ min: -10, max: 0, noNaN: true })),
      max: opt(fc.double({ min: 0, max: 10, noNaN: true })),
    })
    .map((r) => defined({ type: 'number', minimum: r.min, maximum: r.max })),
  fc
    .record({
      min: opt(fc.integer({ min: 0, max: 3 })),
      max: opt(fc.integer({ min: 3, max: 10 })),
      nullable: opt(fc.boolean()),
    })
    .map((r) => defined({ type: 'string', minLength: r.min, maxLength: r.max, nullable: r.nullable })),
  fc
    .uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 })
    .map((e) => ({ type: 'string', enum: e }) as JSONSchemaProps),
  fc.constant({ type: 'boolean' } as JSONSchemaProps),
  fc.constant({ 'x-kubernetes-int-or-string': true } as JSONSchemaProps),
);
const { node: schemaArb } = fc.letrec<{
  node: JSONSchemaProps;
  obj: JSONSchemaProps;
  arr: JSONSchemaProps;
  map: JSONSchemaProps;
}>((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leafSchema, tie('obj'), tie('arr'), tie('map')),
  obj: fc
    .dictionary(fc.stringMatching(/^[a-z]{1,6}$/), tie('node'), { maxKeys: 4 })
    .chain((props) =>
      fc
        .subarray(Object.keys(props))
        .map((required) => defined({ type: 'object', properties: props, required })),
    ),
  arr: fc
    .record({
      items: tie('node'),
      min: opt(fc.integer({ min: 0, max: 2 })),
      max: opt(fc.integer({ min: 2, max: 4 })),
    })
    .map((r) => defined({ type: 'array', items: r.items, minItems: r.min, maxItems: r.max })),
  map: tie('node').map((n) => ({ type: 'object', additionalProperties: n }) as JSONSchemaProps),
}));
const rootSchemaArb = fc
  .dictionary(
    fc.stringMatching(/^[a-z]{1,6}$/).filter((k) => k !== 'metadata' && k !== 'kind'),
    schemaArb,
    {
      maxKeys: 4,
    },
  )
  .map((properties) => ({ type: 'object', properties }) as JSONSchemaProps);

test('property: random structural schemas are valid CRDs, their values validate and survive pruning', () => {
  fc.assert(
    fc.property(
      rootSchemaArb.chain((schema) => fc.tuple(fc.constant(schema), arbFor(schema))),
      ([schema, generated]) => {
        const crd = crdWith((spec) => {
          (version0(spec).schema as JsonObject).openAPIV3Schema = schema as unknown as JsonObject;
          delete version0(spec).subresources;
          delete version0(spec).additionalPrinterColumns;
        });
        assert.deepEqual(msgs(validateCrd(crd)), []);
        const value = JSON.parse(JSON.stringify(generated)) as Json;
        assert.deepEqual(msgs(validateAgainstSchema(value, schema)), []);
        const pruned = pruneUnknownFields(value, schema);
        assert.deepEqual(pruned.unknownFields, []);
        assert.deepEqual(pruned.value, value);
      },
    ),
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
