// applyDefaults: a CRD schema's defaults, filled in as the API server fills them; idempotent, never over a
// given value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyDefaults, crdResourceTypes } from './schema.ts';
import { cloneJson } from '../apimachinery/json.ts';
import type { JsonObject, JSONSchemaProps } from '../apimachinery/types.ts';
import {
  causesOf,
  isObj,
  misc,
  podset,
  podsetSchema,
  podsetCrd,
  podsetValue,
  validSpec,
} from '../../test/unit-support/schemas.ts';

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

test('a served schema is frozen, so its defaulted properties are listed once, not on every write', () => {
  const schema = crdResourceTypes(podsetCrd)[0]!.schema!;
  assert.ok(
    Object.isFrozen(schema) && Object.isFrozen(schema.properties),
    'the ResourceType holds it frozen',
  );
  // Count how often defaulting enumerates one node's properties: a proxy over the frozen template spec's.
  const spec = schema.properties!.spec!;
  let listed = 0;
  const counted = new Proxy(spec.properties!, {
    ownKeys: (target) => {
      listed++;
      return Reflect.ownKeys(target);
    },
  });
  const watched: JSONSchemaProps = Object.freeze({
    ...schema,
    properties: Object.freeze({
      ...schema.properties,
      spec: Object.freeze({ ...spec, properties: counted }),
    }),
  });
  applyDefaults(podset({ replicas: 0 }), watched);
  const first = listed;
  for (let i = 1; i <= 50; i++) applyDefaults(podset({ replicas: i }), watched);
  assert.equal(listed, first, `50 more writes enumerated the spec's properties ${listed - first} more times`);
});

test('property: a frozen schema defaults exactly as the same schema unfrozen, key order included', () => {
  const frozen = podsetSchema;
  const open = cloneJson(frozen as unknown as JsonObject) as unknown as JSONSchemaProps;
  assert.ok(!Object.isFrozen(open));
  fc.assert(
    fc.property(podsetValue(), (v) => {
      assert.equal(JSON.stringify(applyDefaults(v, frozen)), JSON.stringify(applyDefaults(v, open)));
    }),
    { numRuns: 150 },
  );
});
