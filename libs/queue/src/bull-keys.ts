// BullMQ's private Redis key layout, which our scripts read and write (the merge, the fold of a stored
// next job, forgetKey). It is not a public BullMQ API, so it is spelled here only, pinned to the installed
// version, and test/bull-keys.test.ts checks it against real jobs in real Redis: a BullMQ upgrade fails
// that one test instead of silently breaking the modules that use these keys. The Lua scripts get the keys
// from here and rely on the job hash fields that test checks (name, data, opts, priority; jid on a
// stored next job).

/** The BullMQ version this layout was read from (package.json pins it exactly). */
export const BULLMQ_VERSION = '6.7.0';

/** BullMQ's prefix of every key of a queue: `<prefix>:<queue>:`. */
export function jobPrefixOf(prefix: string, queueName: string): string {
  return `${prefix}:${queueName}:`;
}

export type FinishedState = 'completed' | 'failed';

/** The keys of the queue whose job prefix (`jobPrefixOf`) is `jobPrefix`. */
export function bullKeys(jobPrefix: string) {
  const p = jobPrefix;
  return {
    /** A job's hash (name, data, opts, priority, …). Job ids are random; the job *name* is the PodSet key. */
    job: (jobId: string) => `${p}${jobId}`,
    /** Deduplication: the id of the job that holds this deduplication id (our PodSet key). */
    dedup: (dedupId: string) => `${p}de:${dedupId}`,
    /** keepLastIfActive: the next job (hash of name, data, opts, jid) stored while the key's job is active. */
    dedupNext: (dedupId: string) => `${p}dn:${dedupId}`,
    /** Finished jobs by finish time (zsets). */
    finished: (state: FinishedState) => `${p}${state}`,
    delayed: `${p}delayed`,
    prioritized: `${p}prioritized`,
    wait: `${p}wait`,
    active: `${p}active`,
    marker: `${p}marker`,
    events: `${p}events`,
    /** The priority counter. */
    pc: `${p}pc`,
    meta: `${p}meta`,
    /** Ours, not BullMQ's: the producer's short lock per key, under the queue's prefix (same hash slot). */
    requestLock: (dedupId: string) => `${p}rl:${dedupId}`,
  };
}
