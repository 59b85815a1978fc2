// The projection's fold on a real Redis: what one watch event leaves and whether it owes a reconcile
// request (a plan change, a status-only change, nothing), events folded in resourceVersion order, and the
// tombstones that keep a deleted pod or PodSet deleted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EntryTags } from '../src/integrity.ts';
import type { FoldType } from '../src/projection.ts';
import {
  Projection,
  clockAt,
  folded,
  owedFor,
  pod,
  podNames,
  podset,
  useProjections,
} from './support/projection-fixtures.ts';

const { client, queueName, projection } = useProjections();

test('a pod event that changes no plan input folds but answers false; an older one is ignored', async () => {
  const p = await projection();
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), true, 'a new pod');
  assert.equal(
    await folded(p.foldPod('ns/web', 'MODIFIED', pod('a', '11', { node: 'n1' }), 1)),
    false,
    'bound to a node',
  );
  assert.equal(
    await folded(p.foldPod('ns/web', 'MODIFIED', pod('a', '12', { node: 'n1', phase: 'Pending' }), 1)),
    true,
  );
  assert.equal(
    await folded(
      p.foldPod('ns/web', 'MODIFIED', pod('a', '13', { node: 'n1', phase: 'Running', ready: true }), 1),
    ),
    true,
  );
  // A replay from an older checkpoint: not folded over the newer state.
  assert.equal(await folded(p.foldPod('ns/web', 'MODIFIED', pod('a', '12', { phase: 'Pending' }), 1)), false);
  const state = await p.read('ns/web');
  assert.ok(state);
  assert.equal(state.pods.length, 1);
  const [a] = state.pods;
  assert.equal(a?.status?.phase, 'Running');
  assert.equal(a?.spec?.nodeName, 'n1');
  assert.deepEqual(a?.status?.conditions, [{ type: 'Ready', status: 'True' }]);
  assert.equal(a?.metadata.ownerReferences?.[0]?.uid, 'ps-uid');
  assert.equal(
    (a?.metadata as { labels?: unknown }).labels,
    undefined,
    'only what the planner reads is kept',
  );
  assert.equal(await folded(p.foldPod('ns/web', 'DELETED', pod('a', '14', { deleting: true }), 1)), true);
  assert.deepEqual((await p.read('ns/web'))?.pods, []);
});

test("a pod's phase or readiness alone owes a status-only request; a new, finished or deleting pod a plan one", async () => {
  const p = await projection();
  const fold = (type: FoldType, rv: string, o: Parameters<typeof pod>[2] = {}, name = 'a') =>
    owedFor(p.foldPod('ns/web', type, pod(name, rv, o), 1));
  assert.equal(await fold('ADDED', '10'), 'plan', 'a new pod');
  assert.equal(await fold('MODIFIED', '11', { node: 'n1' }), 'nothing', 'bound to a node');
  assert.equal(await fold('MODIFIED', '12', { node: 'n1', phase: 'Pending' }), 'status', 'Pending');
  assert.equal(await fold('MODIFIED', '13', { node: 'n1', phase: 'Running' }), 'status', 'Running');
  assert.equal(
    await fold('MODIFIED', '14', { node: 'n1', phase: 'Running', ready: true }),
    'status',
    'Ready',
  );
  assert.equal(
    await fold('MODIFIED', '14', { node: 'n1', phase: 'Running', ready: true }),
    'nothing',
    'again',
  );
  assert.equal(await fold('MODIFIED', '15', { node: 'n1', phase: 'Running' }), 'status', 'not Ready');
  assert.equal(await fold('MODIFIED', '16', { node: 'n1', phase: 'Failed' }), 'plan', 'Failed');
  assert.equal(await fold('ADDED', '17', { phase: 'Running', ready: true }, 'b'), 'plan', 'another new pod');
  assert.equal(await fold('MODIFIED', '18', { phase: 'Running', deleting: true }, 'b'), 'plan', 'deleting');
  assert.equal(await fold('DELETED', '19', { phase: 'Running', deleting: true }, 'b'), 'plan', 'deleted');
});

