// The projection's expectations on a real Redis: a worker's create or delete holds a reconcile until its
// pod event shows; a PodSet's DELETED or forget ends them; they expire by the reader's Clock; values out
// of bounds are reported and dropped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Clock } from '@podset/clock';
import type { OutOfBoundsValue } from '../src/projection.ts';
import { EXPECTATION_CLOCK_SKEW_MS, EXPECTATION_TTL_MS } from '../src/projection-reader.ts';
import { Projection, clockAt, folded, pod, podset, useProjections } from './support/projection-fixtures.ts';

const { client, queueName, projection, boundedProjection } = useProjections();

test('expectations: a create holds until the pod shows, a delete until its deletion shows', async () => {
  const p = await projection();
  await folded(p.foldPod('ns/web', 'ADDED', pod('old', '30', { phase: 'Running', ready: true }), 1));
  assert.equal(await p.expect('ns/web', 'create', ['new-1', 'new-2']), 2);
  assert.equal(await p.expect('ns/web', 'delete', ['old']), 1);
  assert.deepEqual((await p.read('ns/web'))?.pending.sort(), ['new-1', 'new-2', 'old']);
  await folded(p.foldPod('ns/web', 'ADDED', pod('new-1', '31'), 1));
  await folded(
    p.foldPod('ns/web', 'MODIFIED', pod('old', '32', { phase: 'Running', ready: true, deleting: true }), 1),
  );
  assert.deepEqual((await p.read('ns/web'))?.pending, ['new-2']);
  await folded(p.foldPod('ns/web', 'ADDED', pod('new-2', '33'), 1));
  assert.deepEqual((await p.read('ns/web'))?.pending, []);
});

test('expectations already met when recorded are not recorded; expired ones are dropped', async () => {
  const p = await projection();
  await folded(p.foldPod('ns/web', 'ADDED', pod('seen', '40'), 1));
  assert.equal(await p.expect('ns/web', 'create', ['seen']), 0, 'its event came first');
  assert.equal(await p.expect('ns/web', 'delete', ['never-there']), 0, 'already gone');
  assert.equal(await p.expect('ns/web', 'create', ['lost'], { ttlMs: 1 }), 1);
  await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual((await p.read('ns/web'))?.pending, [], 'expired after its ttl');
});

test('forget keeps the PodSet being deleted (a failed finalizer removal is retried); its DELETED ends it', async () => {
  const p = await projection();
  const deleting = {
    ...podset('100', 1),
    metadata: { ...podset('100', 1).metadata, name: 'gone', deletionTimestamp: 'now' },
  };
  await folded(p.foldPodSet('ns/gone', 'ADDED', deleting, 1));
  await folded(p.foldPod('ns/gone', 'ADDED', pod('g', '101'), 1));
  await p.expect('ns/gone', 'create', ['later']);
  assert.ok((await client.smembers(p.indexKey)).includes('ns/gone'));
  assert.equal(await p.forget('ns/gone'), 3, 'pods, expectations, requests');
  const state = await p.read('ns/gone');
  assert.equal(state?.podset?.metadata.deletionTimestamp, 'now', 'still there for the retry');
  assert.deepEqual([state?.pods, state?.pending], [[], []]);
  await folded(p.foldPodSet('ns/gone', 'DELETED', podset('102', 1), 1));
  assert.equal((await p.read('ns/gone'))?.podset, undefined);
  assert.ok(!(await client.smembers(p.indexKey)).includes('ns/gone'), 'out of the index');
  const ttl = await client.pttl(p.keys('ns/gone').podset);
  assert.ok(ttl > 0, `its tombstone expires (pttl ${ttl})`);
});

test("a PodSet's DELETED ends what workers awaited of it: a namesake created again does not wait", async () => {
  const p = await projection();
  await folded(p.foldPodSet('ns/web', 'ADDED', podset('30', 1), 1));
  await folded(p.foldPod('ns/web', 'ADDED', pod('old', '31', { phase: 'Running', ready: true }), 1));
  // The cleanup's delete, whose pod events are lost (a watch that went silent).
  assert.equal(await p.expect('ns/web', 'delete', ['old']), 1);
  await folded(p.foldPodSet('ns/web', 'DELETED', podset('32', 1), 1));
  await folded(p.foldPodSet('ns/web', 'ADDED', podset('40', 1), 1));
  assert.deepEqual((await p.read('ns/web'))?.pending, []);
});

