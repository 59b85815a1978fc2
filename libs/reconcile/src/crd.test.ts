import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { CRD_PATH, podSetCrd, renderCrdYaml } from './crd.ts';
import { podSetSchema } from './podset-schema.ts';
import { crdOpenApiSchema } from './pod-template-schema.ts';
import { POD_SPEC_SCHEMA_PATH } from './pod-spec-path.ts';
import {
  KUBERNETES_VERSION,
  podSpecSchema,
  SOURCE_PACKAGE,
  SOURCE_VERSION,
} from '../../../scripts/pod-template-schema.ts';
import type { JSONSchemaProps } from './schema-types.ts';

const root = join(import.meta.dirname, '..', '..', '..');

test('crds/podset.yaml is exactly what the generator writes (run npm run gen:crd)', () => {
  const committed = readFileSync(join(root, CRD_PATH), 'utf8');
  assert.equal(committed, renderCrdYaml());
});

test('the committed CRD parses back to the schema object', () => {
  const crd = parse(readFileSync(join(root, CRD_PATH), 'utf8')) as ReturnType<typeof podSetCrd>;
  assert.deepEqual(crd.spec.versions[0]?.schema.openAPIV3Schema, crdOpenApiSchema());
});

test('the generated PodSpec schema is what the generator makes of the pinned package (run npm run gen:crd)', () => {
  const committed = JSON.parse(readFileSync(join(root, POD_SPEC_SCHEMA_PATH), 'utf8')) as unknown;
  assert.deepEqual(committed, {
    kubernetesVersion: KUBERNETES_VERSION,
    source: SOURCE_PACKAGE,
    podSpec: podSpecSchema(),
  });
});

test('the source package is pinned to an exact version in devDependencies', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  assert.equal(pkg.devDependencies[SOURCE_PACKAGE], SOURCE_VERSION);
});

// A client-side `kubectl apply` copies the whole object, as JSON, into the
// kubectl.kubernetes.io/last-applied-configuration annotation; all annotations together may hold 262144
// bytes. Keep half of that free for growth (a newer Kubernetes release, more PodSet fields).
test('the CRD fits, with room to spare, in the annotation a client-side kubectl apply writes', () => {
  const crd = parse(readFileSync(join(root, CRD_PATH), 'utf8')) as unknown;
  const lastApplied = Buffer.byteLength(JSON.stringify(crd));
  assert.ok(lastApplied < 262144 / 2, `last-applied-configuration would be ${lastApplied} bytes`);
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
  walk(crdOpenApiSchema(), '');
  assert.deepEqual(Object.keys(podSetSchema.properties.metadata.properties), ['name']);
});

test("the CRD's template is the full PodSpec: no unknown field is kept, quantities and ports are checked", () => {
  const template = crdOpenApiSchema().properties?.spec?.properties?.template;
  const spec = template?.properties?.spec;
  const container = spec?.properties?.containers?.items;
  const noPreserve = (s: JSONSchemaProps | undefined, path: string): void => {
    if (!s) return;
    assert.ok(!s['x-kubernetes-preserve-unknown-fields'], `${path} keeps unknown fields`);
    for (const [k, c] of Object.entries(s.properties ?? {})) noPreserve(c, `${path}.${k}`);
    noPreserve(s.items, `${path}[]`);
  };
  noPreserve(template, 'spec.template');
  assert.ok(spec?.properties?.nodeSelector && spec.properties.affinity && spec.properties.volumes);
  assert.deepEqual(container?.required, ['image', 'name']);
  assert.deepEqual(
    container?.properties?.name?.pattern,
    podSetSchema.properties.spec.properties.template.properties.spec.properties.containers.items.properties
      .name.pattern,
  );
  assert.deepEqual(spec?.properties?.restartPolicy?.enum, ['Always']);
  const cpu = container?.properties?.resources?.properties?.limits?.additionalProperties;
  assert.ok(typeof cpu === 'object' && cpu['x-kubernetes-int-or-string'] && cpu.pattern);
  assert.deepEqual(container?.properties?.imagePullPolicy?.enum, ['Always', 'IfNotPresent', 'Never']);
  const port = container?.properties?.livenessProbe?.properties?.httpGet?.properties?.port;
  assert.deepEqual(port, {
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    'x-kubernetes-int-or-string': true,
  });
  // An embedded ObjectMeta (an ephemeral volume's claim template) is an object and no more, as controller-gen writes it.
  const claimMeta =
    spec?.properties?.volumes?.items?.properties?.ephemeral?.properties?.volumeClaimTemplate?.properties
      ?.metadata;
  assert.deepEqual(claimMeta, { type: 'object' });
});
