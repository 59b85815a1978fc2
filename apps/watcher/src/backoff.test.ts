import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffDelay, sleep } from './backoff.ts';

test('backoff doubles per attempt, is capped, and jitters within [exp/2, exp]', () => {
  const opts = { initialMs: 100, maxMs: 1000 };
  assert.equal(
    backoffDelay(0, opts, () => 0),
    50,
  );
  assert.equal(
    backoffDelay(0, opts, () => 1),
    100,
  );
  assert.equal(
    backoffDelay(2, opts, () => 1),
    400,
  );
  assert.equal(
    backoffDelay(10, opts, () => 1),
    1000,
  );
  assert.equal(
    backoffDelay(10, opts, () => 0),
    500,
  );
  assert.equal(
    backoffDelay(1000, opts, () => 0.5),
    750,
  );
});

test('sleep returns early when aborted', async () => {
  const controller = new AbortController();
  const slept = sleep(60_000, controller.signal);
  controller.abort();
  await slept;
  await sleep(10, AbortSignal.abort());
});
