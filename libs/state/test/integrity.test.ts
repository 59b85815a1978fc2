// The projection's integrity tags: the tag of an entry checks only with its key (or the previous key
// during a rotation) and only for the very entry it was made for — any field changed fails it; on a real
// Redis, read() refuses a tampered entry, an entry moved to another key, and a PodSet whose namespace
// is not its key's, and keeps every other.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { test } from 'node:test';
import { useRedis } from '@podset/testkit';
import { EntryTags, type TaggedEntry } from '../src/integrity.ts';
import type { ProjectedPodSet } from '../src/projection.ts';
import { ProjectionPair as Projection } from './support/projection-pair.ts';

const KEY = 'k'.repeat(32);
const OTHER = 'o'.repeat(32);
const entry: TaggedEntry = { kind: 'podset', key: 'ns/web', field: '@ps', rv: '42', payload: '{"spec":1}' };

test('a tag checks with its key and for its entry only: any field changed, or another key, fails it', () => {
  const tags = new EntryTags({ current: KEY });
  const tag = tags.tag(entry);
  assert.equal(tag.length, 22, '128 bits, base64url');
  assert.ok(tags.verify(entry, tag));
  const changed: TaggedEntry[] = [
    { ...entry, kind: 'pod' },
    { ...entry, key: 'ns/web2' },
    { ...entry, key: 'other/web' },
    { ...entry, field: 'web-1' },
    { ...entry, rv: '41' },
    { ...entry, payload: '{"spec":2}' },
    { ...entry, payload: '' },
    // The separators are part of what is tagged: moving a character across one changes the tag.
    { ...entry, key: 'ns/web\0@ps', field: '' },
  ];
  for (const e of changed) assert.equal(tags.verify(e, tag), false, JSON.stringify(e));
  assert.equal(new EntryTags({ current: OTHER }).verify(entry, tag), false, 'another key');
  for (const bad of [
    '',
    'x',
    `${tag}A`,
    tag.slice(1),
    `${tag.slice(0, -1)}${tag.at(-1) === 'A' ? 'B' : 'A'}`,
  ]) {
    assert.equal(tags.verify(entry, bad), false, `tag ${JSON.stringify(bad)}`);
  }
});

test('the keys are imported once: no tag is made or checked with a string key, and the tags are the same', () => {
  const tags = new EntryTags({ current: KEY, previous: OTHER });
  const keyTypes: string[] = [];
  const real = crypto.createHmac;
  crypto.createHmac = ((...a: Parameters<typeof crypto.createHmac>) => {
    keyTypes.push(typeof a[1] === 'string' ? 'string' : 'imported');
    return real(...a);
  }) as typeof crypto.createHmac;
  syncBuiltinESMExports();
  let tag: string;
  try {
    tag = tags.tag(entry);
    assert.ok(tags.verify(entry, tag));
    assert.ok(tags.verify(entry, new EntryTags({ current: OTHER }).tag(entry)), 'the previous key');
  } finally {
    crypto.createHmac = real;
    syncBuiltinESMExports();
  }
  assert.deepEqual(keyTypes, ['imported', 'imported', 'imported', 'imported', 'imported']);
  // The HMAC of the key's UTF-8 bytes, as a string key gave it: tags made before still check.
  const made = real('sha256', KEY).update('podset\0ns/web\0@ps\x0042\0').update(entry.payload).digest();
  assert.equal(tag, made.subarray(0, 16).toString('base64url'));
});

test('during a rotation the previous key is accepted; tags are made with the current one', () => {
  const old = new EntryTags({ current: OTHER });
  const rotating = new EntryTags({ current: KEY, previous: OTHER });
  assert.ok(rotating.verify(entry, old.tag(entry)), "the previous key's tag");
  assert.ok(new EntryTags({ current: KEY }).verify(entry, rotating.tag(entry)), 'made with the current key');
  assert.equal(old.verify(entry, rotating.tag(entry)), false);
});

test('a key shorter than 32 characters is refused, naming which', () => {
  assert.throws(
    () => new EntryTags({ current: 'short' }),
    /current projection key is 5 characters, at least 32/,
  );
  assert.throws(
    () => new EntryTags({ current: KEY, previous: 'x' }),
    /previous projection key is 1 characters/,
  );
});

const redis = useRedis();
const client = redis.client;
let n = 0;

function podset(name: string, namespace = 'ns'): ProjectedPodSet {
  return {
    metadata: { name, namespace, uid: `${name}-uid`, resourceVersion: '10', generation: 1 },
    spec: { replicas: 2 },
  };
}

