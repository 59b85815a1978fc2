// Every Redis key the operator reads or writes, spelled here and nowhere else (test/architecture/key-literals.test.ts
// greps apps/ and libs/, TypeScript and Lua, for one spelled elsewhere). One install's keys all start with
// `<prefix>:<queue>` (QUEUE_PREFIX, QUEUE_NAME), so on Redis Cluster one hash tag in the prefix puts them in
// one slot, and the ACL rules (libs/redis/src/acl.ts) grant them by the patterns below.
//
//   <base>:<BullMQ's keys>          the reconcile queue (BullMQ's private layout, below) and our dh:<key>
//   <base>:proj:…                   the projection (libs/state): ps:, pods:, exp:, req:, epoch:, keys, ready
//   <base>:watcher:rv, :sentinel:…  the watcher's checkpoint and data-loss sentinel
//   <base>:watcher:events           the event log (EVENT_LOG_KEY may put it elsewhere)
//   <base>:parked:<key>             the worker's parked keys
//
// The Lua scripts get their keys as KEYS or build them from the constants of KEYSPACE_LUA, made here.
import { luaModule } from './lua-include.ts';

/** `<prefix>:<queue>`: the base of every key of one install. */
export function queueBase(prefix: string, queueName: string): string {
  return `${prefix}:${queueName}`;
}

/** BullMQ's prefix of every key of a queue: `<prefix>:<queue>:`. */
export function jobPrefixOf(prefix: string, queueName: string): string {
  return `${queueBase(prefix, queueName)}:`;
}

// BullMQ's private Redis key layout, which our scripts read and write (the merge, the fold of a stored
// next job, forgetKey, the live cover). It is not a public BullMQ API, so it is pinned to the installed
// version, and libs/queue/test/bull-keys.test.ts checks it against real jobs in real Redis: a BullMQ
// upgrade fails that one test instead of silently breaking the modules that use these keys. The scripts
// rely on the job hash fields that test checks (name, data, opts, priority; jid on a stored next job).

/** The BullMQ version this layout was read from (package.json pins it exactly). */
export const BULLMQ_VERSION = '6.7.0';

/** The parts of BullMQ's key names our code uses, after the job prefix. */
const BULL = {
  dedup: 'de:',
  dedupNext: 'dn:',
  delayed: 'delayed',
  prioritized: 'prioritized',
  wait: 'wait',
  active: 'active',
  marker: 'marker',
  events: 'events',
  pc: 'pc',
  meta: 'meta',
  /**
   * Ours, not BullMQ's: a key's stored next job, held aside for the instant of a request's transaction in
   * which BullMQ's add would replace it (under the queue's prefix: same hash slot).
   */
  heldNext: 'dh:',
} as const;

export type FinishedState = 'completed' | 'failed';

/** The keys of the queue whose job prefix (`jobPrefixOf`) is `jobPrefix`. */
export function bullKeys(jobPrefix: string) {
  const p = jobPrefix;
  return {
    /** A job's hash (name, data, opts, priority, …). Job ids are random; the job *name* is the PodSet key. */
    job: (jobId: string) => `${p}${jobId}`,
    /** Deduplication: the id of the job that holds this deduplication id (our PodSet key). */
    dedup: (dedupId: string) => `${p}${BULL.dedup}${dedupId}`,
    /** keepLastIfActive: the next job (hash of name, data, opts, jid) stored while the key's job is active. */
    dedupNext: (dedupId: string) => `${p}${BULL.dedupNext}${dedupId}`,
    /** Finished jobs by finish time (zsets). */
    finished: (state: FinishedState) => `${p}${state}`,
    delayed: `${p}${BULL.delayed}`,
    prioritized: `${p}${BULL.prioritized}`,
    wait: `${p}${BULL.wait}`,
    active: `${p}${BULL.active}`,
    marker: `${p}${BULL.marker}`,
    events: `${p}${BULL.events}`,
    /** The priority counter. */
    pc: `${p}${BULL.pc}`,
    meta: `${p}${BULL.meta}`,
    /** The stored next job held aside during one request's transaction (never there between two). */
    heldNext: (dedupId: string) => `${p}${BULL.heldNext}${dedupId}`,
  };
}

/**
 * Every key BullMQ 6 reads or writes under the job prefix (its QueueKeys and the scripts' own names), with
 * ours beside them (dh:), as ACL patterns after the prefix. A job's hash, lock (`<id>:lock`) and logs
 * (`<id>:logs`) are `<id>…` with ids `<namespace>~<name>~<uuid>` (libs/queue's reconcile-queue.ts): no
 * other key of the install has a `~` (the projection's and the watcher's keys hold `namespace/name`).
 */
export const JOB_KEY_PATTERNS: readonly string[] = [
  '',
  '*~*',
  BULL.active,
  BULL.wait,
  'waiting-children',
  'paused',
  'id',
  BULL.delayed,
  BULL.prioritized,
  'completed',
  'failed',
  'stalled',
  'stalled-check',
  'repeat*',
  'limiter',
  BULL.meta,
  BULL.events,
  BULL.pc,
  BULL.marker,
  `${BULL.dedup}*`,
  `${BULL.dedupNext}*`,
  'metrics:*',
  `${BULL.heldNext}*`,
];

