// A live request settled by a script beside the queue in its own call (the watcher's fold): covered by the
// key's job, or merged into its pending job as a request would be, so that the event costs no request of its
// own. The queue owns both rules (live-cover.ts, merge-job.lua); the script that runs them only asks.
import { luaModule } from '@podset/redis';
import { MERGE_JOB_LUA } from './merge-script.ts';

/**
 * Lua defining `liveRequestSettled(jobPrefix, key, now, windowMs, merge)`, answering (settled, nothingPending):
 * settled is 'covered' (the key's job covers the request), 'merged' (with `merge`: merged into the key's
 * pending job, which may move earlier or rise in priority) or false (request it); nothingPending: the
 * request would find no pending job to merge into (none, or only the active one with no next job). It reads
 * and (merging) writes the queue's keys under `jobPrefix`: a script that runs it must be in the queue's Redis
 * Cluster slot.
 */
export const LIVE_REQUEST_LUA = luaModule(
  'live-request',
  new URL('./lua/live-request.lua', import.meta.url),
  [MERGE_JOB_LUA],
);
