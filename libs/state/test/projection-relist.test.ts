// The projection after a relist on a real Redis: what the relist listed replaces what was folded, the
// sweep removes what it did not list, epochs keep a stale or late relist from undoing a newer one, and
// the waits a relist ends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type Projection,
  folded,
  pod,
  podNames,
  podset,
  useProjections,
} from './support/projection-fixtures.ts';

const { client, projection } = useProjections();

test('a relist sweeps what it did not see, in its namespace only', async () => {
  const p = await projection();
  await folded(p.foldPod('ns/web', 'ADDED', pod('kept', '50'), 1));
  await folded(p.foldPod('ns/web', 'ADDED', pod('gone', '51'), 1));
  await folded(
    p.foldPod(
      'other/web',
      'ADDED',
      { ...pod('elsewhere', '52'), metadata: { ...pod('elsewhere', '52').metadata, namespace: 'other' } },
      1,
    ),
  );
  await folded(p.foldPodSet('ns/web', 'ADDED', podset('53', 1), 1));
  const epoch = await p.nextEpoch('pods/ns');
  assert.ok(epoch >= 1);
  await folded(p.foldPod('ns/web', 'MODIFIED', pod('kept', '50'), epoch + 1));
  assert.equal(await p.sweep('pod', 'ns', epoch + 1), 1);
  assert.deepEqual(await podNames(p), ['kept']);
  assert.equal((await p.read('other/web'))?.pods.length, 1, 'another namespace is not swept');
  assert.ok((await p.read('ns/web'))?.podset, 'PodSets are swept by their own relist');
});

test('a relist replaces a stored version newer than the one it listed (the cluster went back in time)', async () => {
  const p = await projection();
  await p.foldPodSet('ns/web', 'MODIFIED', podset('91', 1, { replicas: 3 }), 0);
  const epoch = await p.nextEpoch('podsets/ns');
  // etcd restored from a backup: the API lists the PodSet at an older version than the projection holds.
  await p.foldPodSet('ns/web', 'ADDED', podset('90', 1), epoch, { requestedAnyway: true });
  assert.equal(await p.sweep('podset', 'ns', epoch), 0);
  assert.equal((await p.read('ns/web'))?.podset?.metadata.resourceVersion, '90');
  // The watch that follows the relist folds what changed after the list, in resourceVersion order.
  await folded(p.foldPodSet('ns/web', 'MODIFIED', podset('92', 2), epoch));
  assert.equal((await p.read('ns/web'))?.podset?.metadata.generation, 2);
  await folded(p.foldPodSet('ns/web', 'MODIFIED', podset('91', 1), epoch));
  assert.equal((await p.read('ns/web'))?.podset?.metadata.generation, 2, 'an older watch event still loses');
});

test('a relist after an API server restarted empty: the projection is exactly what it listed', async () => {
  const p = await projection();
  const gen = (rv: string, uid: string) => ({
    ...podset(rv, 1),
    metadata: { ...podset(rv, 1).metadata, uid },
  });
  await folded(p.foldPodSet('ns/web', 'ADDED', gen('500', 'old-uid'), 0));
  for (const name of ['a', 'b', 'c'])
    await folded(p.foldPod('ns/web', 'ADDED', pod(name, `50${name.charCodeAt(0) % 10}`), 0));
  await folded(p.foldPod('ns/web', 'DELETED', pod('c', '600'), 0)); // a tombstone of the old world
  const podsEpoch = await p.nextEpoch('pods/ns');
  const setsEpoch = await p.nextEpoch('podsets/ns');
  // The new world: the PodSet made again (new uid, low resourceVersions), one pod of an old name, one new.
  await p.foldListed('podset', [{ key: 'ns/web', object: gen('3', 'new-uid') }], setsEpoch);
  await p.foldListed(
    'pod',
    [
      { key: 'ns/web', object: pod('a', '4', { phase: 'Running' }) },
      { key: 'ns/web', object: pod('c', '5') },
    ],
    podsEpoch,
  );
  assert.equal(await p.sweep('podset', 'ns', setsEpoch), 0);
  assert.equal(await p.sweep('pod', 'ns', podsEpoch), 1, 'b: not listed');
  const state = await p.read('ns/web');
  assert.equal(state?.podset?.metadata.uid, 'new-uid');
  assert.equal(state?.podset?.metadata.resourceVersion, '3');
  assert.deepEqual(
    state?.pods.map((x) => [x.metadata.name, x.metadata.resourceVersion, x.status?.phase]).sort(),
    [
      ['a', '4', 'Running'],
      ['c', '5', undefined],
    ],
  );
});

