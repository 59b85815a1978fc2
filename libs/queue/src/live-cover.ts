// Whether a live reconcile request of a key, made now, would make its job run no sooner: the request is
// then covered. The request asks to be due now (a change a plan reads) or after a window (a pod's status
// alone: STATUS_COLLAPSE_MS). It is covered by the key's job at live priority when that job is
// - waiting: it runs as soon as a live request would;
// - delayed, and due no later than now + the window: the request would merge into it with no earlier due
//   time (a delayed job due later is pulled forward by the request: not covered);
// - active, with the next job stored behind it delayed no more than the window (from the active job's
//   end): the request, merged there, would leave it due within the window after that end too.
// A worker that takes that job starts after the event was folded, so it reads the event's state. The
// watcher's fold of a burst of watch events asks this inside the same script (atomically with the fold),
// so such an event costs no request at all. Relies on BullMQ's key layout (libs/redis keyspace.ts: the
// deduplication key names the key's job; prioritized jobs score priority·2^32+counter, delayed ones
// due·2^12+counter); the script gets those key names from there (KEYSPACE_LUA).
import { KEYSPACE_LUA, luaModule } from '@podset/redis';
import { PRIORITY } from './options.ts';

/** Where a key's job is, as the cover rule reads it. */
export type CoverPlace =
  /** Waiting (prioritized). */
  | { where: 'waiting'; priority: number }
  /** Delayed, due at `dueAt` (epoch ms). */
  | { where: 'delayed'; priority: number; dueAt: number }
  /** Stored behind the active job, due `delayMs` after that job ends. */
  | { where: 'next'; priority: number; delayMs: number };

/**
 * The cover rule (live-cover.lua's coversLive is its twin; one case table tests both): whether the key's
 * job at `place` covers a live request made at `now` asking to be due `windowMs` later (0: at once).
 */
export function liveCovers(place: CoverPlace, now: number, windowMs: number): boolean {
  if (place.priority <= 0 || place.priority > PRIORITY.live) return false;
  switch (place.where) {
    case 'waiting':
      return true;
    case 'delayed':
      return place.dueAt <= now + windowMs;
    case 'next':
      return place.delayMs <= windowMs;
  }
}

/**
 * Lua defining `coversLive` and `liveRequestCovered(jobPrefix, key, now, windowMs)`. The latter reads the
 * deduplication key, the prioritized and delayed sets, the active list and the stored next job under
 * `jobPrefix` (the queue's, so in the same Redis Cluster slot as the projection beside it).
 */
export const LIVE_COVER_LUA = luaModule('live-cover', new URL('./lua/live-cover.lua', import.meta.url), [
  luaModule('live-priority', `local LIVE_PRIORITY = ${PRIORITY.live}`),
  KEYSPACE_LUA,
]);
