// toCel and celEscape: JSON values and property names as the API server hands them to CEL.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluate } from '@marcbachmann/cel-js';
import { celEscape, toCel } from './cel-values.ts';
import type { JSONSchemaProps } from '../apimachinery/types.ts';
import { BOTH_ZERO } from '../../test/unit-support/schemas.ts';

test('the library treats JS numbers as double and BigInt as int, which is why values are converted', () => {
  const self = { maxSurge: 0n, maxUnavailable: 0n };
  assert.equal(evaluate(BOTH_ZERO, { self }), false);
  assert.equal(evaluate(BOTH_ZERO, { self: { maxSurge: '25%', maxUnavailable: '25%' } }), true);
  // unconverted JSON numbers are doubles: the rule would wrongly pass
  assert.equal(evaluate(BOTH_ZERO, { self: { maxSurge: 0, maxUnavailable: 0 } }), true);
});

test('toCel: integer and int-or-string integers become int, number stays double, formats get CEL types', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      i: { type: 'integer' },
      n: { type: 'number' },
      ios: { 'x-kubernetes-int-or-string': true },
      s: { type: 'string' },
      t: { type: 'string', format: 'date-time' },
      d: { type: 'string', format: 'duration' },
      list: { type: 'array', items: { type: 'integer' } },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
    },
  };
  const v = toCel(
    {
      i: 3,
      n: 2,
      ios: 5,
      s: '7',
      t: '2026-01-02T03:04:05Z',
      d: '90m',
      list: [1, 2],
      labels: { 'a-b': 'x' },
      unknown: 1,
    },
    schema,
  ) as Record<string, unknown>;
  assert.equal(v.i, 3n);
  assert.equal(v.n, 2);
  assert.equal(v.ios, 5n);
  assert.equal(v.s, '7');
  assert.ok(v.t instanceof Date);
  assert.deepEqual(v.list, [1n, 2n]);
  assert.equal((v.labels as Record<string, unknown>)['a-b'], 'x', 'map keys are not escaped');
  assert.equal('unknown' in v, false, 'fields the schema does not declare are not visible');
  const types = evaluate(
    '[type(self.i) == int, type(self.n) == double, type(self.ios) == int, type(self.s) == string, ' +
      'type(self.t) == google.protobuf.Timestamp, self.d == duration("1h30m")]',
    { self: v },
  ) as boolean[];
  assert.deepEqual(types, [true, true, true, true, true, true]);
  // without a schema, integral numbers are ints (as Go decodes JSON) and others doubles
  assert.deepEqual(toCel({ a: 1, b: 1.5 }, undefined), Object.assign(Object.create(null), { a: 1n, b: 1.5 }));
});

test('toCel: property names are escaped as the API server escapes them; a resource root shows name and kind', () => {
  assert.equal(celEscape('namespace'), '__namespace__');
  assert.equal(celEscape('foo-bar'), 'foo__dash__bar');
  assert.equal(celEscape('a.b/c'), 'a__dot__b__slash__c');
  assert.equal(celEscape('x__y'), 'x__underscores__y');
  assert.equal(celEscape('1abc'), undefined);
  assert.equal(celEscape('a b'), undefined);
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: { spec: { type: 'object', properties: { namespace: { type: 'string' } } } },
  };
  const obj = {
    apiVersion: 'test.io/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'default', labels: { a: 'b' } },
    spec: { namespace: 'x' },
  };
  const self = toCel(obj, schema, true);
  assert.equal(
    evaluate(
      'self.kind == "Widget" && self.metadata.name == "w" && !has(self.metadata.labels) && self.spec.__namespace__ == "x"',
      { self },
    ),
    true,
  );
});
