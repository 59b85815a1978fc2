// The fold of a batch and the queue's live request, composed: the projection's writer (libs/state) takes a
// generic owed-key hook, and the queue (libs/queue) owns the rules that say when a request is covered by the
// key's job and how it merges into it; neither knows the other, so they meet here. The hook runs the queue's
// rules inside the fold's own Redis call: an event whose request the key's job covers, or whose request
// merges into the key's pending job (with `merge`), is recorded as requested with its fold and requests
// nothing — it costs no round trip of its own, and its answer is the one requestAll would have given
// (`covered`, `merged`). Only a request that would create the key's job, or find it active, is left to
// requestAll. The rules' second answer, no pending job to merge into, is handed back as the request's `noJob`
// hint. The script loader builds the same writers (foldScripts), so it loads these scripts.
import { jobPrefixOf, LIVE_REQUEST_LUA } from '@podset/queue';
import { luaModule, type LuaModule, type RedisClient } from '@podset/redis';
import { ProjectionWriter, type EntryTags, type Fold, type OwedKeyHook } from '@podset/state';
import { APPEND_RECORDS_LUA } from './event-log.ts';
import type { Admission, BatchWindows } from './change-gate.ts';

/**
 * onOwedKey(jobPrefix, statusWindows, …): a status-only change's request would be due its key's window later.
 * `statusWindows` (statusWindowsArg) carries the call's default window and the keys whose window differs:
 * one argument per call, none per event. statusWindowIn is its TypeScript twin. With `merge`, a request the
 * key's job does not cover is merged into its pending job here; without, it is left to requestAll.
 */
function queueHookLua(merge: boolean): LuaModule {
  return luaModule(
    'owed-key',
    `-- @include live-request
local function statusWindowOf(windows, key)
  local at = string.find(windows, '\\n' .. key .. '\\t', 1, true)
  if at then return tonumber(string.match(windows, '^%d+', at + #key + 2)) end
  return tonumber(string.match(windows, '^%d+'))
end
local function onOwedKey(jobPrefix, statusWindows, key, statusOnly, now)
  local windowMs = 0
  if statusOnly then windowMs = statusWindowOf(statusWindows, key) end
  return liveRequestSettled(jobPrefix, key, now, windowMs, ${merge})
end`,
    [LIVE_REQUEST_LUA],
  );
}
const QUEUE_HOOK_LUA = { cover: queueHookLua(false), merge: queueHookLua(true) };

/**
 * The hook's second argument for a call whose status-only windows are `w`: the default, then a line per key
 * of another window ("key<TAB>ms"; a key, namespace/name, holds neither a tab nor a newline).
 */
export function statusWindowsArg(w: BatchWindows): string {
  let arg = String(w.defaultMs);
  for (const [key, ms] of w.exceptions) arg += `\n${key}\t${ms}`;
  return arg;
}

/** The window statusWindowsArg's `arg` gives `key` (the hook's statusWindowOf, in TypeScript). */
export function statusWindowIn(arg: string, key: string): number {
  const at = arg.indexOf(`\n${key}\t`);
  const from = at === -1 ? 0 : at + key.length + 2;
  return Number(/^\d+/.exec(arg.slice(from))?.[0]);
}

/**
 * The hook for the queue at `prefix`/`queueName`, a status-only change's request due `statusWindowMs` later;
 * with `merge`, merging the requests the key's job does not cover into its pending job.
 */
export function queueCoverHook(
  prefix: string,
  queueName: string,
  statusWindowMs: number,
  merge = false,
): OwedKeyHook {
  const lua = merge ? QUEUE_HOOK_LUA.merge : QUEUE_HOOK_LUA.cover;
  return { lua, args: [jobPrefixOf(prefix, queueName), String(statusWindowMs)] };
}

export interface WatcherProjectionOptions {
  client: RedisClient;
  prefix: string;
  queueName: string;
  tags?: EntryTags;
  /** Ask the queue's cover rule in the fold (default): a covered event requests nothing. */
  cover: boolean;
  /**
   * With `cover`: merge a request the key's job does not cover into its pending job in the fold's call (the
   * watcher's default with tracing off). Such a request carries no trace contexts: with tracing on, requests
   * are left to requestAll, which carries them.
   */
  merge?: boolean;
  /** How long a status-only change's request waits (STATUS_COLLAPSE_MS): a job due sooner covers it. */
  statusCollapseMs: number;
  /** The event log's stream, when the fold appends the batch's records (it shares the projection's slot). */
  eventLogKey?: string;
}

/** The projection's writer as the watcher folds with it. */
export function watcherProjection(o: WatcherProjectionOptions): ProjectionWriter {
  return new ProjectionWriter({
    client: o.client,
    prefix: o.prefix,
    queueName: o.queueName,
    ...(o.cover
      ? { owedKeyHook: queueCoverHook(o.prefix, o.queueName, o.statusCollapseMs, o.merge === true) }
      : {}),
    ...(o.tags !== undefined ? { tags: o.tags } : {}),
    ...(o.eventLogKey !== undefined ? { eventLog: { lua: APPEND_RECORDS_LUA, key: o.eventLogKey } } : {}),
  });
}

/**
 * Builds every fold script a watcher may run (with the cover or without, with the event log or without),
 * so that they are among the scripts made (@podset/redis's scriptsMade), for the script loader.
 */
export function makeFoldScripts(): void {
  const client = {} as RedisClient;
  const variants: readonly (readonly [cover: boolean, merge: boolean])[] = [
    [false, false],
    [true, false],
    [true, true],
  ];
  for (const [cover, merge] of variants)
    for (const eventLogKey of [undefined, ''])
      watcherProjection({
        client,
        prefix: 'p',
        queueName: 'q',
        cover,
        merge,
        statusCollapseMs: 0,
        ...(eventLogKey !== undefined ? { eventLogKey } : {}),
      });
}

/** A fold's answer as the gate gives it: a request the hook settled is one the queue covered or merged. */
export function admissionOf(fold: Fold): Admission {
  // Built by assignment, not by spreads of conditional objects: one per event, and each spread made one more.
  const admission: Admission = { owed: fold.owed, requested: fold.requested, failed: nothingFailed };
  // The hook's word for how it settled a request is the queue's answer (liveRequestSettled's).
  if (fold.settled === 'merged' || fold.settled === 'covered') admission.queueAnswer = fold.settled;
  if (fold.statusOnly === true) admission.statusOnly = true;
  if (fold.record !== undefined) admission.record = fold.record;
  if (fold.hint === true) admission.noJob = true;
  return admission;
}

/** The projection's `failed`: nothing to undo (the re-delivered event's fold owes again by itself). */
const nothingFailed = (): void => undefined;