test('a status-only change whose request failed owes it again, still as status-only', async () => {
  const p = await projection();
  assert.equal(await owedFor(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), 'plan');
  const lost = await p.foldPod('ns/web', 'MODIFIED', pod('a', '11', { phase: 'Running', ready: true }), 1);
  assert.deepEqual([lost.owed, lost.statusOnly], [true, true]);
  const again = p.foldPod('ns/web', 'MODIFIED', pod('a', '11', { phase: 'Running', ready: true }), 1);
  assert.equal(await owedFor(again), 'status', 're-delivered after the request failed');
});

test('a PodSet status change folds but answers false; a spec change (generation) answers true', async () => {
  const p = await projection();
  assert.equal(await folded(p.foldPodSet('ns/web', 'ADDED', podset('20', 1), 1)), true);
  assert.equal(await folded(p.foldPodSet('ns/web', 'MODIFIED', podset('21', 1, { replicas: 3 }), 1)), false);
  assert.deepEqual((await p.read('ns/web'))?.podset?.status, { replicas: 3 }, 'the status is kept anyway');
  assert.equal((await p.read('ns/web'))?.podset?.metadata.resourceVersion, '21');
  assert.equal(await folded(p.foldPodSet('ns/web', 'MODIFIED', podset('22', 2), 1)), true);
  assert.equal(await folded(p.foldPodSet('ns/web', 'DELETED', podset('23', 2), 1)), true);
  assert.equal((await p.read('ns/web'))?.podset, undefined);
});

test('not ready (no complete relist folded yet): read answers undefined', async () => {
  const p = new Projection({ client, prefix: '{podset}', queueName: queueName() });
  await folded(p.foldPod('ns/web', 'ADDED', pod('a', '60'), 1));
  assert.equal(await p.read('ns/web'), undefined);
  await p.markReady();
  assert.equal((await p.read('ns/web'))?.pods.length, 1);
});

test('a fold whose request failed owes it again when the event is re-delivered', async () => {
  const p = await projection();
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '70'), 1)), true);
  const lost = await p.foldPod('ns/web', 'MODIFIED', pod('a', '71', { phase: 'Running', ready: true }), 1);
  assert.equal(lost.owed, true);
  // The request failed (requested() never called); the watch re-delivers the same event.
  const again = await p.foldPod('ns/web', 'MODIFIED', pod('a', '71', { phase: 'Running', ready: true }), 1);
  assert.equal(again.owed, true, 'still owed: nothing was requested for it');
  await again.requested();
  assert.equal(
    (await p.foldPod('ns/web', 'MODIFIED', pod('a', '71', { phase: 'Running', ready: true }), 1)).owed,
    false,
    'once requested, a repeat owes nothing',
  );
});

test('a relist fold is recorded as requested (the relist requests every key itself)', async () => {
  const p = await projection();
  const f = await p.foldPod('ns/web', 'ADDED', pod('r', '80'), 1, { requestedAnyway: true });
  assert.equal(f.owed, false);
  assert.equal((await p.foldPod('ns/web', 'MODIFIED', pod('r', '81', { node: 'n1' }), 1)).owed, false);
});

test('a deleted pod stays deleted when an older event of it comes late; a newer one (re-created) shows again', async () => {
  const p = await projection();
  await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1));
  await folded(p.foldPod('ns/web', 'MODIFIED', pod('a', '11', { phase: 'Running' }), 1));
  assert.equal(await folded(p.foldPod('ns/web', 'DELETED', pod('a', '12', { deleting: true }), 1)), true);
  // Still on its way when the DELETED was folded (e.g. resent after a Redis reconnect): ignored.
  assert.equal(await folded(p.foldPod('ns/web', 'MODIFIED', pod('a', '11', { phase: 'Running' }), 1)), false);
  assert.deepEqual((await p.read('ns/web'))?.pods, []);
  // A create the worker records only now, of a pod that came and went before (seen in the chaos run: the
  // user deleted it first): its tombstone shows the create, nothing more will come.
  assert.equal(await p.expect('ns/web', 'create', ['a']), 0);
  assert.deepEqual((await p.read('ns/web'))?.pending, []);
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '20'), 1)), true, 're-created');
  assert.deepEqual(await podNames(p), ['a']);
});

