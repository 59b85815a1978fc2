// The projection on a real Redis: folds ordered by resourceVersion, the answer "may this change a plan",
// expectations that hold a reconcile until the worker's own creates and deletes show, and the sweep of
// what a relist did not see.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Clock } from '@podset/clock';
import { useRedis } from '@podset/testkit';
import { EntryTags } from '../src/integrity.ts';
import type {
  Fold,
  FoldItem,
  FoldType,
  OutOfBoundsValue,
  ProjectedPod,
  ProjectedPodSet,
} from '../src/projection.ts';
import { EXPECTATION_CLOCK_SKEW_MS, EXPECTATION_TTL_MS } from '../src/projection-reader.ts';
import { ProjectionPair as Projection } from './support/projection-pair.ts';

const redis = useRedis();
const client = redis.client;
let n = 0;

/** A fold whose owed request goes through (as the watcher does it); answers whether one was owed. */
async function folded(fold: Promise<Fold>): Promise<boolean> {
  const f = await fold;
  if (f.owed) await f.requested();
  return f.owed;
}

/** The pod names PodSet ns/web's state shows. */
async function podNames(p: Projection): Promise<string[] | undefined> {
  return (await p.read('ns/web'))?.pods.map((x) => x.metadata.name ?? '');
}

/** A fresh projection (its own queue name) marked ready. */
async function projection(): Promise<Projection> {
  const p = new Projection({ client, prefix: '{podset}', queueName: `proj-${++n}` });
  await p.markReady();
  return p;
}

function pod(
  name: string,
  rv: string,
  o: { phase?: string; ready?: boolean; node?: string; deleting?: boolean } = {},
) {
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      resourceVersion: rv,
      creationTimestamp: '2026-01-01T00:00:00Z',
      ...(o.deleting === true ? { deletionTimestamp: '2026-01-01T00:01:00Z' } : {}),
      ownerReferences: [
        { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: 'ps-uid', controller: true },
      ],
      labels: { big: 'x'.repeat(100) },
    },
    spec: {
      ...(o.node !== undefined ? { nodeName: o.node } : {}),
      containers: [{ name: 'c', image: 'nginx' }],
    },
    status: {
      ...(o.phase !== undefined ? { phase: o.phase } : {}),
      conditions: [{ type: 'Ready', status: o.ready === true ? 'True' : 'False' }],
    },
  } as ProjectedPod;
}

function podset(rv: string, generation: number, status: unknown = {}): ProjectedPodSet {
  return {
    metadata: { name: 'web', namespace: 'ns', uid: 'ps-uid', resourceVersion: rv, generation },
    spec: { replicas: 3 },
    status,
  };
}

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

/** A fold whose owed request goes through; answers what it owed: a plan change, a status change, nothing. */
async function owedFor(fold: Promise<Fold>): Promise<'plan' | 'status' | 'nothing'> {
  const f = await fold;
  if (f.owed) await f.requested();
  return !f.owed ? 'nothing' : f.statusOnly === true ? 'status' : 'plan';
}

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
  assert.equal(await p.expect('ns/web', 'create', ['lost'], 1), 1);
  await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual((await p.read('ns/web'))?.pending, [], 'expired after its ttl');
});

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

test('not ready (no complete relist folded yet): read answers undefined', async () => {
  const p = new Projection({ client, prefix: '{podset}', queueName: `proj-${++n}` });
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
  const p = new Projection({ client, prefix: '{podset}', queueName: `proj-${++n}`, tombstoneTtlMs: 50 });
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
  assert.equal(await p.expect('ns/web', 'create', ['lost'], 30), 1);
  assert.equal(await p.expect('ns/web', 'create', ['a']), 1);
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1)), true);
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

