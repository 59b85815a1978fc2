// What the unit tests of kube-sim's patches share (src/patch: JSON merge patch, JSON patch, strategic merge
// patch): deep-frozen inputs, so a patch that mutates its input throws; an ApiError check; arbitrary JSON
// values. Beside schemas.ts, apart from test/support (see there).
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ApiError, type Json, type JsonObject } from '../../src/apimachinery/types.ts';

/** Freezes a value deeply so that any mutation by the code under test throws (ESM is strict mode). */
export function frozen<T extends Json>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const x of Object.values(v)) frozen(x);
    Object.freeze(v);
  }
  return v;
}

export function assertApiError(
  fn: () => unknown,
  code: number,
  reason: string,
  message?: string | RegExp,
): ApiError {
  let caught: ApiError | undefined;
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.equal(e.reason, reason);
    if (typeof message === 'string') assert.ok(e.message.includes(message), `${e.message} lacks ${message}`);
    else if (message !== undefined) assert.match(e.message, message);
    caught = e;
    return true;
  });
  return caught!;
}

// Arbitrary JSON, with and without nulls.
const key = fc.constantFrom('a', 'b', 'c', 'd', 'x~y', 'p/q', '__proto__', 'constructor');
export const scalar = fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.boolean());
export const { json: jsonNoNull } = fc.letrec<{ json: Json }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('json'), { maxLength: 3 }),
    fc.dictionary(key, tie('json'), { maxKeys: 4, noNullPrototype: true }) as fc.Arbitrary<Json>,
  ),
}));
export const objectNoNull = fc.dictionary(key, jsonNoNull, {
  maxKeys: 5,
  noNullPrototype: true,
}) as fc.Arbitrary<JsonObject>;
export const { json: jsonAny } = fc.letrec<{ json: Json }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.constant(null),
    fc.array(tie('json'), { maxLength: 3 }),
    fc.dictionary(key, tie('json'), { maxKeys: 4, noNullPrototype: true }) as fc.Arbitrary<Json>,
  ),
}));
