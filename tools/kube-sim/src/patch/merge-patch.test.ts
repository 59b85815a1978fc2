// JSON merge patch (RFC 7386): applyMergePatch and createMergePatch.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Json, JsonObject } from '../apimachinery/types.ts';
import { applyMergePatch, createMergePatch, mergePatch } from './patch.ts';
import { assertApiError, frozen, jsonAny, objectNoNull } from '../../test/unit-support/patches.ts';

describe('JSON merge patch (RFC 7386)', () => {
  // RFC 7386 appendix A.
  const examples: [Json, Json, Json][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  examples.forEach(([target, patch, result], i) => {
    it(`RFC 7386 example ${i + 1}`, () => {
      assert.deepEqual(mergePatch(frozen(target), frozen(patch)), result);
    });
  });

  it('applyMergePatch needs an object patch (400 Invalid JSON Patch)', () => {
    for (const p of [null, 'x', 1, [1]] as Json[]) {
      assertApiError(() => applyMergePatch({ a: 1 }, p), 400, 'BadRequest', 'Invalid JSON Patch');
    }
    assert.deepEqual(applyMergePatch({ a: 1, b: { c: 2 } }, { b: { c: null, d: 3 } }), { a: 1, b: { d: 3 } });
  });

  it('the result shares nothing with the inputs', () => {
    const target = { keep: { deep: [1] }, change: { x: 1 } };
    const patch = { change: { y: [2] } };
    const out = applyMergePatch(target, patch) as { keep: { deep: number[] }; change: { y: number[] } };
    out.keep.deep.push(9);
    out.change.y.push(9);
    assert.deepEqual(target, { keep: { deep: [1] }, change: { x: 1 } });
    assert.deepEqual(patch, { change: { y: [2] } });
  });

  it('`__proto__` is an ordinary member', () => {
    const out = mergePatch({}, JSON.parse('{"__proto__":{"polluted":true}}') as Json) as JsonObject;
    assert.ok(Object.hasOwn(out, '__proto__'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('property: applying createMergePatch(a, b) to a gives b (null-free b)', () => {
    fc.assert(
      fc.property(objectNoNull, objectNoNull, (a, b) => {
        assert.deepEqual(mergePatch(frozen(a), frozen(createMergePatch(a, b))), b);
      }),
    );
  });

  it('property: merge patches are idempotent and never mutate inputs', () => {
    fc.assert(
      fc.property(jsonAny, jsonAny, (a, p) => {
        const once = mergePatch(frozen(a), frozen(p));
        assert.deepEqual(mergePatch(once, p), once);
      }),
    );
  });
});