test('foldEach (a burst of watch events) answers and leaves what one fold per event does, each at its own epoch', async () => {
  const one = await projection();
  const each = await projection();
  // Over two Redis calls: 150 pods shown, then some of them changed, one deleted, the PodSet re-specced.
  const items: (FoldItem & { epoch: number })[] = [
    { key: 'ns/web', kind: 'podset', type: 'ADDED', object: podset('1', 1), epoch: 2 },
  ];
  for (let i = 0; i < 150; i++)
    items.push({ key: 'ns/web', kind: 'pod', type: 'ADDED', object: pod(`p${i}`, String(10 + i)), epoch: 1 });
  items.push({
    key: 'ns/web',
    kind: 'pod',
    type: 'MODIFIED',
    object: pod('p0', '900', { ready: true }),
    epoch: 1,
  });
  items.push({ key: 'ns/web', kind: 'pod', type: 'MODIFIED', object: pod('p2', '5'), epoch: 1 }); // older: ignored
  items.push({ key: 'ns/web', kind: 'pod', type: 'DELETED', object: pod('p1', '901'), epoch: 1 });
  items.push({
    key: 'ns/web',
    kind: 'podset',
    type: 'MODIFIED',
    object: podset('902', 1, { replicas: 3 }),
    epoch: 2,
  });
  items.push({ key: 'ns/web', kind: 'podset', type: 'MODIFIED', object: podset('903', 2), epoch: 2 });
  const owedOne: boolean[] = [];
  for (const it of items) {
    const f =
      it.kind === 'pod'
        ? await one.foldPod(it.key, it.type, it.object as ProjectedPod, it.epoch)
        : await one.foldPodSet(it.key, it.type, it.object as ProjectedPodSet, it.epoch);
    owedOne.push(f.owed);
  }
  const folds = await each.foldEach(items);
  assert.deepEqual(
    folds.map((f) => f.owed),
    owedOne,
  );
  assert.ok(
    owedOne.includes(false) && owedOne.includes(true),
    'the case holds folds that owe and folds that do not',
  );
  assert.deepEqual(await each.read('ns/web'), await one.read('ns/web'));
  // Each answer records its own request: once recorded, the same event owes nothing.
  await folds.at(-1)!.requested();
  const again = await each.foldEach([items.at(-1)!]);
  assert.equal(again[0]!.owed, false);
});

/** The same history folded into a projection: what a relist then finds (see foldListed's test). */
async function history(p: Projection): Promise<void> {
  await folded(p.foldPodSet('ns/web', 'ADDED', podset('1', 1), 1));
  await folded(p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1));
  await folded(p.foldPod('ns/web', 'ADDED', pod('b', '11'), 1));
  await folded(p.foldPod('ns/web', 'ADDED', pod('c', '12', { phase: 'Running' }), 1));
  await folded(p.foldPod('ns/web', 'ADDED', pod('d', '13'), 1));
  await folded(p.foldPod('ns/web', 'DELETED', pod('d', '14'), 1));
  await folded(p.foldPod('ns/web', 'ADDED', pod('f', '20'), 7)); // folded at a newer epoch already
  await p.expect('ns/web', 'create', ['e']);
  await p.expect('ns/web', 'delete', ['a', 'b']);
  // A PodSet deleted: its pods hash is left to expire, until a relist lists a pod of it again.
  await folded(p.foldPod('ns/gone', 'ADDED', pod('g', '30'), 1));
  await folded(p.foldPodSet('ns/gone', 'ADDED', { ...podset('31', 1), metadata: { name: 'gone' } }, 1));
  await folded(p.foldPodSet('ns/gone', 'DELETED', { ...podset('32', 1), metadata: { name: 'gone' } }, 1));
}

