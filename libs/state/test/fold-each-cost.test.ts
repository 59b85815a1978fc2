// What foldEach (a burst of watch events in one call) asks Redis, counted (commandstats), not timed: one
// key's events add it to the index, make its pods hash persistent and look at its expectations once per
// call, and the owed-key hook is asked once per key and kind of owed answer, its answers handed back. And what
// it leaves is what one fold per event leaves, a DELETED in the middle of the burst included.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { luaModule } from '@podset/redis';
import { useRedis } from '@podset/testkit';
import type { FoldItem, ProjectedPod, ProjectedPodSet } from '../src/projection.ts';
import { ProjectionPair as Projection } from './support/projection-pair.ts';

const redis = useRedis();
const client = redis.client;
let n = 0;

async function calls(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of (await client.info('commandstats')).matchAll(/cmdstat_([^:]+):calls=(\d+)/g))
    out[m[1]!] = Number(m[2]);
  return out;
}

/** The commands `fn` made Redis run (inside scripts too), by name. */
async function counted(fn: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = await calls();
  await fn();
  const after = await calls();
  const delta: Record<string, number> = {};
  for (const [name, c] of Object.entries(after))
    if (c > (before[name] ?? 0) && name !== 'info') delta[name] = c - (before[name] ?? 0);
  return delta;
}

function pod(name: string, rv: string, phase = 'Pending', ownerName = 'web'): ProjectedPod {
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      resourceVersion: rv,
      ownerReferences: [
        {
          apiVersion: 'podset.io/v1',
          kind: 'PodSet',
          name: ownerName,
          uid: `uid-${ownerName}`,
          controller: true,
        },
      ],
    },
    spec: { nodeName: 'n1' },
    status: { phase },
  } as ProjectedPod;
}

function podset(rv: string, name = 'web'): ProjectedPodSet {
  return {
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: rv, generation: 1 },
    spec: { replicas: 3 },
  };
}

async function projection(hook?: string, args: [string, string] = ['', '']): Promise<Projection> {
  const p = new Projection({
    client,
    prefix: '{fold}',
    queueName: `cost-${++n}`,
    ...(hook !== undefined ? { owedKeyHook: { lua: luaModule('owed-key', hook), args } } : {}),
  });
  await p.markReady();
  return p;
}

test("a burst of one key's pod events adds the key, persists its pods and looks for expectations once", async () => {
  const p = await projection();
  const items: (FoldItem & { epoch: number })[] = [];
  for (let i = 0; i < 5; i++)
    items.push({ key: 'ns/web', kind: 'pod', type: 'ADDED', object: pod(`p${i}`, String(10 + i)), epoch: 1 });
  const used = await counted(() => p.foldEach(items));
  assert.equal(used.sadd, 1, 'the index: once for the key');
  assert.equal(used.persist, 1, 'the pods hash made persistent once');
  assert.equal(used.exists, 1, 'the expectations hash looked at once: it has none');
  assert.equal(used.hget, 10, "each event's stored entry and last request, nothing more");
  assert.equal(used.hset, 5);
  // With an expectation left, each event looks for its own.
  await p.expect('ns/web', 'create', ['other']);
  const more = items.map((it, i) => ({
    ...it,
    type: 'MODIFIED' as const,
    object: pod(`p${i}`, String(20 + i), 'Running'),
  }));
  const again = await counted(() => p.foldEach(more));
  assert.equal(again.exists, 1);
  assert.equal(again.hget, 15);
});

