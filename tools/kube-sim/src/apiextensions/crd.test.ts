// validateCrd and crdResourceTypes: a CustomResourceDefinition checked as kube-apiserver checks it, and the
// resource types it serves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { crdResourceTypes, pruneUnknownFields, validateAgainstSchema, validateCrd } from './schema.ts';
import type { Json, JsonObject } from '../apimachinery/types.ts';
import {
  arbFor,
  crdWith,
  msgs,
  podsetCrd,
  rootSchemaArb,
  schemaOf,
  version0,
} from '../../test/unit-support/schemas.ts';

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