/** Everything the projection holds of the keys the history touches (tombstone expiry times blanked). */
async function dump(p: Projection): Promise<unknown> {
  const blank = (v: string | null) => v?.replace(/\n\d+$/, '\n') ?? null;
  const out: Record<string, unknown> = { index: (await client.smembers(p.indexKey)).sort() };
  for (const key of ['ns/web', 'ns/gone', 'ns/many']) {
    const k = p.keys(key);
    out[key] = {
      podset: blank(await client.get(k.podset)),
      podsetTtl: Math.sign(await client.pttl(k.podset)),
      podsTtl: Math.sign(await client.pttl(k.pods)),
      ...Object.fromEntries(
        await Promise.all(
          (['pods', 'expect', 'requested'] as const).map(async (h) => [
            h,
            Object.fromEntries(
              Object.entries(await client.hgetall(k[h])).map(([f, v]) => [
                f,
                h === 'expect' ? v[0] : blank(v),
              ]),
            ),
          ]),
        ),
      ),
    };
  }
  return out;
}

test('foldEach tells a status-only change from a plan change as one fold per event does', async () => {
  const p = await projection();
  for (const name of ['a', 'b'])
    assert.equal(await owedFor(p.foldPod('ns/web', 'ADDED', pod(name, '10'), 1)), 'plan');
  const folds = await p.foldEach([
    {
      key: 'ns/web',
      kind: 'pod',
      type: 'MODIFIED',
      object: pod('a', '11', { phase: 'Running', ready: true }),
      epoch: 1,
    },
    { key: 'ns/web', kind: 'pod', type: 'MODIFIED', object: pod('b', '12', { phase: 'Failed' }), epoch: 1 },
  ]);
  assert.deepEqual(
    folds.map((f) => [f.owed, f.statusOnly === true]),
    [
      [true, true],
      [true, false],
    ],
  );
});

test('foldListed (a relist page) leaves what one fold per object, requested anyway, leaves', async () => {
  const one = await projection();
  const listed = await projection();
  for (const p of [one, listed]) await history(p);
  const pods: { key: string; object: ProjectedPod }[] = [
    { key: 'ns/web', object: pod('a', '15', { deleting: true }) }, // its awaited delete shows
    { key: 'ns/web', object: pod('b', '16') }, // still awaited: its delete has not shown
    { key: 'ns/web', object: pod('c', '9') }, // older than the one folded: replaces it (a relist is authoritative)
    { key: 'ns/web', object: pod('d', '13') }, // older than its tombstone: listed, so there again
    { key: 'ns/web', object: pod('e', '17') }, // the awaited create shows
    { key: 'ns/web', object: pod('f', '20') }, // the same version, folded at a newer epoch
    { key: 'ns/gone', object: pod('g', '33') },
  ];
  // Past the first batch: a later version of p0 in another call of the same page must land after it.
  for (let i = 0; i < 150; i++) pods.push({ key: 'ns/many', object: pod(`p${i}`, String(100 + i)) });
  pods.push({ key: 'ns/many', object: pod('p0', '900', { phase: 'Running' }) });
  const podsets = [
    { key: 'ns/web', object: podset('40', 2) },
    { key: 'ns/other', object: { ...podset('41', 1), metadata: { name: 'other', namespace: 'ns' } } },
  ];
  const epoch = 5;
  for (const it of podsets)
    await one.foldPodSet(it.key, 'ADDED', it.object, epoch, { requestedAnyway: true });
  for (const it of pods) await one.foldPod(it.key, 'ADDED', it.object, epoch, { requestedAnyway: true });
  await listed.foldListed('podset', podsets, epoch);
  await listed.foldListed('pod', pods, epoch);
  const [a, b] = [await dump(one), await dump(listed)];
  assert.deepEqual(b, a);
  assert.equal(
    (await listed.read('ns/many'))?.pods.find((x) => x.metadata.name === 'p0')?.status?.phase,
    'Running',
  );
  assert.deepEqual((await listed.read('ns/web'))?.pending, ['b']);
  // Swept alike: what the relist saw is of its epoch (or newer) in both.
  assert.equal(await listed.sweep('pod', undefined, epoch), await one.sweep('pod', undefined, epoch));
  assert.deepEqual(await dump(listed), await dump(one));
});

