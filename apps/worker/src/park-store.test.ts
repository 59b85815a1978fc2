import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RedisClient } from '@podset/redis';
import type { OutOfBounds } from './out-of-bounds.ts';
import { parkedOutOfBounds, parseParked, redisParkStore } from './park-store.ts';

const NOW = Date.UTC(2026, 11, 1);
const RETRY = 300_000;

test('a park record within the parked retry is read; one further ahead, or not a record, is out of bounds', () => {
  const ok = { uid: 'u', generation: 3, until: NOW + RETRY };
  assert.deepEqual(parkedOutOfBounds(JSON.stringify(ok), NOW, RETRY), { parked: ok });
  for (const [what, text] of [
    ['until in 2100', JSON.stringify({ ...ok, until: Date.UTC(2100, 0, 1) })],
    ['until 9e15 (past what a Date holds)', JSON.stringify({ ...ok, until: 9e15 })],
    ['until one ms past the bound', JSON.stringify({ ...ok, until: NOW + RETRY + 1 })],
    ['until NaN', '{"generation":1,"until":NaN}'],
    ['until 1e400 (Infinity)', '{"generation":1,"until":1e400}'],
    ['until a string', JSON.stringify({ ...ok, until: '2100-01-01' })],
    ['until a fraction', JSON.stringify({ ...ok, until: NOW + 0.5 })],
    ['generation negative', JSON.stringify({ ...ok, generation: -1 })],
    ['not JSON', 'parked'],
    ['JSON null', 'null'],
  ] as const) {
    const out = parkedOutOfBounds(text, NOW, RETRY);
    assert.equal(out.parked, undefined, what);
    assert.match(out.why ?? '', /./, `${what}: a reason`);
  }
});

test('parseParked keeps a record written before the uid was kept', () => {
  assert.deepEqual(parseParked('{"generation":2,"until":5}'), { generation: 2, until: 5 });
  assert.equal(parseParked(null), undefined);
});

/** A Redis stand-in holding one string per key (the park store uses get, set and del). */
function stringStore(values: Record<string, string>): RedisClient {
  return { get: (key: string) => Promise.resolve(values[key] ?? null) } as unknown as RedisClient;
}

test('the Redis park store reports a record out of bounds by its key and reads it as not parked', async () => {
  const reports: OutOfBounds[] = [];
  const store = redisParkStore(
    stringStore({
      'p:ns/far': JSON.stringify({ generation: 1, until: 9e15 }),
      'p:ns/near': JSON.stringify({ generation: 1, until: NOW + 1000 }),
    }),
    { prefix: 'p:', maxAheadMs: RETRY, clock: { now: () => NOW }, outOfBounds: (r) => reports.push(r) },
  );
  assert.equal(await store.get('ns/far'), undefined);
  assert.deepEqual(await store.get('ns/near'), { generation: 1, until: NOW + 1000 });
  assert.equal(await store.get('ns/none'), undefined);
  assert.deepEqual(
    reports.map((r) => [r.what, r.key]),
    [['park', 'ns/far']],
  );
  assert.ok(!JSON.stringify(reports).includes('9000000000000000'), 'the value itself is not reported');
});
