// The event-log contract against real Redis: what the writer appends, the reader returns unchanged, and
// the deleter removes exactly one PodSet's records.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useRedis } from '@podset/testkit';
import { eventLogKeyOf, luaScriptOf, runScript } from '@podset/redis';
import {
  APPEND_RECORDS_LUA,
  EventLog,
  MAX_RECORDS_PER_ENTRY,
  deleteEventsOf,
  parseEventEntries,
  type EventRecord,
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
  const [entry, ...none] = parseEventEntries('1-0', flat);
  assert.deepEqual(entry, { id: '1-0', ...older });
  assert.deepEqual(none, []);
  assert.equal(entry !== undefined && 'owner' in entry, false);
});

test('entries that are not records (BullMQ events sharing a stream) are skipped', async () => {
  assert.deepEqual(parseEventEntries('1-0', ['event', 'added', 'jobId', '7']), []);
  assert.deepEqual(parseEventEntries('1-0', ['t', pod.t, 'type', 'ADDED']), []);
  assert.deepEqual(parseEventEntries('1-0', ['t', pod.t, 'key', 'a/b', 'records', '{not json']), []);
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
  // A key each: an entry each (the cap counts entries).
  for (let b = 0; b < 30; b++)
    await log.appendMany(
      Array.from({ length: 100 }, (_, i) => ({ ...pod, key: `default/web-${i}`, rv: String(b * 100 + i) })),
    );
  const length = await redis.xlen('test:events:capped');
  // Approximate trimming removes whole stream nodes (100 entries each by default) only.
  assert.ok(length >= 500 && length <= 700, `3,000 appended, ${length} kept`);
  assert.equal((await log.recent(1))[0]?.rv, '2999', 'the newest kept');
});

test('a batch is one XADD per run of one key’s records, trimmed by its last: no XTRIM of its own', async () => {
  const log = new EventLog({ redis, key: 'test:events:commands', maxLen: 50 });
  const calls = async (): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const [, name, n] of (await redis.info('commandstats')).matchAll(/cmdstat_(\w+):calls=(\d+)/g))
      out[name!] = Number(n);
    return out;
  };
  for (let b = 0; b < 10; b++) {
    await redis.config('RESETSTAT');
    // Twenty keys, five records of each in a row.
    await log.appendMany(
      Array.from({ length: 100 }, (_, i) => ({
        ...pod,
        key: `default/web-${Math.floor(i / 5)}`,
        rv: String(b * 100 + i),
      })),
    );
    const after = await calls();
    assert.equal(after.xadd, 20, 'one XADD per run');
    assert.equal(after.xtrim, undefined, 'no XTRIM');
  }
  const length = await redis.xlen('test:events:commands');
  assert.ok(length >= 50 && length <= 150, `200 entries appended, ${length} kept`);
});

test('a run of one key’s records is one entry; the reader gives back each record, newest first, among single-record entries', async () => {
  const log = new EventLog({ redis, key: 'test:events:runs', maxLen: 1000 });
  const older = await log.append({ ...pod, rv: '1' });
  const ready = { ...pod, deleting: undefined, ready: 'false' as const };
  const stray: EventRecord = { t: pod.t, type: 'ADDED', kind: 'Pod', key: '', name: 'x', rv: '8', owner: '' };
  const later = { ...podSet, t: '2026-11-24T13:40:22.000Z', rv: '9' };
  // pod, ready and podSet share a time and a key; the stray has none; the later PodSet another time.
  const records = [pod, ready, podSet, stray, later, { ...pod, phase: 'tab\tand "quotes"' }];
  const ids = await log.appendMany(records);
  assert.equal(new Set(ids).size, 4, 'four entries');
  assert.deepEqual(ids.slice(0, 3), [ids[0], ids[0], ids[0]]);
  assert.equal(await redis.xlen(log.key), 5);
  const clean = (r: EventRecord): EventRecord =>
    Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as EventRecord;
  assert.deepEqual(
    await log.recent(10),
    [{ id: older, ...pod, rv: '1' }, ...records.map((r, i) => ({ id: ids[i]!, ...clean(r) }))].reverse(),
  );
  assert.deepEqual(
    (await log.recent(2)).map((r) => r.rv),
    ['42', '9'],
    'the newest records, however many an entry holds',
  );
  // The deleter removes the run's entry with its key's others (the older one, the later PodSet's, the last).
  assert.deepEqual(await deleteEventsOf(redis, log.key, 'default/web', 10, 100), {
    deleted: 4,
    truncated: false,
  });
  assert.deepEqual(
    (await log.recent(10)).map((r) => r.rv),
    ['8'],
  );
});

/** A script of another module that appends in its own call: its own arguments first, the event log's after. */
const APPENDS_AFTER = luaScriptOf(
  ['-- @include append-records', 'return appendRecords(KEYS[1], ARGV, 2 + tonumber(ARGV[1]))'].join('\n'),
  [APPEND_RECORDS_LUA],
);

test('a script of another module appends the entries appendMany would', async () => {
  const log = new EventLog({ redis, key: 'test:events:other', maxLen: 1000 });
  const records = [pod, podSet, relist];
  const args = log.appendArgs(records);
  const ids = (await runScript(redis, APPENDS_AFTER, [log.key], ['2', 'a', 'b', ...args])) as string[];
  assert.equal(ids.length, 2);
  const { id: _, ...first } = (await log.recent(10)).at(-1)!;
  assert.deepEqual(first, pod);
  assert.deepEqual((await log.recent(10)).map(({ id: _id, ...r }) => r).reverse(), records);
});

test('an entry holds at most MAX_RECORDS_PER_ENTRY records: a longer run is several', async () => {
  const log = new EventLog({ redis, key: 'test:events:long', maxLen: 1000 });
  const records = Array.from({ length: 2 * MAX_RECORDS_PER_ENTRY + 1 }, (_, i) => ({
    ...pod,
    rv: String(i),
  }));
  const ids = await log.appendMany(records);
  assert.equal(await redis.xlen(log.key), 3);
  assert.equal(new Set(ids).size, 3);
  assert.deepEqual(
    (await log.recent(100)).map((r) => r.rv),
    records.map((r) => r.rv).reverse(),
  );
});