test('foldListed fails the page when one of its calls fails; the calls around it land as sent', async () => {
  const p = await projection();
  // The second batch's PodSet holds a value of the wrong type where its pods hash goes: that call fails.
  await client.set(p.keys('ns/broken').pods, 'not a hash');
  const items: { key: string; object: ProjectedPod }[] = [];
  for (let i = 0; i < 100; i++) items.push({ key: 'ns/web', object: pod(`a${i}`, String(10 + i)) });
  items.push({ key: 'ns/broken', object: pod('x', '200') });
  for (let i = 0; i < 150; i++) items.push({ key: 'ns/late', object: pod(`c${i}`, String(300 + i)) });
  await assert.rejects(p.foldListed('pod', items, 1), /WRONGTYPE/);
  assert.equal(await client.hlen(p.keys('ns/web').pods), 100, 'the call before it landed');
  // The failed call stopped at its first object (nothing of it written); the third landed all the same.
  assert.equal(await client.hlen(p.keys('ns/late').pods), 51, 'the call after it had landed when it failed');
});

test('foldListed on a Redis that does not know its script yet: every call falls back, in order', async () => {
  const p = await projection();
  await client.script('FLUSH');
  const items: { key: string; object: ProjectedPod }[] = [];
  for (let i = 0; i < 250; i++) items.push({ key: 'ns/web', object: pod(`p${i}`, String(10 + i)) });
  items.push({ key: 'ns/web', object: pod('p0', '900', { phase: 'Running' }) }); // in the third call
  await p.foldListed('pod', items, 1);
  const pods = (await p.read('ns/web'))?.pods ?? [];
  assert.equal(pods.length, 250);
  assert.equal(pods.find((x) => x.metadata.name === 'p0')?.status?.phase, 'Running');
});

/** A clock that stands still until the test moves it. */
function clockAt(ms: number): Clock & { set(ms: number): void } {
  let now = ms;
  return {
    now: () => now,
    elapsed: () => now,
    sleep: () => Promise.reject(new Error('not slept in this test')),
    set: (to) => {
      now = to;
    },
  };
}

test("the reader's expectations expire by the Clock it is given, not the wall clock", async () => {
  const clock = clockAt(Date.now());
  const p = new Projection({ client, prefix: '{podset}', queueName: `proj-${++n}`, clock });
  await p.markReady();
  assert.equal(await p.expect('ns/web', 'create', ['new-1'], 60_000), 1);
  assert.deepEqual((await p.read('ns/web'))?.pending, ['new-1']);
  clock.set(clock.now() + 60_001);
  assert.deepEqual((await p.read('ns/web'))?.pending, [], 'expired a minute later by the clock');
});

test("the writer stamps a deleted pod's tombstone with its Clock's time plus the tombstone's ttl", async () => {
  const clock = clockAt(1_000_000);
  const p = new Projection({
    client,
    prefix: '{podset}',
    queueName: `proj-${++n}`,
    tombstoneTtlMs: 300_000,
    clock,
  });
  await p.foldPod('ns/web', 'ADDED', pod('a', '10'), 1);
  await p.foldPod('ns/web', 'DELETED', pod('a', '11'), 1);
  assert.equal(await client.hget(p.keys('ns/web').pods, 'a'), '1\t11\n1300000');
});

/** A projection (marked ready) whose reader reports the values it ignored as out of bounds into `seen`. */
async function boundedProjection(seen: OutOfBoundsValue[], clock?: Clock): Promise<Projection> {
  const p = new Projection({
    client,
    prefix: '{podset}',
    queueName: `proj-${++n}`,
    outOfBounds: (v) => seen.push(v),
    ...(clock !== undefined ? { clock } : {}),
  });
  await p.markReady();
  return p;
}

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

test('a refused pod entry with a huge resourceVersion blocks the fold until dropped, and is dropped only while still as refused', async () => {
  const tags = new EntryTags({ current: 'k'.repeat(32) });
  const p = new Projection({ client, prefix: '{podset}', queueName: `proj-${++n}`, tags });
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
