// The cover rule, one case table for both twins: jobCovers (TypeScript) and jobCovers in live-cover.lua (the
// Lua the queue's request and the watcher's fold run), evaluated by real Redis.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveLua } from '@podset/redis';
import { useRedis } from '@podset/testkit';
import { COVER_RULE_LUA, jobCovers, LIVE_REQUEST_LUA, PRIORITY, type CoverPlace } from '../src/index.ts';

const server = useRedis();
const NOW = 1_800_000_000_000;
const WINDOW = 250;
const live = PRIORITY.live;
const bulk = PRIORITY.bulk;

// [name, where the key's job is, the request's window (0: a plan change, due at once), covered?] (a live request)
const CASES: [string, CoverPlace, number, boolean][] = [
  ['waiting, live: a plan change', { where: 'waiting', priority: live }, 0, true],
  ['waiting, live: a status-only change', { where: 'waiting', priority: live }, WINDOW, true],
  ['waiting, bulk: a live request raises it', { where: 'waiting', priority: bulk }, WINDOW, false],
  ['waiting, no priority (not ours)', { where: 'waiting', priority: 0 }, 0, false],
  [
    'delayed, due within the window: status-only',
    { where: 'delayed', priority: live, dueAt: NOW + 200 },
    WINDOW,
    true,
  ],
  [
    'delayed, due at the window end: status-only',
    { where: 'delayed', priority: live, dueAt: NOW + WINDOW },
    WINDOW,
    true,
  ],
  [
    'delayed, due past the window (requeue-after)',
    { where: 'delayed', priority: live, dueAt: NOW + 5000 },
    WINDOW,
    false,
  ],
  [
    'delayed, due within the window: a plan change pulls it to now',
    { where: 'delayed', priority: live, dueAt: NOW + 200 },
    0,
    false,
  ],
  ['delayed, already due: a plan change', { where: 'delayed', priority: live, dueAt: NOW }, 0, true],
  [
    'delayed, bulk, due within the window',
    { where: 'delayed', priority: bulk, dueAt: NOW + 100 },
    WINDOW,
    false,
  ],
  [
    'next behind the active job, no delay: a plan change',
    { where: 'next', priority: live, delayMs: 0 },
    0,
    true,
  ],
  [
    'next, delayed within the window: status-only',
    { where: 'next', priority: live, delayMs: WINDOW },
    WINDOW,
    true,
  ],
  [
    'next, delayed within the window: a plan change',
    { where: 'next', priority: live, delayMs: 100 },
    0,
    false,
  ],
  ['next, delayed past the window', { where: 'next', priority: live, delayMs: 60_000 }, WINDOW, false],
  ['next, bulk', { where: 'next', priority: bulk, delayMs: 0 }, 0, false],
];

// A bulk request: a job at bulk priority or higher covers it.
const BULK_CASES: [string, CoverPlace, number, boolean][] = [
  ['waiting, bulk', { where: 'waiting', priority: bulk }, 0, true],
  ['waiting, live', { where: 'waiting', priority: live }, 0, true],
  ['delayed past the request, bulk', { where: 'delayed', priority: bulk, dueAt: NOW + 100 }, 0, false],
  ['next, bulk, no delay', { where: 'next', priority: bulk, delayMs: 0 }, 0, true],
];

async function lua(place: CoverPlace, windowMs: number, asked: number): Promise<boolean> {
  const due = place.where === 'delayed' ? place.dueAt : place.where === 'next' ? place.delayMs : 0;
  const script = `-- @include live-cover
local a = {}
for i = 2, 6 do a[i] = tonumber(ARGV[i]) end
if jobCovers(ARGV[1], a[2], a[3], a[4], a[5], a[6]) then return 1 end
return 0`;
  const args = [place.where, place.priority, due, NOW, windowMs, asked].map(String);
  return (await server.client.eval(resolveLua(script, [COVER_RULE_LUA]), 0, ...args)) === 1;
}

test('the cover rule: the Lua twin agrees with jobCovers, and both with the table', async () => {
  for (const [name, place, windowMs, covered] of CASES) {
    assert.equal(jobCovers(place, NOW, windowMs), covered, `${name} (TypeScript)`);
    assert.equal(await lua(place, windowMs, live), covered, `${name} (Lua)`);
  }
  for (const [name, place, windowMs, covered] of BULK_CASES) {
    assert.equal(jobCovers(place, NOW, windowMs, bulk), covered, `${name} (TypeScript, bulk)`);
    assert.equal(await lua(place, windowMs, bulk), covered, `${name} (Lua, bulk)`);
  }
});

test('liveRequestSettled (no merge) answers, second, whether a request would find no pending job to merge into', async () => {
  const script = `-- @include live-request
local covered, nothingPending = liveRequestSettled(ARGV[1], ARGV[2], tonumber(ARGV[3]), 0, false)
return {covered and 1 or 0, nothingPending and 1 or 0}`;
  const run = async (key: string) =>
    await server.client.eval(resolveLua(script, [LIVE_REQUEST_LUA]), 0, '{nojob}:q:', key, String(NOW));
  const c = server.client;
  assert.deepEqual(await run('ns/none'), [0, 1], 'no job at all');
  // Its job active, nothing stored behind it: the request's merge would answer "active".
  await c.set('{nojob}:q:de:ns/active', '7');
  await c.rpush('{nojob}:q:active', '7');
  assert.deepEqual(await run('ns/active'), [0, 1], 'only the active job');
  // A next job stored behind the active one (a bulk one here: not covered) takes the request's merge.
  await c.set('{nojob}:q:de:ns/next', '8');
  await c.rpush('{nojob}:q:active', '8');
  await c.hset('{nojob}:q:dn:ns/next', 'jid', '9', 'opts', JSON.stringify({ priority: bulk, delay: 0 }));
  assert.deepEqual(await run('ns/next'), [0, 0], 'a next job stored');
  // Waiting (bulk: not covered): the merge would merge into it.
  await c.set('{nojob}:q:de:ns/waiting', '10');
  await c.zadd('{nojob}:q:prioritized', bulk * 0x100000000, '10');
  assert.deepEqual(await run('ns/waiting'), [0, 0], 'a waiting job');
  // A deduplication id whose job is in no list (finished): no hint, the request's merge finds out.
  await c.set('{nojob}:q:de:ns/stale', '11');
  assert.deepEqual(await run('ns/stale'), [0, 0], 'a job in no list');
});
