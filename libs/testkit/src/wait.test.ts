import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from './wait.ts';

test('waitFor returns the first truthy value of a sync or async check', async () => {
  let n = 0;
  assert.equal(await waitFor('n to reach 3', () => (++n >= 3 ? n : false), { intervalMs: 1 }), 3);
  let m = 0;
  assert.equal(await waitFor('m to reach 2', async () => ++m >= 2 && 'done', { intervalMs: 1 }), 'done');
});

test('a number as the third argument is the timeout', async () => {
  await assert.rejects(
    waitFor('nothing', () => false, 10),
    /timed out after 10 ms waiting for nothing/,
  );
});

test('on timeout waitFor names what it waited for and the last value seen', async () => {
  await assert.rejects(
    waitFor('the answer', () => 0, { timeoutMs: 20, intervalMs: 1, describe: () => 'context here' }),
    (err: Error) =>
      /waiting for the answer; last value: 0/.test(err.message) && err.message.includes('context here'),
  );
});

test('a throwing check counts as not yet, and its error is reported on timeout', async () => {
  let calls = 0;
  const v = await waitFor(
    'a flaky check',
    () => {
      if (++calls < 3) throw new Error('not ready');
      return 'ok';
    },
    { intervalMs: 1 },
  );
  assert.equal(v, 'ok');
  await assert.rejects(
    waitFor(
      'never',
      () => {
        throw new Error('boom');
      },
      { timeoutMs: 10, intervalMs: 1 },
    ),
    /waiting for never; last error: Error: boom/,
  );
});

test('giveUp ends the wait at once with its reason', async () => {
  let checks = 0;
  await assert.rejects(
    waitFor('a line', () => ++checks > 1000, {
      timeoutMs: 60_000,
      intervalMs: 1,
      giveUp: () => (checks >= 2 ? 'it exited' : undefined),
    }),
    /gave up waiting for a line: it exited/,
  );
  assert.equal(checks, 2);
});