test('a DELETED in the middle of a burst: the index and the TTLs as one fold per event leaves them', async () => {
  const one = await projection();
  const each = await projection();
  const items: (FoldItem & { epoch: number })[] = [
    { key: 'ns/web', kind: 'podset', type: 'ADDED', object: podset('1'), epoch: 2 },
    { key: 'ns/web', kind: 'pod', type: 'ADDED', object: pod('a', '2'), epoch: 1 },
    { key: 'ns/web', kind: 'podset', type: 'DELETED', object: podset('3'), epoch: 2 },
    // The pods of a PodSet that is gone still change (their deletion): each such event indexes the key and
    // makes its pods hash persistent again, as one fold per event does.
    { key: 'ns/web', kind: 'pod', type: 'MODIFIED', object: pod('a', '4', 'Running'), epoch: 1 },
    { key: 'ns/gone', kind: 'pod', type: 'ADDED', object: pod('g', '5', 'Pending', 'gone'), epoch: 1 },
    { key: 'ns/gone', kind: 'pod', type: 'DELETED', object: pod('g', '6', 'Pending', 'gone'), epoch: 1 },
  ];
  for (const it of items)
    if (it.kind === 'pod') await one.foldPod(it.key, it.type, it.object as ProjectedPod, it.epoch);
    else await one.foldPodSet(it.key, it.type, it.object as ProjectedPodSet, it.epoch);
  await each.foldEach(items);
  const state = async (p: Projection) => ({
    index: (await client.smembers(p.indexKey)).sort(),
    ...Object.fromEntries(
      await Promise.all(
        ['ns/web', 'ns/gone'].map(async (key) => {
          const k = p.keys(key);
          const pods = await client.hgetall(k.pods);
          return [
            key,
            {
              podsTtl: Math.sign(await client.pttl(k.pods)),
              podsetTtl: Math.sign(await client.pttl(k.podset)),
              pods: Object.fromEntries(Object.entries(pods).map(([f, v]) => [f, v.replace(/\n\d+$/, '\n')])),
            },
          ];
        }),
      ),
    ),
  });
  const expected = await state(one);
  assert.deepEqual(await state(each), expected);
  assert.ok(expected.index.includes('ns/web'), 'the case indexes a key again after its DELETED');
  assert.equal(expected['ns/web']?.podsTtl, -1, 'and makes its pods hash persistent again');
});

test('the owed-key hook: asked once per key and kind of owed answer, with its arguments; its answers handed back', async () => {
  // A stand-in hook that logs its calls and settles a key named "…settled" (saying how: "as-asked"), hints
  // for one named "…hinted"; an answer of true (not a string) settles nothing.
  const hook = `local function onOwedKey(a, b, key, statusOnly, now)
  redis.call('RPUSH', 'hook-calls', a .. '|' .. b .. '|' .. key .. '|' .. tostring(statusOnly))
  if key == 'ns/settled' then return 'as-asked', false end
  return key == 'ns/true', key == 'ns/hinted'
end`;
  const p = await projection(hook, ['first', 'second']);
  const item = (key: string, name: string, rv: string, phase = 'Pending'): FoldItem & { epoch: number } => ({
    key,
    kind: 'pod',
    type: 'ADDED',
    object: pod(name, rv, phase, key.slice(3)),
    epoch: 1,
  });
  const answers = await p.foldEach([
    item('ns/hinted', 'a', '1'),
    item('ns/hinted', 'b', '2'),
    item('ns/settled', 'c', '3'),
    item('ns/plain', 'd', '4'),
    item('ns/true', 'e', '5'),
  ]);
  assert.deepEqual(
    answers.map((a) => [a.owed, a.settled, a.hint === true]),
    [
      [true, undefined, true],
      [true, undefined, true],
      [false, 'as-asked', false],
      [true, undefined, false],
      [true, undefined, false],
    ],
  );
  assert.deepEqual(await client.lrange('hook-calls', 0, -1), [
    'first|second|ns/hinted|false',
    'first|second|ns/settled|false',
    'first|second|ns/plain|false',
    'first|second|ns/true|false',
  ]);
  // A settled request is recorded as requested in the fold's own call: the same event owes nothing again.
  const [again] = await p.foldEach([item('ns/settled', 'c', '3')]);
  assert.equal(again!.owed, false);
  // No hook: nothing settled, nothing hinted.
  const q = await projection();
  const [own] = await q.foldEach([item('ns/web', 'a', '1')]);
  assert.deepEqual([own!.owed, own!.settled, own!.hint], [true, undefined, undefined]);
});
