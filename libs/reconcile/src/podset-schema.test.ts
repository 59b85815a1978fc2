import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import type { V1Pod } from '@kubernetes/client-node';
import { applyDefaults, validate } from '../test/schema-check.ts';
import { DEFAULT_REPLICAS, DEFAULT_TEMPLATE, podSetSchema } from './podset-schema.ts';
import { crdOpenApiSchema } from './pod-template-schema.ts';
import type { JSONSchemaProps } from './schema-types.ts';
import type {
  Container,
  Pod,
  PodSet,
  PodSetCondition,
  PodSetSpec,
  PodSetStatus,
  PodTemplateSpec,
} from './types.ts';

// ---- Type level: the types derived from the schema are exactly these. `npm run typecheck` fails if
// the schema changes in a way that changes the type (e.g. `image` no longer required).
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<_T extends true>(): void {}

assertType<Equal<Container, { [key: string]: unknown; name: string; image: string }>>();
assertType<
  Equal<
    PodTemplateSpec,
    {
      metadata?: { labels?: { [key: string]: string }; annotations?: { [key: string]: string } };
      spec: { [key: string]: unknown; restartPolicy?: 'Always'; containers: Container[] };
    }
  >
>();
assertType<
  Equal<
    PodSetSpec,
    {
      replicas?: number;
      minReadySeconds?: number;
      progressDeadlineSeconds?: number;
      paused?: boolean;
      revisionHistoryLimit?: number;
      strategy?: {
        type?: 'RollingUpdate' | 'Recreate';
        rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string };
      };
      template?: PodTemplateSpec;
    }
  >
>();
assertType<
  Equal<
    PodSetCondition,
    {
      type: 'Available' | 'Progressing' | 'ReplicaFailure';
      status: 'True' | 'False' | 'Unknown';
      reason?: string;
      message?: string;
      lastTransitionTime?: string;
      lastUpdateTime?: string;
    }
  >
>();
assertType<
  Equal<
    PodSetStatus,
    {
      replicas?: number;
      readyReplicas?: number;
      podNames?: string[];
      observedGeneration?: number;
      updatedReplicas?: number;
      availableReplicas?: number;
      templateHash?: string;
      selector?: string;
      conditions?: PodSetCondition[];
    }
  >
>();
assertType<Equal<PodSet['spec'], PodSetSpec | undefined>>();
assertType<Equal<PodSet['status'], PodSetStatus | undefined>>();
// client-node's V1Pod can be passed where the planner takes a Pod.
const _podFromClient = (p: V1Pod): Pod => p;

const root = join(import.meta.dirname, '..', '..', '..');
const exampleDir = join(root, 'examples');

function examples(): { file: string; doc: PodSet }[] {
  return readdirSync(exampleDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => ({ file, doc: parse(readFileSync(join(exampleDir, file), 'utf8')) as PodSet }));
}

test('every example is a valid PodSet, before and after defaulting', () => {
  const all = examples();
  assert.ok(all.length >= 3, 'there are examples');
  for (const { file, doc } of all) {
    assert.equal(doc.apiVersion, 'podset.io/v1', file);
    assert.equal(doc.kind, 'PodSet', file);
    assert.deepEqual(validate(doc, podSetSchema), [], file);
    const defaulted = applyDefaults(doc, podSetSchema) as PodSet;
    assert.deepEqual(validate(defaulted, podSetSchema), [], file);
    // and under the CRD's schema, whose template is the full PodSpec: no misspelt or unknown field
    assert.deepEqual(validate(defaulted, crdOpenApiSchema()), [], file);
    assert.equal(typeof defaulted.spec?.replicas, 'number', file);
    assert.ok((defaulted.spec?.template?.spec.containers.length ?? 0) >= 1, file);
  }
});

test('the examples cover web (3, labels), a pool kept at zero (0) and a custom template', () => {
  const byName = new Map(examples().map(({ doc }) => [doc.metadata.name, doc]));
  assert.equal(byName.get('web')?.spec?.replicas, 3);
  assert.equal(byName.get('web')?.spec?.template?.metadata?.labels?.tier, 'web');
  assert.equal(byName.get('pool')?.spec?.replicas, 0);
  assert.equal(byName.get('api')?.spec?.template?.spec.containers.length, 2);
});

test('an empty spec defaults to 1 busybox pod sleeping 3600', () => {
  const d = applyDefaults(
    { apiVersion: 'podset.io/v1', kind: 'PodSet', metadata: { name: 'x' } },
    podSetSchema,
  ) as PodSet;
  assert.equal(d.spec?.replicas, 1);
  assert.equal(DEFAULT_REPLICAS, 1);
  assert.deepEqual(d.spec?.template, DEFAULT_TEMPLATE);
  const c = d.spec?.template?.spec.containers[0];
  assert.equal(c?.image, 'busybox:1.36');
  assert.deepEqual(c?.command, ['sleep', '3600']);
  assert.deepEqual(validate(d, podSetSchema), []);
});

test('every default in the schema is valid under its own schema', () => {
  const walk = (node: JSONSchemaProps, path: string): void => {
    if (node.default !== undefined) {
      const defaulted = applyDefaults(node.default, node);
      assert.deepEqual(validate(defaulted, node, path), [], path);
    }
    for (const [k, child] of Object.entries(node.properties ?? {})) walk(child, `${path}.${k}`);
    if (node.items) walk(node.items, `${path}[]`);
  };
  walk(podSetSchema, '');
});

test('the schema rejects invalid PodSets and names the field', () => {
  const base = (): PodSet => ({
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name: 'web' },
    spec: { replicas: 2, template: { spec: { containers: [{ name: 'app', image: 'nginx' }] } } },
  });
  const cases: [string, (p: PodSet) => void, string][] = [
    ['negative replicas', (p) => (p.spec!.replicas = -1), 'spec.replicas'],
    ['too many replicas', (p) => (p.spec!.replicas = 10001), 'spec.replicas'],
    ['fractional replicas', (p) => (p.spec!.replicas = 1.5), 'spec.replicas'],
    ['no containers', (p) => (p.spec!.template!.spec.containers = []), 'spec.template.spec.containers'],
    [
      'container without image',
      (p) => (p.spec!.template!.spec.containers = [{ name: 'a' } as Container]),
      'spec.template.spec.containers[0].image',
    ],
    [
      'bad container name',
      (p) => (p.spec!.template!.spec.containers[0]!.name = 'Bad_Name'),
      'spec.template.spec.containers[0].name',
    ],
    [
      'duplicate container names',
      (p) => p.spec!.template!.spec.containers.push({ name: 'app', image: 'x' }),
      'spec.template.spec.containers[1]',
    ],
    ['template without spec', (p) => (p.spec!.template = {} as PodTemplateSpec), 'spec.template.spec'],
    [
      'bad label value',
      (p) => (p.spec!.template!.metadata = { labels: { tier: 'not valid!' } }),
      'spec.template.metadata.labels.tier',
    ],
    ['name too long for the pods label', (p) => (p.metadata.name = 'a'.repeat(64)), 'metadata.name'],
  ];
  for (const [what, mutate, field] of cases) {
    const p = base();
    assert.deepEqual(validate(p, podSetSchema), [], 'base is valid');
    mutate(p);
    const errors = validate(p, podSetSchema);
    assert.ok(
      errors.some((e) => e.startsWith(`${field}:`)),
      `${what}: expected an error at ${field}, got ${JSON.stringify(errors)}`,
    );
  }
});
