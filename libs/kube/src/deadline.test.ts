import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { requestDeadline } from './deadline.ts';

test('a deadline aborts with a TimeoutError once its time is up', async () => {
  const d = requestDeadline(undefined, 5);
  await new Promise((resolve) => d.signal.addEventListener('abort', resolve, { once: true }));
  assert.equal((d.signal.reason as Error).name, 'TimeoutError');
});

test("a deadline aborts with the caller's reason when the caller aborts, and at once if it already had", () => {
  const caller = new AbortController();
  const d = requestDeadline(caller.signal, 60_000);
  caller.abort(new Error('shutting down'));
  assert.equal((d.signal.reason as Error).message, 'shutting down');
  d.clear();
  const late = requestDeadline(caller.signal, 60_000);
  assert.equal(late.signal.aborted, true);
  assert.equal((late.signal.reason as Error).message, 'shutting down');
});

test('a cleared deadline never fires, and no longer listens to the caller', async () => {
  const caller = new AbortController();
  const d = requestDeadline(caller.signal, 1);
  d.clear();
  await sleep(20);
  caller.abort(new Error('later'));
  assert.equal(d.signal.aborted, false);
});
