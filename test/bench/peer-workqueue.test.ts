// The peer's work queue (client-go workqueue semantics) and its expectations (ReplicaSet controller's).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Expectations } from '../../bench/peer/expectations.ts';
import { WorkQueue } from '../../bench/peer/workqueue.ts';

test('adds of a waiting key collapse into one', async () => {
  const q = new WorkQueue();
  q.add('a');
  q.add('b');
  q.add('a');
  assert.equal(q.length, 2);
  assert.equal(await q.get(), 'a');
  assert.equal(await q.get(), 'b');
  assert.equal(q.length, 0);
  q.shutDown();
});

test('a key being processed is not handed out again; an add meanwhile runs it once more after done', async () => {
  const q = new WorkQueue();
  q.add('a');
  assert.equal(await q.get(), 'a');
  q.add('a');
  q.add('a');
  assert.equal(q.length, 0, 'not handed to a second worker while the first runs it');
  q.add('b');
  assert.equal(await q.get(), 'b');
  q.done('b');
  q.done('a');
  assert.equal(q.length, 1, 'the add during processing is not lost, and collapsed to one');
  assert.equal(await q.get(), 'a');
  q.done('a');
  assert.equal(q.length, 0);
  q.shutDown();
});

test('a waiting get receives the next add; shutDown releases waiting gets with undefined', async () => {
  const q = new WorkQueue();
  const first = q.get();
  q.add('x');
  assert.equal(await first, 'x');
  const second = q.get();
  q.shutDown();
  assert.equal(await second, undefined);
});

test('requeue-after keeps the earliest due time', () => {
  const q = new WorkQueue();
  q.addAfter('a', 60_000);
  const late = q.dueOf('a')!;
  q.addAfter('a', 1_000);
  const early = q.dueOf('a')!;
  assert.ok(early < late, 'the earlier request replaces the later one');
  q.addAfter('a', 30_000);
  assert.equal(q.dueOf('a'), early, 'a later request does not postpone it');
  assert.equal(q.length, 0);
  q.addAfter('a', 0);
  assert.equal(q.length, 1, 'a zero delay adds at once');
  q.shutDown();
});

test('a delayed add lands in the queue when due', async () => {
  const q = new WorkQueue();
  q.addAfter('a', 5);
  assert.equal(await q.get(), 'a');
  q.shutDown();
});

test('failures back off exponentially per key until forget', () => {
  const q = new WorkQueue({ baseDelayMs: 10, maxDelayMs: 50 });
  assert.equal(q.backoffOf('a'), 10);
  q.addRateLimited('a');
  assert.equal(q.backoffOf('a'), 20);
  q.addRateLimited('a');
  q.addRateLimited('a');
  assert.equal(q.backoffOf('a'), 50, 'capped');
  assert.equal(q.backoffOf('b'), 10, 'per key');
  q.forget('a');
  assert.equal(q.backoffOf('a'), 10);
  q.shutDown();
});

test('expectations: satisfied only once every create and delete was observed', () => {
  const e = new Expectations();
  assert.equal(e.satisfied('k'), true, 'nothing expected');
  e.expectCreations('k', 2);
  e.expectDeletions('k', ['u1']);
  assert.equal(e.satisfied('k'), false);
  e.creationObserved('k');
  e.creationObserved('k');
  assert.equal(e.satisfied('k'), false, 'the delete is still pending');
  e.deletionObserved('k', 'u1');
  e.deletionObserved('k', 'u1'); // the terminating update and the delete event of one pod count once
  assert.equal(e.satisfied('k'), true);
  e.creationObserved('k'); // an extra add (a relist) never goes below zero
  e.expectCreations('k', 1);
  assert.equal(e.satisfied('k'), false);
});

test('expectations expire after their TTL', () => {
  let t = 1_000;
  const e = new Expectations({ ttlMs: 300_000, now: () => t });
  e.expectCreations('k', 3);
  assert.equal(e.pendingFor('k'), 300_000);
  t += 299_999;
  assert.equal(e.satisfied('k'), false);
  t += 1;
  assert.equal(e.satisfied('k'), true);
  e.delete('k');
  assert.equal(e.pendingFor('k'), 0);
});