async function tagged(): Promise<Projection> {
  const p = new Projection({
    client,
    prefix: '{podset}',
    queueName: `tags-${++n}`,
    tags: new EntryTags({ current: KEY }),
  });
  await p.markReady();
  await p.foldPodSet('ns/web', 'ADDED', podset('web'), 1);
  await p.foldPod('ns/web', 'ADDED', { metadata: { name: 'web-a', uid: 'a', resourceVersion: '11' } }, 1);
  await p.foldPod('ns/web', 'ADDED', { metadata: { name: 'web-b', uid: 'b', resourceVersion: '12' } }, 1);
  return p;
}

test('read() returns tagged entries as folded and refuses tampered ones, leaving them out', async () => {
  const p = await tagged();
  const clean = await p.read('ns/web');
  assert.deepEqual(clean?.refused, []);
  assert.equal(clean?.podset?.metadata.uid, 'web-uid');
  assert.deepEqual(clean?.pods.map((x) => x.metadata.name).sort(), ['web-a', 'web-b']);

  const k = p.keys('ns/web');
  const stored = (await client.get(k.podset))!;
  await client.set(k.podset, stored.replace('"replicas":2', '"replicas":9'));
  const a = (await client.hget(k.pods, 'web-a'))!;
  await client.hset(k.pods, 'web-a', a.replace('\ta\t', '\tz\t'));
  // A valid entry of one pod stored under another name.
  await client.hset(k.pods, 'web-c', (await client.hget(k.pods, 'web-b'))!);
  const state = await p.read('ns/web');
  assert.deepEqual(state?.refused.map((r) => `${r.kind} ${r.field} ${r.reason}`).sort(), [
    'pod web-a tag',
    'pod web-c tag',
    'podset @ps tag',
  ]);
  assert.equal(state?.podset, undefined);
  assert.deepEqual(
    state?.pods.map((x) => x.metadata.name),
    ['web-b'],
    'the untouched entry is kept',
  );
});

test("read() refuses a valid entry moved to another key, and a PodSet whose namespace/name is not its key's", async () => {
  const p = await tagged();
  const k = p.keys('ns/web');
  const other = p.keys('ns/other');
  await client.set(other.podset, (await client.get(k.podset))!);
  assert.deepEqual((await p.read('ns/other'))?.refused, [{ kind: 'podset', field: '@ps', reason: 'tag' }]);
  // The watcher never folds a PodSet under another key; were it tagged so, read() still refuses it.
  await p.foldPodSet('ns/elsewhere', 'ADDED', podset('web', 'kube-system'), 1);
  const state = await p.read('ns/elsewhere');
  assert.deepEqual(state?.refused, [{ kind: 'podset', field: '@ps', reason: 'key' }]);
  assert.equal(state?.podset, undefined);
});

test('without tags, read() checks no tag (the worker never reads such a projection)', async () => {
  const p = new Projection({ client, prefix: '{podset}', queueName: `untagged-${++n}` });
  await p.markReady();
  await p.foldPodSet('ns/web', 'ADDED', podset('web'), 1);
  assert.deepEqual((await p.read('ns/web'))?.refused, []);
  const withTags = new Projection({
    client,
    prefix: '{podset}',
    queueName: `untagged-${n}`,
    tags: new EntryTags({ current: KEY }),
  });
  assert.deepEqual(
    (await withTags.read('ns/web'))?.refused,
    [{ kind: 'podset', field: '@ps', reason: 'tag' }],
    'an untagged entry fails a check',
  );
});

test('an upgrade from untagged entries: the old ready marker is removed, nothing is read until a relist', async () => {
  const p = new Projection({
    client,
    prefix: '{podset}',
    queueName: `upgrade-${++n}`,
    tags: new EntryTags({ current: KEY }),
  });
  // What a watcher of the version before left: its marker and an untagged entry.
  await client.set(`${p.base}:ready`, 'then');
  await client.set(p.keys('ns/web').podset, `1\t10\t${JSON.stringify(podset('web'))}`);
  await p.retireUntaggedLayout();
  assert.equal(await client.exists(`${p.base}:ready`), 0, 'workers of the version before now read the API');
  assert.equal(await p.isReady(), false, 'the watcher relists');
  assert.equal(await p.read('ns/web'), undefined, 'workers read the API until then');
  await p.foldListed('podset', [{ key: 'ns/web', object: podset('web') }], 2);
  await p.markReady();
  const state = await p.read('ns/web');
  assert.deepEqual(state?.refused, [], 'the relist rewrote the entry, tagged');
  assert.equal(state?.podset?.metadata.uid, 'web-uid');
});