// The projection (libs/state): per PodSet key `ns/name`, its PodSet entry, its pods hash, the creates and
// deletes a worker awaits, and the plan inputs last requested; the index of keys with entries, the
// relist epochs per watch stream, and the marker set once a complete relist was folded.
const PROJ = { podset: 'ps', pods: 'pods', expect: 'exp', requested: 'req', epoch: 'epoch' } as const;

export interface ProjectionKeyNames {
  /** `<base>:proj`. */
  readonly base: string;
  /** A PodSet key's four keys. */
  of(key: string): { podset: string; pods: string; expect: string; requested: string };
  /** The PodSet keys that have (or had) entries (the sweep's index). */
  readonly index: string;
  /**
   * Set once a complete relist has been folded. `:v2`: entries carry an integrity tag since; a worker of a
   * version before reads the unversioned marker (`untaggedReady`) and would misread them.
   */
  readonly ready: string;
  /** The marker of the layout before integrity tags (removed by the watcher on its first start). */
  readonly untaggedReady: string;
  /** A watch stream's epoch counter; streams are the watcher's `resource/namespace` (`*`: all). */
  epoch(stream: string): string;
}

export function projectionKeyNames(prefix: string, queueName: string): ProjectionKeyNames {
  const base = `${queueBase(prefix, queueName)}:proj`;
  return {
    base,
    of: (key) => ({
      podset: `${base}:${PROJ.podset}:${key}`,
      pods: `${base}:${PROJ.pods}:${key}`,
      expect: `${base}:${PROJ.expect}:${key}`,
      requested: `${base}:${PROJ.requested}:${key}`,
    }),
    index: `${base}:keys`,
    ready: `${base}:ready:v2`,
    untaggedReady: `${base}:ready`,
    epoch: (stream) => `${base}:${PROJ.epoch}:${stream}`,
  };
}

/**
 * The event log's stream: EVENT_LOG_KEY, else `<QUEUE_PREFIX>:<QUEUE_NAME>:watcher:events` (not BullMQ's
 * own `<prefix>:<queue>:events`).
 */
export function eventLogKeyOf(cfg: {
  EVENT_LOG_KEY?: string | undefined;
  QUEUE_PREFIX: string;
  QUEUE_NAME: string;
}): string {
  return cfg.EVENT_LOG_KEY ?? `${queueBase(cfg.QUEUE_PREFIX, cfg.QUEUE_NAME)}:watcher:events`;
}

/** The watcher's own keys beside the queue's: its checkpoint and its data-loss sentinel. */
export function watcherKeyspace(prefix: string, queueName: string, leaseName: string) {
  const base = `${queueBase(prefix, queueName)}:watcher`;
  return {
    checkpoint: `${base}:rv`,
    // One sentinel per watcher deployment (one per Lease): with several (one per namespace set), each
    // must notice a data loss by itself — a shared SET NX would tell only the first.
    sentinel: `${base}:sentinel:${leaseName}`,
  };
}

/** The prefix of the worker's parked keys (`<prefix><podset key>`). */
export function parkedPrefixOf(prefix: string, queueName: string): string {
  return `${queueBase(prefix, queueName)}:parked:`;
}

/** Key patterns of the families the ACL rules grant one by one (after `~`, `%R~`, `%RW~`). */
export function keyPatterns(prefix: string, queueName: string) {
  const q = jobPrefixOf(prefix, queueName);
  const proj = projectionKeyNames(prefix, queueName).of('*');
  return {
    /** Every key of the install, the event log at its default place included. */
    all: `${q}*`,
    jobKeys: JOB_KEY_PATTERNS.map((s) => `${q}${s}`),
    parked: `${parkedPrefixOf(prefix, queueName)}*`,
    projectionPods: proj.pods,
    projectionExpect: proj.expect,
    projectionRequested: proj.requested,
  };
}

/**
 * Lua constants of the key names the scripts build themselves (`-- @include keyspace` in a script that uses
 * them): BullMQ's deduplication key, stored next job, prioritized set, active list, delayed set, wait list, marker,
 * events stream, priority counter and meta hash after a job prefix,
 * and the projection's per-key keys after its base (`base .. PROJ_PODSET .. key`).
 */
export const KEYSPACE_LUA = luaModule(
  'keyspace',
  [
    `local BULL_DEDUP, BULL_DEDUP_NEXT = '${BULL.dedup}', '${BULL.dedupNext}'`,
    `local BULL_PRIORITIZED, BULL_ACTIVE = '${BULL.prioritized}', '${BULL.active}'`,
    `local BULL_DELAYED, BULL_WAIT, BULL_MARKER = '${BULL.delayed}', '${BULL.wait}', '${BULL.marker}'`,
    `local BULL_EVENTS, BULL_PC, BULL_META = '${BULL.events}', '${BULL.pc}', '${BULL.meta}'`,
    `local PROJ_PODSET, PROJ_PODS = ':${PROJ.podset}:', ':${PROJ.pods}:'`,
    `local PROJ_EXPECT, PROJ_REQUESTED = ':${PROJ.expect}:', ':${PROJ.requested}:'`,
  ].join('\n'),
);
