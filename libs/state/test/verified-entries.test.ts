// The reader's memory of entries it already checked: an entry read again unchanged is neither checked nor
// decoded again; any change of it (a new version, a forged payload, a valid entry under another field)
// is checked as the first time, and a refused entry is never remembered.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useRedis } from '@podset/testkit';
import { EntryTags, type TaggedEntry } from '../src/integrity.ts';
import { VerifiedEntries } from '../src/verified-entries.ts';
import { ProjectionPair as Projection } from './support/projection-pair.ts';

const KEY = 'k'.repeat(32);

/** EntryTags that count the entries they check, by field. */
class CountingTags extends EntryTags {
  readonly checked: string[] = [];
  override verify(e: TaggedEntry, tag: string): boolean {
    this.checked.push(e.field);
    return super.verify(e, tag);
  }
}

const redis = useRedis();
const client = redis.client;
let n = 0;

async function projection(tags: EntryTags): Promise<Projection> {
  const p = new Projection({ client, prefix: '{podset}', queueName: `verified-${++n}`, tags });
  await p.markReady();
  await p.foldPodSet(
    'ns/web',
    'ADDED',
    { metadata: { name: 'web', namespace: 'ns', uid: 'u', resourceVersion: '10', generation: 1 } },
    1,
  );
  for (const [name, rv] of [
    ['web-a', '11'],
    ['web-b', '12'],
  ] as const) {
    await p.foldPod('ns/web', 'ADDED', { metadata: { name, uid: name, resourceVersion: rv } }, 1);
  }
  return p;
}

test('an unchanged entry is not checked again; a changed, forged or moved one is, and a refused one stays refused', async () => {
  const tags = new CountingTags({ current: KEY });
  const p = await projection(tags);
  const first = await p.read('ns/web');
  assert.deepEqual(tags.checked.sort(), ['@ps', 'web-a', 'web-b']);

  tags.checked.length = 0;
  const again = await p.read('ns/web');
  assert.deepEqual(tags.checked, [], 'nothing changed: nothing checked');
  assert.deepEqual(again, first, 'and the same state');
  assert.ok(Object.isFrozen(again?.pods[0]?.metadata), 'what is handed out again cannot be changed');

  // A new version of one pod: that one is checked.
  await p.foldPod(
    'ns/web',
    'MODIFIED',
    { metadata: { name: 'web-a', uid: 'web-a', resourceVersion: '13' } },
    1,
  );
  await p.read('ns/web');
  assert.deepEqual(tags.checked, ['web-a']);

  // A forged payload under a valid tag, and a valid entry stored under another name: both checked, refused.
  tags.checked.length = 0;
  const k = p.keys('ns/web');
  const b = (await client.hget(k.pods, 'web-b'))!;
  await client.hset(k.pods, 'web-b', b.replace('\tweb-b\t', '\tforged\t'));
  await client.hset(k.pods, 'web-c', b);
  const forged = await p.read('ns/web');
  assert.deepEqual(tags.checked.sort(), ['web-b', 'web-c']);
  assert.deepEqual(forged?.refused.map((r) => r.field).sort(), ['web-b', 'web-c']);

  // Read again: still checked (a refused entry is never remembered), still refused.
  tags.checked.length = 0;
  const still = await p.read('ns/web');
  assert.deepEqual(tags.checked.sort(), ['web-b', 'web-c']);
  assert.deepEqual(still?.refused.map((r) => r.field).sort(), ['web-b', 'web-c']);

  // The genuine entry put back: checked once more, then remembered again.
  await client.hset(k.pods, 'web-b', b);
  await client.hdel(k.pods, 'web-c');
  tags.checked.length = 0;
  assert.deepEqual((await p.read('ns/web'))?.refused, []);
  assert.deepEqual(tags.checked, ['web-b']);
});

test('a forged PodSet entry is checked even right after the genuine one was read', async () => {
  const tags = new CountingTags({ current: KEY });
  const p = await projection(tags);
  await p.read('ns/web');
  const k = p.keys('ns/web');
  const stored = (await client.get(k.podset))!;
  await client.set(k.podset, stored.replace('"generation":1', '"generation":2'));
  tags.checked.length = 0;
  const state = await p.read('ns/web');
  assert.deepEqual(tags.checked, ['@ps']);
  assert.deepEqual(state?.refused, [{ kind: 'podset', field: '@ps', reason: 'tag' }]);
  assert.equal(state?.podset, undefined);
});

test('forget drops what was remembered of a key; at most maxEntries entries, the keys least recently read go first', () => {
  const v = new VerifiedEntries<{ x: number }>(2);
  for (const key of ['a', 'b']) {
    const r = v.read(key);
    r.keep('f', 'text', { x: 1 });
    r.done();
  }
  const touch = v.read('a');
  assert.deepEqual(touch.lookup('f', 'text'), { x: 1 });
  assert.equal(touch.lookup('f', 'other text'), undefined, 'another text is not what was checked');
  touch.done();
  const c = v.read('c');
  c.keep('f', 'text', { x: 3 });
  c.done();
  assert.equal(v.size, 2);
  assert.equal(v.read('b').lookup('f', 'text'), undefined, 'b, the least recently read, went');
  assert.deepEqual(v.read('a').lookup('f', 'text'), { x: 1 });
  v.forget('a');
  assert.equal(v.read('a').lookup('f', 'text'), undefined);
  assert.equal(v.size, 1);
});
