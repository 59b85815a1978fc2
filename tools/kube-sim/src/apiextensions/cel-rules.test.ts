// validateRules: a CRD schema's x-kubernetes-validations (CEL) rules, checked as kube-apiserver checks them —
// causes, messages, reasons, paths, transition rules and ratcheting.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateRules, type RuleOptions } from './cel-rules.ts';
import { applyDefaults, validateAgainstSchema } from './schema.ts';
import type { Json, JsonObject, JSONSchemaProps, ValidationRule } from '../apimachinery/types.ts';
import { BOTH_ZERO, msgs } from '../../test/unit-support/schemas.ts';

/** A Deployment-like schema: spec.strategy.rollingUpdate with int-or-string fields and a rule over both. */
function rolloutSchema(rule: Partial<ValidationRule> = {}): JSONSchemaProps {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer', minimum: 0 },
          strategy: {
            type: 'object',
            properties: {
              rollingUpdate: {
                type: 'object',
                properties: {
                  maxSurge: { 'x-kubernetes-int-or-string': true, default: '25%' },
                  maxUnavailable: { 'x-kubernetes-int-or-string': true, default: '25%' },
                },
                'x-kubernetes-validations': [{ rule: BOTH_ZERO, message: 'may not both be 0', ...rule }],
              },
            },
          },
        },
      },
    },
  };
}

function cr(spec: Json, extra: JsonObject = {}): Json {
  return { apiVersion: 'test.io/v1', kind: 'Widget', metadata: { name: 'w' }, spec, ...extra };
}

function rules(value: Json, schema: JSONSchemaProps, options?: RuleOptions): string[] {
  return msgs(validateRules(value, schema, options));
}

test('a false rule is an Invalid cause at its node, the value shown as the node type, with its message', () => {
  const schema = rolloutSchema();
  const bad = cr({ strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } } });
  assert.deepEqual(validateRules(bad, schema), [
    {
      reason: 'FieldValueInvalid',
      field: 'spec.strategy.rollingUpdate',
      message: 'Invalid value: "object": may not both be 0',
    },
  ]);
  assert.deepEqual(rules(cr({ strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } }), schema), [
    'spec.strategy.rollingUpdate: Invalid value: "object": may not both be 0',
  ]);
  for (const ok of [
    { maxSurge: '25%', maxUnavailable: '25%' },
    { maxSurge: 0, maxUnavailable: 1 },
    { maxSurge: '0%', maxUnavailable: '10%' },
  ]) {
    assert.deepEqual(rules(cr({ strategy: { rollingUpdate: ok } }), schema), [], JSON.stringify(ok));
  }
  // absent (or null) values are not validated
  assert.deepEqual(rules(cr({ strategy: {} }), schema), []);
  assert.deepEqual(rules(cr({ strategy: { rollingUpdate: null } }), schema), []);
  // fieldPath names a field under the node; the value shown is still the node's type
  assert.deepEqual(
    rules(
      cr({ strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } }),
      rolloutSchema({ fieldPath: '.maxSurge' }),
    ),
    ['spec.strategy.rollingUpdate.maxSurge: Invalid value: "object": may not both be 0'],
  );
});

test('rules see the defaulted object, as the API server validates it after defaulting', () => {
  const schema = rolloutSchema();
  const given = cr({ strategy: { rollingUpdate: { maxSurge: 0 } } });
  // not defaulted, the rule cannot read maxUnavailable
  assert.deepEqual(rules(given, schema), [
    `spec.strategy.rollingUpdate: Invalid value: "object": no such key: maxUnavailable evaluating rule: may not both be 0`,
  ]);
  const defaulted = applyDefaults(given, schema);
  assert.deepEqual(defaulted, cr({ strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '25%' } } }));
  assert.deepEqual(msgs(validateAgainstSchema(defaulted, schema)), []);
});