test('while the worker awaits several of its creates, only the last to show requests a reconcile', async () => {
  const p = await projection();
  await folded(p.foldPodSet('ns/web', 'ADDED', podset('1', 1), 1));
  assert.equal(await p.expect('ns/web', 'create', ['a', 'b', 'c']), 3);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), false, 'b and c awaited');
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1)), false, 'c awaited');
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('c', '12'), 1)), true, 'the last one');
  // a was covered by c's request: an event of a that changes no plan input requests nothing.
  assert.equal(await folded(p.foldPod('ns/web', 'MODIFIED', pod('a', '13', { node: 'n1' }), 1)), false);
  assert.equal(await folded(p.foldPod('ns/web', 'MODIFIED', pod('a', '14', { phase: 'Running' }), 1)), true);
  // The same for deletes: each shows as its deletionTimestamp.
  assert.equal(await p.expect('ns/web', 'delete', ['a', 'b']), 2);
  assert.equal(await folded(p.foldPod('ns/web', 'MODIFIED', pod('a', '15', { deleting: true }), 1)), false);
  assert.equal(await folded(p.foldPod('ns/web', 'MODIFIED', pod('b', '16', { deleting: true }), 1)), true);
});

test('an expired expectation does not hold back the request of the one that shows', async () => {
  const p = await projection();
  assert.equal(await p.expect('ns/web', 'create', ['lost'], { ttlMs: 30 }), 1);
  assert.equal(await p.expect('ns/web', 'create', ['a']), 1);
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), true);
});

test("the reader's expectations expire by the Clock it is given, not the wall clock", async () => {
  const clock = clockAt(Date.now());
  const p = new Projection({ client, prefix: '{podset}', queueName: queueName(), clock });
  await p.markReady();
  assert.equal(await p.expect('ns/web', 'create', ['new-1'], { ttlMs: 60_000 }), 1);
  assert.deepEqual((await p.read('ns/web'))?.pending, ['new-1']);
  clock.set(clock.now() + 60_001);
  assert.deepEqual((await p.read('ns/web'))?.pending, [], 'expired a minute later by the clock');
});

test('an expectation expiring further ahead than its ttl, or not of its shape, is out of bounds: reported and dropped', async () => {
  const seen: OutOfBoundsValue[] = [];
  const now = 1_800_000_000_000;
  const p = await boundedProjection(seen, { now: () => now } as Clock);
  await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1));
  assert.equal(await p.expect('ns/web', 'create', ['kept']), 1);
  const k = p.keys('ns/web');
  // Written with the worker's password, not by a worker: 2100, 9e15, digits beyond any number, garbage.
  await client.hset(k.expect, 'far', `c${Date.UTC(2100, 0, 1)}\t1`);
  await client.hset(k.expect, 'huge', `c${9e15}\t1`);
  await client.hset(k.expect, 'endless', `d${'9'.repeat(400)}\t1`);
  await client.hset(k.expect, 'garbage', 'cNaN');
  // The longest a worker records, by a worker whose clock is ahead by the skew allowed.
  await client.hset(k.expect, 'edge', `c${now + EXPECTATION_TTL_MS + EXPECTATION_CLOCK_SKEW_MS}\t1`);
  await client.hset(k.expect, 'beyond', `c${now + EXPECTATION_TTL_MS + EXPECTATION_CLOCK_SKEW_MS + 1}\t1`);
  assert.deepEqual((await p.read('ns/web'))?.pending.sort(), ['edge', 'kept']);
  assert.deepEqual(seen, [{ what: 'expectation', key: 'ns/web', count: 5 }]);
  assert.deepEqual(
    Object.keys(await client.hgetall(k.expect)).sort(),
    ['edge', 'kept'],
    'dropped from Redis',
  );
});

test('an out-of-bounds expectation does not hold back the request of a create that shows', async () => {
  const p = await projection();
  await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1));
  await p.expect('ns/web', 'create', ['b']);
  await client.hset(p.keys('ns/web').expect, 'never', `c${9e15}\t1`);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1)), true);
});

test('an epoch counter out of bounds is reported; the expectation then outlives every relist until it expires', async () => {
  const seen: OutOfBoundsValue[] = [];
  const p = await boundedProjection(seen);
  await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1));
  await client.set(p.keyspace.epoch('pods/ns'), 'x'.repeat(3));
  await client.set(p.keyspace.epoch('pods/*'), '1e300');
  assert.equal(await p.expect('ns/web', 'create', ['b']), 1, 'recorded, no script error');
  assert.deepEqual(seen, [{ what: 'epoch', key: 'ns/web', count: 2 }]);
  // A relist that does not list b: its wait is not ended early (b may yet show; creating it again would
  // make one too many).
  await client.set(p.keyspace.epoch('pods/*'), '7');
  await p.sweep('pod', undefined, 7);
  assert.deepEqual((await p.read('ns/web'))?.pending, ['b']);
});
