// A worker's creates counted before they are made (their names come from generateName, known only once
// the creates return), on a real Redis: a pod's ADDED folded before its name is recorded takes a unit and
// is met as a named create — it requests nothing while others are awaited, the last one follows the quiet
// note — and the record that follows releases what was not taken, in the same call. No read waits for
// units; they expire, and a relist drops them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PENDING_CREATES_TTL_MS } from '../src/projection-reader.ts';
import { Projection, clockAt, folded, pod, podset, useProjections } from './support/projection-fixtures.ts';

const { client, queueName, projection } = useProjections();

/** The key's pending units as stored (0 when the field is gone). */
async function units(p: Projection): Promise<number> {
  const v = await client.hget(p.keys('ns/web').expect, '@n');
  return v === null ? 0 : Number(v.split('\t')[1]);
}

async function reserved(count: number, quiet: boolean, p?: Projection): Promise<Projection> {
  p ??= await projection();
  await folded(p.foldPodSet('ns/web', 'ADDED', podset('1', 1), 1));
  await p.reserveCreates('ns/web', count, { quiet });
  return p;
}

test('ADDEDs folded before their names are recorded: none requests while others are awaited; the last one is quiet', async () => {
  const p = await reserved(3, true);
  assert.equal(await units(p), 3);
  assert.deepEqual((await p.read('ns/web'))?.pending, [], 'units hold no read');
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), false);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1)), false);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('c', '12'), 1)), false, 'the last one: quiet');
  assert.equal(await units(p), 0, 'all three taken: the field is gone');
  // The record after the batch skips the names shown, and has nothing left to release.
  assert.deepEqual(await p.recordCreates('ns/web', ['a', 'b', 'c'], { quiet: 'keep', unmade: 0 }), {
    recorded: 0,
    overReleased: false,
  });
  assert.equal(await units(p), 0);
  // Recorded as requested: a later change of one of them requests as before.
  assert.equal(await folded(p.foldPod('ns/web', 'MODIFIED', pod('a', '13', { phase: 'Running' }), 1)), true);
});

test('not quiet: the last of them requests, once all show', async () => {
  const p = await reserved(2, false);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), false, 'b pending');
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1)), true);
});

test('some shown before the record, the others after it: the record releases the units of the names it records', async () => {
  const p = await reserved(3, true);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), false);
  const out = await p.recordCreates('ns/web', ['a', 'b', 'c'], { quiet: 'keep', unmade: 0 });
  assert.deepEqual(out, { recorded: 2, overReleased: false });
  assert.equal(await units(p), 0, "b's and c's units released with their names recorded");
  assert.deepEqual((await p.read('ns/web'))?.pending.sort(), ['b', 'c']);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1)), false, 'c awaited');
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('c', '12'), 1)), false, 'quiet');
});

test('creates not made (failed, cancelled) are released with the record; the count never goes below 0', async () => {
  const p = await reserved(4, false);
  await p.recordCreates('ns/web', ['a'], { unmade: 3 });
  assert.equal(await units(p), 0, "a's unit and the three not made");
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), true, 'the last awaited');
  // Released more than was reserved: clamped at 0, gone, and said.
  await p.reserveCreates('ns/web', 2);
  assert.deepEqual(await p.recordCreates('ns/web', [], { unmade: 5 }), { recorded: 0, overReleased: true });
  assert.equal(await client.hexists(p.keys('ns/web').expect, '@n'), 0);
  // A pod nobody awaits, no units: requests, as before.
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('z', '20'), 1)), true);
});

test('a batch recorded by name while later batches are reserved: the first batch’s last one requests nothing', async () => {
  const p = await reserved(3, true);
  await p.recordCreates('ns/web', ['a'], { quiet: 'keep', unmade: 0 });
  assert.equal(await units(p), 2, 'the next batch’s units stay');
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), false, 'two more pending');
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1)), false, 'one more pending');
  await p.recordCreates('ns/web', ['b', 'c'], { quiet: 'keep', unmade: 0 });
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('c', '12'), 1)), false, 'the last: quiet');
});

test('units taken silently, then the pass not quiet: its record drops the note, so nothing requested it', async () => {
  // What the worker's `withdrawn` is for: the pass must then ask for its own next pass.
  const p = await reserved(2, true);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), false);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1)), false, 'quiet while noted');
  await p.recordCreates('ns/web', ['a', 'b'], { unmade: 0 });
  assert.equal(await client.hexists(p.keys('ns/web').expect, '@q'), 0, 'the note dropped');
});

test('a pod that moved on before it showed takes a unit and drops the note: the last one requests', async () => {
  const p = await reserved(2, true);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10', { phase: 'Running' }), 1)), false);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1)), true);
});