test('messages: failed rule by default, message trimmed, messageExpression when it yields a string', () => {
  const node = (rule: ValidationRule, type: JSONSchemaProps['type'] = 'integer'): JSONSchemaProps => ({
    type: 'object',
    properties: { spec: { type: 'object', properties: { n: { type, 'x-kubernetes-validations': [rule] } } } },
  });
  const v = cr({ n: 5 });
  assert.deepEqual(rules(v, node({ rule: 'self < 3' })), [
    'spec.n: Invalid value: "integer": failed rule: self < 3',
  ]);
  assert.deepEqual(rules(v, node({ rule: 'self < 3', message: '  too big  ' })), [
    'spec.n: Invalid value: "integer": too big',
  ]);
  assert.deepEqual(
    rules(v, node({ rule: 'self < 3', message: 'm', messageExpression: '"n is " + string(self)' })),
    ['spec.n: Invalid value: "integer": n is 5'],
  );
  // a messageExpression that fails or is not a string falls back to message
  assert.deepEqual(rules(v, node({ rule: 'self < 3', message: 'm', messageExpression: 'self.nope' })), [
    'spec.n: Invalid value: "integer": m',
  ]);
  assert.deepEqual(rules(v, node({ rule: 'self < 3', messageExpression: 'self' })), [
    'spec.n: Invalid value: "integer": failed rule: self < 3',
  ]);
  // a string node shows "string", a rule at the root is at <nil>
  assert.deepEqual(rules(cr({ n: 'abc' }), node({ rule: 'self.size() < 3' }, 'string')), [
    'spec.n: Invalid value: "string": failed rule: self.size() < 3',
  ]);
  const root: JSONSchemaProps = {
    type: 'object',
    properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } } },
    'x-kubernetes-validations': [
      { rule: 'self.metadata.name.startsWith("x")', message: 'name must start with x' },
    ],
  };
  assert.deepEqual(rules(v, root), ['<nil>: Invalid value: "object": name must start with x']);
});

test('reason picks the cause type: Forbidden, Required, Duplicate, Invalid', () => {
  const withReason = (reason: ValidationRule['reason']): JSONSchemaProps => ({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: { a: { type: 'string' } },
        'x-kubernetes-validations': [
          { rule: 'has(self.a)', message: 'a is needed', ...(reason ? { reason } : {}) },
        ],
      },
    },
  });
  const v = cr({});
  assert.deepEqual(validateRules(v, withReason('FieldValueForbidden')), [
    { reason: 'FieldValueForbidden', field: 'spec', message: 'Forbidden: a is needed' },
  ]);
  assert.deepEqual(validateRules(v, withReason('FieldValueRequired')), [
    { reason: 'FieldValueRequired', field: 'spec', message: 'Required value: a is needed' },
  ]);
  assert.deepEqual(validateRules(v, withReason('FieldValueDuplicate')), [
    { reason: 'FieldValueDuplicate', field: 'spec', message: 'Duplicate value: "object"' },
  ]);
  assert.deepEqual(
    validateRules(v, withReason('FieldValueInvalid')),
    validateRules(v, withReason(undefined)),
  );
  assert.deepEqual(rules(v, withReason(undefined)), ['spec: Invalid value: "object": a is needed']);
});

test('rules in list items, map values and allOf branches; paths name the index and the key', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          ports: {
            type: 'array',
            items: {
              type: 'object',
              properties: { port: { type: 'integer' } },
              'x-kubernetes-validations': [{ rule: 'self.port > 0', message: 'port must be positive' }],
            },
          },
          limits: {
            type: 'object',
            additionalProperties: {
              type: 'integer',
              'x-kubernetes-validations': [{ rule: 'self <= 10' }],
            },
          },
          name: { type: 'string' },
        },
      },
    },
  };
  (schema.properties!.spec as JSONSchemaProps & { allOf: JSONSchemaProps[] }).allOf = [
    {
      'x-kubernetes-validations': [
        { rule: '!has(self.name) || self.name != "forbidden"', message: 'bad name' },
      ],
    },
  ];
  const v = cr({ ports: [{ port: 80 }, { port: 0 }], limits: { cpu: 3, mem: 11 }, name: 'forbidden' });
  assert.deepEqual(rules(v, schema).sort(), [
    'spec.limits[mem]: Invalid value: "integer": failed rule: self <= 10',
    'spec.ports[1]: Invalid value: "object": port must be positive',
    'spec: Invalid value: "object": bad name',
  ]);
});

test('evaluation errors are Invalid causes naming the error and the rule, never exceptions', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: { a: { type: 'integer' }, s: { 'x-kubernetes-int-or-string': true } },
        'x-kubernetes-validations': [
          { rule: 'self.b > 1' },
          { rule: 'self.s + 1 > 0', message: 'int please' },
          { rule: 'self.a / 0 == 1' },
        ],
      },
    },
  };
  assert.deepEqual(rules(cr({ a: 1, s: 'x' }), schema), [
    'spec: Invalid value: "object": no such key: b evaluating rule: self.b > 1',
    `spec: Invalid value: "object": 'no such overload: dyn<string> + int': call arguments did not match a supported operator, function or macro signature for rule: int please`,
    'spec: Invalid value: "object": division by zero evaluating rule: self.a / 0 == 1',
  ]);
});

