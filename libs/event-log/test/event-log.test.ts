// The event-log contract against real Redis: what the writer appends, the reader returns unchanged, and
// the deleter removes exactly one PodSet's records.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useRedis } from '@podset/testkit';
import { eventLogKeyOf, luaScriptOf, runScript } from '@podset/redis';
import {
  APPEND_RECORDS_LUA,
  EventLog,
  deleteEventsOf,
  parseEventEntry,
  type EventRecord,
  type RecordHead,
} from '../src/index.ts';

const server = useRedis();
const redis = server.client;

const pod: EventRecord = {
  t: '2026-11-24T13:40:21.123Z',
  type: 'MODIFIED',
  kind: 'Pod',
  key: 'default/web',
  name: 'web-abcde',
  rv: '42',
  phase: 'Running',
  ready: 'true',
  owner: '3f1c2a9e-0000-4000-8000-000000000001',
  deleting: 'true',
};
const relist: EventRecord = { t: pod.t, type: 'RELIST', kind: 'Pod', key: '', name: '', rv: '50', n: '3' };
const podSet: EventRecord = {
  t: pod.t,
  type: 'ADDED',
  kind: 'PodSet',
  key: 'default/web',
  name: 'web',
  rv: '7',
};

test('the stream key defaults next to the queue, and EVENT_LOG_KEY overrides it', () => {
  assert.equal(eventLogKeyOf({ QUEUE_PREFIX: 'p', QUEUE_NAME: 'q' }), 'p:q:watcher:events');
  assert.equal(eventLogKeyOf({ QUEUE_PREFIX: 'p', QUEUE_NAME: 'q', EVENT_LOG_KEY: 'x' }), 'x');
});

test('the reader returns what the writer appended, newest first, with its entry id', async () => {
  const log = new EventLog({ redis, key: 'roundtrip' });
  const first = await log.append(pod);
  const second = await log.append(relist);
  assert.deepEqual(await log.recent(10), [
    { id: second, ...relist },
    { id: first, ...pod },
  ]);
});

test('an empty owner (controlled by no PodSet) is kept; an older entry without the field reads without it', async () => {
  const log = new EventLog({ redis, key: 'owner' });
  const stray = await log.append({ ...pod, owner: '' });
  assert.deepEqual(await log.recent(1), [{ id: stray, ...pod, owner: '' }]);
  const { owner: _, ...older } = pod;
  const flat = Object.entries(older).flat();
  const entry = parseEventEntry('1-0', flat);
  assert.deepEqual(entry, { id: '1-0', ...older });
  assert.equal(entry !== undefined && 'owner' in entry, false);
});

test('entries that are not records (BullMQ events sharing a stream) are skipped', async () => {
  assert.equal(parseEventEntry('1-0', ['event', 'added', 'jobId', '7']), undefined);
  assert.equal(parseEventEntry('1-0', ['t', pod.t, 'type', 'ADDED']), undefined);
  await redis.xadd('mixed', '*', 'event', 'completed', 'jobId', '1');
  const log = new EventLog({ redis, key: 'mixed' });
  const id = await log.append(pod);
  assert.deepEqual(await log.recent(10), [{ id, ...pod }]);
});

test('the deleter removes exactly one PodSet key, in chunks', async () => {
  const log = new EventLog({ redis, key: 'forget' });
  for (const key of ['default/web', 'default/web-2', 'default/web', 'other/web', 'default/web']) {
    await log.append({ ...pod, key });
  }
  await log.append(relist);
  assert.deepEqual(await deleteEventsOf(redis, 'forget', 'default/web', 2, 100), {
    deleted: 3,
    truncated: false,
  });
  assert.deepEqual(
    (await log.recent(10)).map((e) => e.key),
    ['', 'other/web', 'default/web-2'],
  );
});

test('appendMany appends a batch in order in one call, the same records append writes one by one', async () => {
  const log = new EventLog({ redis, key: 'test:events:many', maxLen: 1000 });
  const batch = [pod, podSet, { ...pod, rv: '43', deleting: undefined }, relist];
  const ids = await log.appendMany(batch);
  assert.equal(ids.length, 4);
  assert.deepEqual(await log.appendMany([]), []);
  const read = await log.recent(10);
  assert.deepEqual(
    read.map((e) => e.id),
    [...ids].reverse(),
  );
  const { deleting: _, ...third } = { ...pod, rv: '43' };
  assert.deepEqual(read.map(({ id: _id, ...r }) => r).reverse(), [pod, podSet, third, relist]);
});