test('a relist keeps an entry stamped by a newer relist (a stale leader relisting late)', async () => {
  const p = await projection();
  const stale = await p.nextEpoch('podsets/ns');
  const fresh = await p.nextEpoch('podsets/ns');
  await p.foldListed('podset', [{ key: 'ns/web', object: podset('20', 2) }], fresh);
  await p.foldListed('podset', [{ key: 'ns/web', object: podset('10', 1) }], stale);
  assert.equal((await p.read('ns/web'))?.podset?.metadata.generation, 2);
});

test('with its stream given, a relist still keeps an entry stamped by a newer relist of it', async () => {
  const p = await projection();
  const stale = await p.nextEpoch('podsets/ns');
  const fresh = await p.nextEpoch('podsets/ns');
  await p.foldListed('podset', [{ key: 'ns/web', object: podset('20', 2) }], fresh, 'podsets/ns');
  await p.foldListed('podset', [{ key: 'ns/web', object: podset('10', 1) }], stale, 'podsets/ns');
  assert.equal((await p.read('ns/web'))?.podset?.metadata.generation, 2);
  assert.equal(await p.sweep('podset', 'ns', stale), 0, "the stale relist's sweep keeps it too");
});

/** Writes `name`'s stored pod entry back under `as` with its epoch raised (what a Redis password allows). */
async function writtenBack(p: Projection, stored: string, as: string, epoch: number): Promise<void> {
  await client.hset(p.keys('ns/web').pods, as, String(epoch) + stored.slice(stored.indexOf('\t')));
}

test('an old pod entry written back with a raised epoch is swept by the next relist that does not list it', async () => {
  const p = await projection();
  const first = await p.nextEpoch('pods/*');
  await p.foldListed('pod', [{ key: 'ns/web', object: pod('real', '10') }], first, 'pods/*');
  await folded(p.foldPod('ns/web', 'ADDED', pod('ghost', '11'), first));
  const recorded = (await client.hget(p.keys('ns/web').pods, 'ghost'))!;
  await folded(p.foldPod('ns/web', 'DELETED', pod('ghost', '12'), first));
  await writtenBack(p, recorded, 'ghost', first + 1000);
  assert.deepEqual((await podNames(p))?.sort(), ['ghost', 'real'], 'the ghost is counted');
  const epoch = await p.nextEpoch('pods/*', first);
  await p.foldListed('pod', [{ key: 'ns/web', object: pod('real', '10') }], epoch, 'pods/*');
  assert.equal(await p.sweep('pod', undefined, epoch), 1);
  assert.deepEqual(await podNames(p), ['real']);
});

test('a listed pod whose entry was written back with a raised epoch takes the listed version', async () => {
  const p = await projection();
  const first = await p.nextEpoch('pods/*');
  await p.foldListed('pod', [{ key: 'ns/web', object: pod('a', '10', { ready: true }) }], first, 'pods/*');
  const recorded = (await client.hget(p.keys('ns/web').pods, 'a'))!;
  await folded(p.foldPod('ns/web', 'MODIFIED', pod('a', '11', { ready: false }), first));
  await writtenBack(p, recorded, 'a', first + 1000); // shows it ready again
  const epoch = await p.nextEpoch('pods/*', first);
  await p.foldListed('pod', [{ key: 'ns/web', object: pod('a', '11', { ready: false }) }], epoch, 'pods/*');
  assert.equal(await p.sweep('pod', undefined, epoch), 0);
  const [a] = (await p.read('ns/web'))?.pods ?? [];
  assert.equal(a?.metadata.resourceVersion, '11', "the API's version, not the one written back");
});

test('after Redis lost its data a relist still sweeps folds from before the loss (its epoch is above theirs)', async () => {
  const p = await projection();
  const stream = 'pods/*';
  assert.equal(await p.nextEpoch(stream), 1);
  assert.equal(await p.nextEpoch(stream), 2);
  await client.del(`${p.base}:epoch:${stream}`); // the data loss
  // A fold issued before the loss and resent into the new Redis, of a pod deleted while nobody watched.
  await folded(p.foldPod('ns/web', 'ADDED', pod('stale', '50'), 2));
  const epoch = await p.nextEpoch(stream, 2);
  assert.equal(epoch, 3, 'above the epoch the watcher folded at');
  await p.foldPod('ns/web', 'ADDED', pod('listed', '60'), epoch, { requestedAnyway: true });
  assert.equal(await p.sweep('pod', undefined, epoch), 1);
  assert.deepEqual(await podNames(p), ['listed']);
});

