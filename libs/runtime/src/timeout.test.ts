import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withTimeout } from './timeout.ts';

test('withTimeout passes on the value, or the rejection, of a promise that answers', async () => {
  assert.equal(await withTimeout(Promise.resolve(7), 60_000, 'x'), 7);
  await assert.rejects(withTimeout(Promise.reject(new Error('boom')), 60_000, 'x'), /^Error: boom$/);
});

test('withTimeout rejects naming what did not answer', async () => {
  const never = new Promise<never>(() => undefined);
  await assert.rejects(withTimeout(never, 5, 'redis'), { message: 'redis: no answer in 5 ms' });
});
