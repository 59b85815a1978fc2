// The queue's cover rule: whether a request of a key, made now, would make the key's job run no sooner and at
// no higher priority — the request is then covered. A request asks to be due now or after a window (delayMs;
// the watcher's live request of a pod's status alone: STATUS_COLLAPSE_MS) at its priority. It is covered by
// the key's job at that priority or a higher one (a lower number) when that job is
// - waiting: it runs as soon as the request would;
// - delayed, and due no later than now + the window: the request would merge into it with no earlier due
//   time (a delayed job due later is pulled forward by the request: not covered);
// - active, with the next job stored behind it delayed no more than the window (from the active job's
//   end): the request, merged there, would leave it due within the window after that end too.
// The queue is the one owner of the rule and of what it answers: requestAll answers `covered` by it (merge.lua's
// request mode), and a script beside the queue (the watcher's fold of a burst of watch events) runs the same
// Lua, atomically with its own writes, so that an event whose request is covered costs no request at all: its
// `covered` is the answer requestAll would have given. Relies on BullMQ's key layout (libs/redis keyspace.ts:
// the deduplication key names the key's job; prioritized jobs score priority·2^32+counter, delayed ones
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
 * The cover rule (live-cover.lua's jobCovers is its twin; one case table tests both): whether the key's job
 * at `place` covers a request made at `now` asking to be due `windowMs` later (0: at once), at priority
 * `asked` (default a live request's).
 */
export function jobCovers(
  place: CoverPlace,
  now: number,
  windowMs: number,
  asked: number = PRIORITY.live,
): boolean {
  if (place.priority <= 0 || place.priority > asked) return false;
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
 * Lua defining `jobCovers` and `coverAt(jobPrefix, jobId, dnKey, now, windowMs, asked)`, which answers
 * (covered, nothingPending): whether a request of the key whose job is `jobId` is covered, and whether it
 * would find no pending job to merge into (none, or only the active one with no next job). It reads the
 * prioritized and delayed sets, the active list and the stored next job under `jobPrefix` (the queue's, so a
 * script beside the queue must be in its Redis Cluster slot). A script beside the queue asks it through
 * LIVE_REQUEST_LUA (live-request.ts).
 */
export const COVER_RULE_LUA = luaModule('live-cover', new URL('./lua/live-cover.lua', import.meta.url), [
  luaModule('live-priority', `local LIVE_PRIORITY = ${PRIORITY.live}`),
  KEYSPACE_LUA,
]);