test('a relist that no longer lists a pod ends what a worker awaited of it', async () => {
  const p = await projection();
  await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1));
  await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1));
  assert.equal(await p.expect('ns/web', 'delete', ['a']), 1);
  // Deleted while nobody watched: only the relist (b listed, a not) shows it.
  const epoch = await p.nextEpoch('pods/*', 1);
  await p.foldListed('pod', [{ key: 'ns/web', object: pod('b', '11') }], epoch);
  assert.equal(await p.sweep('pod', undefined, epoch), 1);
  assert.deepEqual((await p.read('ns/web'))?.pending, []);
});

test('a relist that does not list a created pod ends the wait for it if awaited since before it began', async () => {
  const p = await projection();
  await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1));
  // Created, awaited, then deleted while nobody watched (the watch cut before its events came): the
  // relist does not list it and no event of it will come.
  assert.equal(await p.expect('ns/web', 'create', ['came-and-went']), 1);
  const epoch = await p.nextEpoch('pods/*', 1);
  // Created after the relist began: its ADDED may still come through the watch from the list.
  assert.equal(await p.expect('ns/web', 'create', ['after-the-list']), 1);
  await p.foldListed('pod', [{ key: 'ns/web', object: pod('b', '11') }], epoch);
  await p.sweep('pod', undefined, epoch);
  assert.deepEqual((await p.read('ns/web'))?.pending, ['after-the-list']);
  // A watcher of the namespace alone counts too.
  assert.equal(await p.expect('ns/web', 'create', ['ns-only']), 1);
  const nsEpoch = await p.nextEpoch('pods/ns', epoch);
  await p.sweep('pod', 'ns', nsEpoch);
  assert.deepEqual((await p.read('ns/web'))?.pending, []);
});

test("a relist whose epoch counter Redis lost (a restart dropped its last writes) ends no create's wait, and puts the counter back", async () => {
  const p = await projection();
  await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1));
  const epoch = await p.nextEpoch('pods/*', 1);
  // The restart dropped the bump: a create recorded after the relist's list carries the older epoch.
  await client.set(`${p.base}:epoch:pods/*`, String(epoch - 1));
  assert.equal(await p.expect('ns/web', 'create', ['after-the-list']), 1);
  await p.foldListed('pod', [{ key: 'ns/web', object: pod('b', '11') }], epoch);
  await p.sweep('pod', undefined, epoch);
  assert.deepEqual(
    (await p.read('ns/web'))?.pending,
    ['after-the-list'],
    'still awaited: its ADDED may come',
  );
  assert.equal(await p.epoch('pods/*'), epoch, 'the counter is back at the relist epoch');
});

test('a relist that lists alive a pod whose delete was awaited since before it began ends that wait (etcd restored)', async () => {
  const p = await projection();
  await folded(p.foldPod('ns/web', 'ADDED', pod('a', '500', { phase: 'Running' }), 1));
  await folded(p.foldPod('ns/web', 'ADDED', pod('b', '501', { phase: 'Running' }), 1));
  await client.set(p.keyspace.epoch('pods/*'), '1');
  assert.equal(await p.expect('ns/web', 'delete', ['a', 'b']), 2);
  const epoch = await p.nextEpoch('pods/*', 1);
  // The cluster went back to before the deletes: a listed alive; b listed being deleted (its delete shows).
  await p.foldListed(
    'pod',
    [
      { key: 'ns/web', object: pod('a', '40', { phase: 'Running' }) },
      { key: 'ns/web', object: pod('b', '41', { phase: 'Running', deleting: true }) },
    ],
    epoch,
  );
  assert.equal(await p.expect('ns/web', 'delete', ['c-after']), 0, 'not there: nothing to await');
  await p.sweep('pod', undefined, epoch);
  assert.deepEqual((await p.read('ns/web'))?.pending, []);
});

test('a delete awaited since the relist began is not ended by it, even when it listed the pod alive', async () => {
  const p = await projection();
  await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10', { phase: 'Running' }), 1));
  const epoch = await p.nextEpoch('pods/*', 1);
  // Recorded after the relist began: its list may have been taken before the delete.
  assert.equal(await p.expect('ns/web', 'delete', ['a']), 1);
  await p.foldListed('pod', [{ key: 'ns/web', object: pod('a', '10', { phase: 'Running' }) }], epoch);
  await p.sweep('pod', undefined, epoch);
  assert.deepEqual((await p.read('ns/web'))?.pending, ['a']);
});