test('appendMany keeps the log near its cap (trimmed once per batch, approximately, as MAXLEN ~ does)', async () => {
  const log = new EventLog({ redis, key: 'test:events:capped', maxLen: 500 });
  for (let b = 0; b < 30; b++)
    await log.appendMany(Array.from({ length: 100 }, (_, i) => ({ ...pod, rv: String(b * 100 + i) })));
  const length = await redis.xlen('test:events:capped');
  // Approximate trimming removes whole stream nodes (100 entries each by default) only.
  assert.ok(length >= 500 && length <= 700, `3,000 appended, ${length} kept`);
  assert.equal((await log.recent(1))[0]?.rv, '2999', 'the newest kept');
});

test('a batch is trimmed by its last XADD: one command per record, no XTRIM of its own', async () => {
  const log = new EventLog({ redis, key: 'test:events:commands', maxLen: 500 });
  const calls = async (): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const [, name, n] of (await redis.info('commandstats')).matchAll(/cmdstat_(\w+):calls=(\d+)/g))
      out[name!] = Number(n);
    return out;
  };
  for (let b = 0; b < 10; b++) {
    await redis.config('RESETSTAT');
    await log.appendMany(Array.from({ length: 100 }, (_, i) => ({ ...pod, rv: String(b * 100 + i) })));
    const after = await calls();
    assert.equal(after.xadd, 100, 'one XADD per record');
    assert.equal(after.xtrim, undefined, 'no XTRIM');
  }
  const length = await redis.xlen('test:events:commands');
  assert.ok(length >= 500 && length <= 700, `1,000 appended, ${length} kept`);
});

/**
 * A script of another module that appends in its own call: its heads come as its first arguments (type,
 * kind, key, name, rv each), the event log's arguments after them.
 */
const WITH_HEADS = luaScriptOf(
  [
    '-- @include append-records',
    'local h = tonumber(ARGV[1])',
    'local function headOf(j)',
    '  local o = 1 + j * 5',
    '  return ARGV[o + 1], ARGV[o + 2], ARGV[o + 3], ARGV[o + 4], ARGV[o + 5]',
    'end',
    'return appendRecords(KEYS[1], ARGV, 2 + h * 5, headOf)',
  ].join('\n'),
  [APPEND_RECORDS_LUA],
);

test('records that match the appending script’s heads travel short, the others in full; the stream gets each as append writes it', async () => {
  const log = new EventLog({ redis, key: 'test:events:heads', maxLen: 1000 });
  const head = (r: EventRecord): RecordHead => ({
    type: r.type,
    kind: r.kind,
    key: r.key,
    name: r.name,
    rv: r.rv,
  });
  const ready = { ...pod, deleting: undefined, ready: 'false' as const };
  const stray: EventRecord = { t: pod.t, type: 'ADDED', kind: 'Pod', key: '', name: 'x', rv: '8', owner: '' };
  const later = { ...podSet, t: '2026-11-24T13:40:22.000Z', rv: '9' };
  // The stray pod has no head; the later PodSet's time is not the call's; the last head does not match.
  const records = [pod, stray, ready, podSet, later, relist];
  const heads = [head(pod), head(ready), head(podSet), head(later), { ...head(pod), rv: '1' }];
  const args = log.appendArgs(records, heads);
  assert.deepEqual(args.slice(0, 2), ['1000', pod.t]);
  assert.deepEqual(
    args.filter((a) => a.startsWith('+')),
    ['+1111', '+111', '+'],
    'pod, ready and podSet short',
  );
  const flat = heads.slice(0, 4).flatMap((h) => [h.type, h.kind, h.key, h.name, h.rv]);
  const ids = (await runScript(redis, WITH_HEADS, [log.key], ['4', ...flat, ...args])) as string[];
  assert.equal(ids.length, records.length);
  const fieldsOf = (r: EventRecord) =>
    Object.entries(r).flatMap(([k, v]) => (v === undefined ? [] : [k, String(v)]));
  const read = await redis.xrange(log.key, '-', '+');
  assert.deepEqual(
    read.map(([, f]) => f),
    records.map(fieldsOf),
  );
});
