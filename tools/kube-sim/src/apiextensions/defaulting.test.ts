// applyDefaults: a CRD schema's defaults, filled in as the API server fills them; idempotent, never over a
// given value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyDefaults } from './schema.ts';
import type { JsonObject, JSONSchemaProps } from '../apimachinery/types.ts';
import {
  causesOf,
  isObj,
  misc,
  podset,
  podsetSchema,
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
