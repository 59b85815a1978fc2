// validateRuleDefinitions: the CEL rules of a CRD checked when the CRD is written.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateRuleDefinitions } from './cel-rule-definitions.ts';
import { validateCrd } from './schema.ts';
import type { Json, JsonObject, KubeObject } from '../apimachinery/types.ts';
import { msgs } from '../../test/unit-support/schemas.ts';

test('rule definitions are checked when a CRD is written', () => {
  const crd = (validations: Json[], items?: JsonObject): KubeObject => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.test.io' },
    spec: {
      group: 'test.io',
      scope: 'Namespaced',
      names: { kind: 'Widget', plural: 'widgets' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    a: { type: 'integer' },
                    list: { type: 'array', items: items ?? { type: 'string' } },
                  },
                  'x-kubernetes-validations': validations,
                },
              },
            },
          },
        },
      ],
    },
  });
  const p = 'spec.versions[0].schema.openAPIV3Schema.properties[spec]';
  assert.deepEqual(validateCrd(crd([{ rule: 'self.a > 0', message: 'm', fieldPath: '.a' }])), []);
  assert.deepEqual(msgs(validateCrd(crd([{ rule: 'self.a >' }]))), [
    `${p}.x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.a >", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:9: Syntax error: Unexpected token: EOF`,
  ]);
  assert.match(
    msgs(validateCrd(crd([{ rule: 'other.a > 0' }])))[0] ?? '',
    /compilation failed: ERROR: <input>:1:1: undeclared reference to 'other'/,
  );
  assert.match(msgs(validateCrd(crd([{ rule: '"x"' }])))[0] ?? '', /cel expression must evaluate to a bool$/);
  assert.deepEqual(
    msgs(
      validateCrd(
        crd([
          { rule: ' ' },
          { rule: 'true', reason: 'Bad' },
          { rule: 'true', fieldPath: '.nope' },
          { rule: 'true', message: 'a\nb' },
        ]),
      ),
    ),
    [
      `${p}.x-kubernetes-validations[0].rule: Required value: rule is not specified`,
      `${p}.x-kubernetes-validations[1].reason: Unsupported value: "Bad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
      `${p}.x-kubernetes-validations[2].fieldPath: Invalid value: ".nope": fieldPath must be a valid path: does not refer to a valid field`,
      `${p}.x-kubernetes-validations[3].message: Invalid value: "a\\nb": message must not contain line breaks`,
    ],
  );
  // a transition rule inside a list that is not a map list can never apply
  assert.deepEqual(
    msgs(
      validateCrd(
        crd([], { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } as JsonObject),
      ),
    ),
    [
      `${p}.properties[list].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${p}.properties[list]`,
    ],
  );
  assert.deepEqual(
    validateRuleDefinitions(
      { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] },
      'x',
    ),
    [],
  );
});
