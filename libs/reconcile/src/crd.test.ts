import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { CRD_PATH, podSetCrd, renderCrdYaml } from './crd.ts';
import { podSetSchema } from './podset-schema.ts';
import type { JSONSchemaProps } from './schema-types.ts';

const root = join(import.meta.dirname, '..', '..', '..');

test('crds/podset.yaml is exactly what the generator writes (run npm run gen:crd)', () => {
  const committed = readFileSync(join(root, CRD_PATH), 'utf8');
  assert.equal(committed, renderCrdYaml());
});

test('the committed CRD parses back to the schema object', () => {
  const crd = parse(readFileSync(join(root, CRD_PATH), 'utf8')) as ReturnType<typeof podSetCrd>;
  assert.deepEqual(crd.spec.versions[0]?.schema.openAPIV3Schema, podSetSchema);
});

test('CRD names, scope, subresources and printer columns', () => {
  const crd = podSetCrd();
  assert.equal(crd.metadata.name, 'podsets.podset.io');
  assert.equal(crd.spec.group, 'podset.io');
  assert.equal(crd.spec.scope, 'Namespaced');
  assert.deepEqual(crd.spec.names, {
    kind: 'PodSet',
    listKind: 'PodSetList',
    plural: 'podsets',
    singular: 'podset',
    shortNames: ['ps'],
    categories: ['all'],
  });
  assert.equal(crd.spec.versions.length, 1);
  const v = crd.spec.versions[0]!;
  assert.equal(v.name, 'v1');
  assert.equal(v.served && v.storage, true);
  assert.deepEqual(v.subresources, {
    status: {},
    scale: {
      specReplicasPath: '.spec.replicas',
      statusReplicasPath: '.status.replicas',
      labelSelectorPath: '.status.selector',
    },
  });
  assert.deepEqual(
    v.additionalPrinterColumns.map((c) => [c.name.toUpperCase(), c.type, c.jsonPath]),
    [
      ['DESIRED', 'integer', '.spec.replicas'],
      ['CURRENT', 'integer', '.status.replicas'],
      ['UP-TO-DATE', 'integer', '.status.updatedReplicas'],
      ['AVAILABLE', 'integer', '.status.availableReplicas'],
      ['AGE', 'date', '.metadata.creationTimestamp'],
    ],
  );
});

test('spec.replicas: int32, default 1, 0..10000', () => {
  const r = podSetSchema.properties.spec.properties.replicas;
  assert.deepEqual([r.type, r.format, r.default, r.minimum, r.maximum], ['integer', 'int32', 1, 0, 10000]);
});

test('the schema is structural: every node has a type (or is int-or-string); metadata restricts only the name', () => {
  const walk = (s: JSONSchemaProps, path: string): void => {
    assert.ok(s.type ?? s['x-kubernetes-int-or-string'], `${path || '<root>'} has a type`);
    for (const [k, c] of Object.entries(s.properties ?? {})) walk(c, `${path}.${k}`);
    if (s.items) walk(s.items, `${path}[]`);
    if (typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${path}{}`);
    if (s['x-kubernetes-list-type'] === 'map') {
      for (const key of s['x-kubernetes-list-map-keys'] ?? [])
        assert.ok(s.items?.required?.includes(key), `${path}: list-map key ${key} is required`);
    }
  };
  walk(podSetSchema, '');
  assert.deepEqual(Object.keys(podSetSchema.properties.metadata.properties), ['name']);
});
