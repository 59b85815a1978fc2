import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BulkSlots } from './bulk-slots.ts';

test('at most `limit` slots are taken; a released slot goes to the first waiter, in order', async () => {
  const slots = new BulkSlots(2);
  assert.equal(slots.tryTake(), true);
  assert.equal(slots.tryTake(), true);
  assert.equal(slots.tryTake(), false, 'the share is full');
  const order: string[] = [];
  const a = slots.wait(10_000, []).then((g) => order.push(`a:${g}`));
  const b = slots.wait(10_000, []).then((g) => order.push(`b:${g}`));
  slots.release();
  await a;
  assert.deepEqual(order, ['a:true']);
  assert.equal(slots.active, 2, 'passed on, not freed');
  slots.release();
  await b;
  assert.deepEqual(order, ['a:true', 'b:true']);
  slots.release();
  slots.release();
  assert.equal(slots.active, 0);
});

test('a wait ends unsatisfied when its time runs out or a signal aborts, and gives up its place', async () => {
  const slots = new BulkSlots(1);
  slots.tryTake();
  assert.equal(await slots.wait(5, []), false);
  const stop = new AbortController();
  const waiting = slots.wait(10_000, [stop.signal]);
  stop.abort();
  assert.equal(await waiting, false);
  slots.release();
  assert.equal(slots.active, 0, 'no stale waiter took the slot');
  assert.equal(await slots.wait(10_000, [AbortSignal.abort()]), false, 'an aborted signal ends it at once');
});