test('a deleted PodSet stays deleted when an older event of it comes late', async () => {
  const p = await projection();
  await folded(p.foldPodSet('ns/web', 'ADDED', podset('30', 1), 1));
  assert.equal(await folded(p.foldPodSet('ns/web', 'DELETED', podset('31', 1), 1)), true);
  assert.equal(await folded(p.foldPodSet('ns/web', 'MODIFIED', podset('30', 1), 1)), false);
  assert.equal((await p.read('ns/web'))?.podset, undefined);
  // A version answered before the deletion (folded outside a relist) is older too.
  await p.foldPodSet('ns/web', 'MODIFIED', podset('30', 1), 0);
  assert.equal((await p.read('ns/web'))?.podset, undefined);
  const ttl = await client.pttl(p.keys('ns/web').podset);
  assert.ok(ttl > 0, `the PodSet's tombstone expires (pttl ${ttl})`);
});

test('tombstones go once they expire: a read drops them', async () => {
  const p = new Projection({ client, prefix: '{podset}', queueName: queueName(), tombstoneTtlMs: 50 });
  await p.markReady();
  await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1));
  await folded(p.foldPod('ns/web', 'DELETED', pod('a', '11'), 1));
  assert.equal(await client.hlen(p.keys('ns/web').pods), 1, 'the tombstone');
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual((await p.read('ns/web'))?.pods, []);
  assert.equal(await client.hlen(p.keys('ns/web').pods), 0, 'dropped by the read');
});

test("a pod's tombstone under a PodSet that is gone (its state forgotten) lets the pods hash expire", async () => {
  const p = await projection();
  await folded(p.foldPodSet('ns/web', 'ADDED', podset('30', 1), 1));
  await folded(p.foldPod('ns/web', 'ADDED', pod('a', '31'), 1));
  await folded(p.foldPod('ns/web', 'DELETED', pod('a', '32'), 1));
  assert.equal(await client.pttl(p.keys('ns/web').pods), -1, 'its PodSet lives: no expiry');
  await p.forget('ns/web');
  await folded(p.foldPod('ns/web', 'DELETED', pod('b', '33'), 1)); // a late one
  await folded(p.foldPodSet('ns/web', 'DELETED', podset('35', 1), 1));
  await folded(p.foldPod('ns/web', 'DELETED', pod('d', '36'), 1)); // later still
  const ttl = await client.pttl(p.keys('ns/web').pods);
  assert.ok(ttl > 0 && ttl <= 5 * 60_000, `expires with the tombstone (pttl ${ttl})`);
  await folded(p.foldPod('ns/web', 'ADDED', pod('c', '37'), 1)); // a live pod (re-created PodSet): kept
  assert.equal(await client.pttl(p.keys('ns/web').pods), -1);
});

