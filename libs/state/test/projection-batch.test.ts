// The projection's batched folds on a real Redis: foldEach (a burst of watch events) and foldListed (a
// relist page) answer and leave what one fold per event or object does, over several Redis calls.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FoldItem, ProjectedPod, ProjectedPodSet } from '../src/projection.ts';
import {
  type Projection,
  folded,
  owedFor,
  pod,
  podset,
  useProjections,
} from './support/projection-fixtures.ts';

const { client, projection } = useProjections();

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