test('only a first ADDED takes a unit: a MODIFIED, or an ADDED of a pod already stored, requests as before', async () => {
  const p = await projection();
  await folded(p.foldPod('ns/web', 'ADDED', pod('old', '5', { phase: 'Running' }), 1));
  await reserved(2, true, p);
  assert.equal(await folded(p.foldPod('ns/web', 'MODIFIED', pod('old', '6', { deleting: true }), 1)), true);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('old', '7', { phase: 'Failed' }), 1)), true);
  assert.equal(await units(p), 2);
});

test('units expire: then an ADDED requests, and the expired field goes', async () => {
  const clock = clockAt(1_000_000);
  const p = new Projection({ client, prefix: '{podset}', queueName: queueName(), clock });
  await p.markReady();
  await reserved(2, false, p);
  // Units hold a minute, not an expectation's five: a pass's batches come seconds apart.
  clock.set(1_000_000 + PENDING_CREATES_TTL_MS + 1);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), true);
  assert.equal(await client.hexists(p.keys('ns/web').expect, '@n'), 0);
});

test('a record that leaves units holds them a ttl from its own time', async () => {
  const clock = clockAt(1_000_000);
  const p = new Projection({ client, prefix: '{podset}', queueName: queueName(), clock });
  await p.markReady();
  await reserved(3, false, p);
  clock.set(1_000_000 + PENDING_CREATES_TTL_MS / 2);
  await p.recordCreates('ns/web', ['a'], { unmade: 0 });
  assert.equal(await units(p), 2);
  clock.set(1_000_000 + PENDING_CREATES_TTL_MS + 1);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1)), false, 'still held: a pending');
  assert.equal(await units(p), 1);
});

test('a reservation adds to units unexpired and holds a ttl from now', async () => {
  const clock = clockAt(1_000_000);
  const p = new Projection({ client, prefix: '{podset}', queueName: queueName(), clock });
  await p.markReady();
  await reserved(2, false, p);
  clock.set(1_000_000 + PENDING_CREATES_TTL_MS / 2);
  await p.reserveCreates('ns/web', 3);
  assert.equal(await units(p), 5);
  clock.set(1_000_000 + PENDING_CREATES_TTL_MS + 1);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), false, 'four more pending');
  assert.equal(await units(p), 4);
});

test('units not of a worker’s shape, or expiring too far ahead, are none', async () => {
  for (const value of [`n${Date.now() + 3_600_000}\t2`, `n${Date.now() + 60_000}\t2000000`, 'n5', 'x']) {
    const p = await reserved(0, false);
    await client.hset(p.keys('ns/web').expect, '@n', value);
    await p.expect('ns/web', 'create', ['other']);
    assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), true, JSON.stringify(value));
  }
});

test('a relist drops the units: its page of the key, or its sweep', async () => {
  let p = await reserved(3, true);
  let epoch = await p.nextEpoch('pods/ns');
  await p.foldListed('pod', [{ key: 'ns/web', object: pod('a', '10') }], epoch);
  assert.equal(await client.hexists(p.keys('ns/web').expect, '@n'), 0, 'a listed pod took none');
  // The record then releases nothing below 0; b's ADDED, its name recorded, meets it.
  await p.recordCreates('ns/web', ['a', 'b'], { quiet: 'keep', unmade: 1 });
  assert.deepEqual((await p.read('ns/web'))?.pending, ['b']);
  p = await reserved(2, false);
  epoch = await p.nextEpoch('pods/ns');
  await p.sweep('pod', 'ns', epoch);
  assert.equal(await client.hexists(p.keys('ns/web').expect, '@n'), 0, 'left by a pass that never released');
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), epoch)), true);
});

test("units reserved in a burst's call: fold-each meets them as fold does", async () => {
  const p = await reserved(2, true);
  const answers = await p.foldEach([
    { key: 'ns/web', kind: 'pod', type: 'ADDED', object: pod('a', '10'), epoch: 1 },
    { key: 'ns/web', kind: 'pod', type: 'ADDED', object: pod('b', '11'), epoch: 1 },
    { key: 'ns/web', kind: 'pod', type: 'ADDED', object: pod('c', '12'), epoch: 1 },
  ]);
  assert.deepEqual(
    answers.map((a) => a.owed),
    [false, false, true],
    'two met, the third nobody awaited',
  );
});

test('another’s pod shows while the pass’s units are out: the record finds one taken too many, drops the note and says so', async () => {
  const p = await reserved(2, true);
  // A pod nobody of this pass made (a user's, with the PodSet's controller reference): met as awaited.
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('stranger', '10'), 1)), false);
  const out = await p.recordCreates('ns/web', ['a', 'b'], { quiet: 'keep', unmade: 0 });
  assert.deepEqual(out, { recorded: 2, overReleased: true });
  assert.equal(await client.hexists(p.keys('ns/web').expect, '@q'), 0, 'the note dropped');
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '11'), 1)), false, 'b awaited');
  assert.equal(
    await folded(p.foldPod('ns/web', 'ADDED', pod('b', '12'), 1)),
    true,
    'not quiet: the last requests',
  );
});
