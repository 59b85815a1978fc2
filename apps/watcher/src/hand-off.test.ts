// The ordered hand-off alone: the RV advances in order, past taken events only; the events of one batch (one
// promise) advance together, once, to the last one's RV; a failure stops the advance.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deferred } from './deferred.ts';
import { OrderedHandOff } from './hand-off.ts';

function handOff() {
  const advances: [string, number][] = [];
  const failures: unknown[] = [];
  const h = new OrderedHandOff(
    async (rv, events) => {
      advances.push([rv, events]);
    },
    (err) => failures.push(err),
  );
  return { h, advances, failures };
}

test('the events of one batch advance once, to the last RV, counting every event', async () => {
  const { h, advances } = handOff();
  const batch = deferred();
  h.add(batch.promise, '101');
  h.add(batch.promise, undefined); // an event without an RV moves nothing
  h.add(batch.promise, '103');
  h.add(batch.promise, undefined);
  assert.equal(h.inFlight, 4);
  batch.resolve();
  await h.taken;
  assert.deepEqual(advances, [['103', 4]]);
  assert.equal(h.inFlight, 0);
});

test('batches advance in the order handed on, each once its own and every earlier one are taken', async () => {
  const { h, advances } = handOff();
  const first = deferred();
  const second = deferred();
  h.add(first.promise, '101');
  h.add(first.promise, '102');
  h.add(second.promise, '103');
  h.add(first.promise, '104'); // the first batch's promise again, after another: a link of its own
  second.resolve();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(advances, [], 'nothing past the first batch while it is not taken');
  assert.equal(h.inFlight, 4);
  first.resolve();
  await h.taken;
  assert.deepEqual(advances, [
    ['102', 2],
    ['103', 1],
    ['104', 1],
  ]);
  assert.equal(h.inFlight, 0);
});

test('an event handed on with a promise whose advance has begun gets a link of its own', async () => {
  const advances: [string, number][] = [];
  const advancing = deferred();
  const h = new OrderedHandOff(
    async (rv, events) => {
      advances.push([rv, events]);
      if (rv === '101') await advancing.promise;
    },
    () => undefined,
  );
  const batch = Promise.resolve();
  h.add(batch, '101');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(advances, [['101', 1]], 'the first advance is under way');
  h.add(batch, '102');
  advancing.resolve();
  await h.taken;
  assert.deepEqual(advances, [
    ['101', 1],
    ['102', 1],
  ]);
  assert.equal(h.inFlight, 0);
});

test('a failed batch stops the advance: no later RV is reached, and each link after it reports the broken chain', async () => {
  const { h, advances, failures } = handOff();
  const first = deferred();
  const second = deferred();
  h.add(first.promise, '101');
  h.add(first.promise, '102');
  h.add(second.promise, '103');
  first.reject(new Error('redis down'));
  second.resolve();
  await assert.rejects(h.taken, /redis down/);
  await h.settle();
  assert.deepEqual(advances, []);
  assert.equal(failures.length, 2);
  assert.equal(h.inFlight, 0);
});
