// A worker's creates noted quiet (the pass that made them needs no follow-up once they show as made), on a
// real Redis: the event that meets the last of them requests nothing; anything else still requests.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { folded, pod, podset, useProjections } from './support/projection-fixtures.ts';

const { client, projection } = useProjections();

async function awaitingQuiet(names: string[]) {
  const p = await projection();
  await folded(p.foldPodSet('ns/web', 'ADDED', podset('1', 1), 1));
  assert.equal(await p.expect('ns/web', 'create', names, { quiet: 'start' }), names.length);
  return p;
}

test('quiet creates: the last one to show as made requests nothing; later changes of them still do', async () => {
  const p = await awaitingQuiet(['a', 'b']);
  assert.deepEqual((await p.read('ns/web'))?.pending, ['a', 'b'], 'the note is no expectation');
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10', { phase: 'Pending' }), 1)), false);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11', { phase: 'Pending' }), 1)), false);
  assert.deepEqual((await p.read('ns/web'))?.pending, []);
  // Recorded as requested: their readiness and a plan change request as before.
  assert.equal(await folded(p.foldPod('ns/web', 'MODIFIED', pod('a', '12', { phase: 'Running' }), 1)), true);
  assert.equal(await folded(p.foldPod('ns/web', 'MODIFIED', pod('b', '13', { deleting: true }), 1)), true);
});

test('creates not noted quiet: the last one requests, as before', async () => {
  const p = await projection();
  assert.equal(await p.expect('ns/web', 'create', ['a']), 1);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), true);
});

test('one of them already moved on when it shows (running, ready, deleting): the last one requests', async () => {
  for (const moved of [{ phase: 'Running' }, { ready: true }, { deleting: true }]) {
    const p = await awaitingQuiet(['a', 'b']);
    assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10', moved), 1)), false, 'b awaited');
    assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1)), true, JSON.stringify(moved));
  }
  const p = await awaitingQuiet(['a']);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10', { phase: 'Running' }), 1)), true);
});

test('one of them deleted before it showed: the last one requests', async () => {
  const p = await awaitingQuiet(['a', 'b']);
  assert.equal(await folded(p.foldPod('ns/web', 'DELETED', pod('a', '10'), 1)), false);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1)), true);
});

test('a later record drops the note: a delete, or creates not quiet', async () => {
  let p = await projection();
  await folded(p.foldPod('ns/web', 'ADDED', pod('old', '9', { phase: 'Running' }), 1));
  await p.expect('ns/web', 'create', ['a'], { quiet: 'start' });
  await p.expect('ns/web', 'delete', ['old']);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), false, 'old awaited');
  assert.equal(await folded(p.foldPod('ns/web', 'MODIFIED', pod('old', '11', { deleting: true }), 1)), true);
  p = await awaitingQuiet(['a']);
  await p.expect('ns/web', 'create', ['b']);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '12'), 1)), false, 'b awaited');
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('b', '13'), 1)), true);
});

test('the note lost (Redis lost the key) or expired: the last one requests', async () => {
  let p = await awaitingQuiet(['a']);
  await client.hdel(p.keys('ns/web').expect, '@q');
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), true);
  p = await projection();
  await p.expect('ns/web', 'create', ['a'], { quiet: 'start', ttlMs: 30 });
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), true);
});

test('a note not of a worker’s shape, or expiring too far ahead, is none', async () => {
  for (const value of ['q' + String(Date.now() + 3_600_000), 'x', 'q']) {
    const p = await awaitingQuiet(['a']);
    await client.hset(p.keys('ns/web').expect, '@q', value);
    assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), true, value);
  }
});

test('a PodSet change while they are awaited requests; a relist folds them as requested anyway', async () => {
  const p = await awaitingQuiet(['a']);
  assert.equal(await folded(p.foldPodSet('ns/web', 'MODIFIED', podset('2', 2), 1)), true);
  const epoch = await p.nextEpoch('pods/ns');
  await p.foldListed('pod', [{ key: 'ns/web', object: pod('a', '10') }], epoch);
  assert.equal(await client.hexists(p.keys('ns/web').expect, '@q'), 0, 'the relist dropped the note');
});

test("a pass's later batch keeps the note only while it stands: one dropped by a pod moved on stays dropped", async () => {
  let p = await awaitingQuiet(['a']);
  assert.equal(
    await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)),
    false,
    'the first batch, shown',
  );
  await p.expect('ns/web', 'create', ['b', 'c'], { quiet: 'keep' });
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1)), false);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('c', '12'), 1)), false, 'still quiet');
  p = await awaitingQuiet(['a', 'b']);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10', { phase: 'Running' }), 1)), false);
  await p.expect('ns/web', 'create', ['c'], { quiet: 'keep' });
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1)), false, 'c awaited');
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('c', '12'), 1)), true, "a's change is owed");
});