test("a deleting pod's event that comes after its PodSet's state was forgotten does not bring it back", async () => {
  // The worker deletes the last pod, removes the PodSet's state and its finalizer; the PodSet's DELETED is
  // folded; the pod watch, behind the PodSet watch, then brings the pod's deletionTimestamp.
  const p = await projection();
  const { pods, podset: entry } = p.keys('ns/web');
  await folded(p.foldPodSet('ns/web', 'ADDED', podset('30', 1), 1));
  await folded(p.foldPod('ns/web', 'ADDED', pod('a', '31'), 1));
  await p.forget('ns/web');
  await folded(p.foldPodSet('ns/web', 'DELETED', podset('35', 1), 1));
  assert.equal(await folded(p.foldPod('ns/web', 'MODIFIED', pod('a', '33', { deleting: true }), 1)), false);
  assert.ok(!(await client.smembers(p.indexKey)).includes('ns/web'), 'not in the index again');
  assert.equal(await client.exists(p.keys('ns/web').requested), 0, 'no request owed, none recorded');
  const ttl = await client.pttl(pods);
  assert.ok(ttl > 0 && ttl <= 5 * 60_000, `its pods hash expires (pttl ${ttl})`);
  // The same with the PodSet's DELETED not folded yet (its state forgotten, no tombstone).
  await p.forget('ns/web');
  await client.del(entry, pods);
  await folded(p.foldPod('ns/web', 'MODIFIED', pod('b', '40', { deleting: true }), 1));
  assert.ok(!(await client.smembers(p.indexKey)).includes('ns/web'), 'not in the index');
  assert.ok((await client.pttl(pods)) > 0);
  // A live pod under the tombstone may be a re-created PodSet's: indexed and kept, as ever.
  await folded(p.foldPod('ns/web', 'ADDED', pod('c', '41'), 1));
  assert.ok((await client.smembers(p.indexKey)).includes('ns/web'));
  assert.equal(await client.pttl(pods), -1);
});

test("the writer stamps a deleted pod's tombstone with its Clock's time plus the tombstone's ttl", async () => {
  const clock = clockAt(1_000_000);
  const p = new Projection({
    client,
    prefix: '{podset}',
    queueName: queueName(),
    tombstoneTtlMs: 300_000,
    clock,
  });
  await p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1);
  await p.foldPod('ns/web', 'DELETED', pod('a', '11'), 1);
  assert.equal(await client.hget(p.keys('ns/web').pods, 'a'), '1\t11\n1300000');
});

test('a refused pod entry with a huge resourceVersion blocks the fold until dropped, and is dropped only while still as refused', async () => {
  const tags = new EntryTags({ current: 'k'.repeat(32) });
  const p = new Projection({ client, prefix: '{podset}', queueName: queueName(), tags });
  await p.markReady();
  await p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1);
  await p.foldPod('ns/web', 'ADDED', pod('b', '10'), 1);
  const pods = p.keys('ns/web').pods;
  const forge = async (name: string) => {
    const [epoch, , , ...rest] = (await client.hget(pods, name))!.split('\t');
    await client.hset(pods, name, [epoch, '99999999999999999999', 'A'.repeat(22), ...rest].join('\t'));
  };
  await forge('a');
  await forge('b');
  const state = (await p.read('ns/web'))!;
  assert.deepEqual(state.refused.map((r) => `${r.field} ${r.reason}`).sort(), ['a tag', 'b tag']);
  // The fold never stores an older-looking version over it: the pod's next event changes nothing.
  await p.foldPod('ns/web', 'MODIFIED', pod('a', '11', { node: 'n1' }), 1);
  assert.equal((await p.read('ns/web'))!.refused.length, 2, 'still refused after the fold');
  // b changed since it was read (the watcher, say): not dropped.
  await client.hset(pods, 'b', (await client.hget(pods, 'b'))!.replace('A'.repeat(22), 'B'.repeat(22)));
  const dropped = await p.dropRefused(
    'ns/web',
    state.refused.map((r) => ({ field: r.field, stored: r.stored! })),
  );
  assert.equal(dropped, 1, 'only a, still as refused');
  assert.equal(await client.hexists(pods, 'a'), 0);
  assert.equal(await client.hexists(pods, 'b'), 1);
  await p.foldPod('ns/web', 'MODIFIED', pod('a', '12', { node: 'n1' }), 1);
  const after = (await p.read('ns/web'))!;
  assert.deepEqual(
    after.pods.map((x) => x.metadata.name),
    ['a'],
    "a's next event folded afresh",
  );
});
