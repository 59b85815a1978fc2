// Whether a live reconcile request of a key, made now, would change nothing in the queue: the key's job is
// waiting (not delayed) at live priority, or it is active and the next job stored behind it asks for no
// delay at live priority. Then the worker that takes that job starts after the request would have been
// made, and runs as soon as a live request would: the request is covered. (A delayed job is never covered:
// a live request pulls it forward.) The
// watcher's fold of a burst of watch events asks this inside the same script (atomically with the fold),
// so an event whose key is already waiting costs no request at all. Relies on BullMQ's key layout
// (libs/redis keyspace.ts: the deduplication key names the key's job; prioritized jobs score
// priority·2^32+counter); the script gets those key names from there (KEYSPACE_LUA).
import { KEYSPACE_LUA, readLua } from '@podset/redis';
import { PRIORITY } from './options.ts';

/**
 * Lua defining `liveRequestCovered(jobPrefix, key)`. It reads the deduplication key, the prioritized set,
 * the active list and the stored next job under `jobPrefix` (the queue's, so in the same Redis Cluster slot as the projection beside it).
 */
export const LIVE_COVER_LUA = [
  `local LIVE_PRIORITY = ${PRIORITY.live}`,
  KEYSPACE_LUA,
  readLua(new URL('./lua/live-cover.lua', import.meta.url)),
].join('\n');
