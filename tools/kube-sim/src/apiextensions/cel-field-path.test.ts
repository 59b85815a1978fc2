// resolveFieldPath: a rule's fieldPath resolved against the schema, with kube-apiserver's errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveFieldPath } from './cel-field-path.ts';
import type { JSONSchemaProps } from '../apimachinery/types.ts';

test("fieldPath resolution: .a, ['a.b'], map keys, and the errors kube-apiserver names", () => {
  const s: JSONSchemaProps = {
    type: 'object',
    properties: {
      a: { type: 'object', properties: { b: { type: 'string' } } },
      'x.y': { type: 'string' },
      m: { type: 'object', additionalProperties: { type: 'string' } },
      list: { type: 'array', items: { type: 'string' } },
    },
  };
  const path = (fp: string) => {
    const r = resolveFieldPath(fp, s);
    return 'path' in r ? r.path : `error: ${r.error}`;
  };
  assert.equal(path('.a.b'), 'a.b');
  assert.equal(path("['x.y']"), 'x.y');
  assert.equal(path(".m['k']"), 'm[k]');
  assert.equal(path('.m.k'), 'm[k]');
  assert.equal(path('.nope'), 'error: does not refer to a valid field');
  assert.equal(path('.list[0]'), 'error: expected single quoted string but got 0');
  assert.equal(path('.'), 'error: unexpected end of JSON path');
  assert.equal(path('a'), 'error: expected [ or . but got: a');
});