test('transition rules: skipped on create, checked against oldSelf on update where the old value correlates', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          id: {
            type: 'string',
            'x-kubernetes-validations': [
              { rule: 'self == oldSelf', message: 'id is immutable', reason: 'FieldValueForbidden' },
            ],
          },
          byName: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: {
              type: 'object',
              properties: { name: { type: 'string' }, size: { type: 'integer' } },
              'x-kubernetes-validations': [{ rule: 'self.size >= oldSelf.size', message: 'may not shrink' }],
            },
          },
        },
        'x-kubernetes-validations': [
          { rule: 'oldSelf.hasValue() || self.id != "reserved"', optionalOldSelf: true, message: 'reserved' },
        ],
      },
    },
  };
  const v1 = cr({ id: 'a', byName: [{ name: 'x', size: 2 }] });
  assert.deepEqual(rules(v1, schema), [], 'no oldSelf on create');
  assert.deepEqual(rules(cr({ id: 'reserved' }), schema), ['spec: Invalid value: "object": reserved']);
  assert.deepEqual(rules(cr({ id: 'reserved' }), schema, { oldValue: cr({ id: 'reserved' }) }), []);
  const v2 = cr({
    id: 'b',
    byName: [
      { name: 'y', size: 1 },
      { name: 'x', size: 1 },
    ],
  });
  assert.deepEqual(rules(v2, schema, { oldValue: v1 }), [
    'spec.id: Forbidden: id is immutable',
    'spec.byName[1]: Invalid value: "object": may not shrink',
  ]);
  // the field was absent before: the transition rule does not apply
  assert.deepEqual(rules(v1, schema, { oldValue: cr({}) }), []);
  // oldSelf inside a macro makes a transition rule too (an append-only list)
  const tags: JSONSchemaProps = {
    type: 'object',
    properties: {
      tags: {
        type: 'array',
        items: { type: 'string' },
        'x-kubernetes-validations': [{ rule: 'oldSelf.all(t, t in self)', message: 'append only' }],
      },
    },
  };
  assert.deepEqual(rules({ tags: ['a'] }, tags, { root: false }), []);
  assert.deepEqual(rules({ tags: ['a', 'c'] }, tags, { root: false, oldValue: { tags: ['a', 'b'] } }), [
    'tags: Invalid value: "array": append only',
  ]);
  assert.deepEqual(
    rules({ tags: ['b', 'a', 'c'] }, tags, { root: false, oldValue: { tags: ['a', 'b'] } }),
    [],
  );
});

test('ratcheting on update: an unchanged failing value is a warning, a changed one an error', () => {
  const schema = rolloutSchema();
  const bad = cr({ replicas: 1, strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } });
  const warnings: string[] = [];
  const scaled = cr({ replicas: 5, strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } });
  assert.deepEqual(rules(scaled, schema, { oldValue: bad, warnings }), []);
  assert.deepEqual(warnings, ['spec.strategy.rollingUpdate: Invalid value: "object": may not both be 0']);
  const changed = cr({ replicas: 1, strategy: { rollingUpdate: { maxSurge: '0%', maxUnavailable: 0 } } });
  assert.deepEqual(rules(changed, schema, { oldValue: bad }), [
    'spec.strategy.rollingUpdate: Invalid value: "object": may not both be 0',
  ]);
});

test('blocking schema errors stop the rules; others do not', () => {
  const schema = rolloutSchema();
  const both = { rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } };
  assert.deepEqual(msgs(validateAgainstSchema(cr({ replicas: 'x', strategy: both }), schema)), [
    'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  ]);
  assert.deepEqual(msgs(validateAgainstSchema(cr({ replicas: -1, strategy: both }), schema)), [
    'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
    'spec.strategy.rollingUpdate: Invalid value: "object": may not both be 0',
  ]);
  // a schema without rules is unaffected
  const plain = rolloutSchema();
  delete (plain.properties!.spec!.properties!.strategy!.properties!.rollingUpdate as JSONSchemaProps)[
    'x-kubernetes-validations'
  ];
  assert.deepEqual(msgs(validateAgainstSchema(cr({ replicas: 'x' }), plain)), [
    'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
  ]);
});

test('Kubernetes list and string library functions cel-js lacks', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          weights: { type: 'array', items: { type: 'integer' } },
          s: { type: 'string' },
        },
        'x-kubernetes-validations': [
          { rule: 'self.weights.isSorted()', message: 'sorted' },
          { rule: 'self.weights.sum() == 100', message: 'sum' },
          { rule: 'self.weights.min() >= 1 && self.weights.max() <= 90', message: 'range' },
          { rule: 'self.s.replace("-", "") == "abc"', message: 'replace' },
        ],
      },
    },
  };
  assert.deepEqual(rules(cr({ weights: [10, 90], s: 'a-b-c' }), schema), []);
  assert.deepEqual(rules(cr({ weights: [95, 0], s: 'abd' }), schema), [
    'spec: Invalid value: "object": sorted',
    'spec: Invalid value: "object": sum',
    'spec: Invalid value: "object": range',
    'spec: Invalid value: "object": replace',
  ]);
});
