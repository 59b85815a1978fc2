// Stage 4 of an event's path: request. A batch's owed keys are requested live in one call (one Redis
// transaction), each key once, with the events' records of what was requested written in the same
// transaction. The queue is the one owner of de-duplication: a key whose request from an earlier batch is
// still on its way is simply requested again, and the queue merges the two. Relists and resyncs request
// every key at bulk priority, `width` per call.

/** A hash field written (or, without a value, deleted) atomically with a request (@podset/queue's HashWrite). */
export interface RequestRecord {
  key: string;
  field: string;
  value: string | undefined;
}

/** One request as the watcher makes it. */
export interface WatcherRequest {
  key: string;
  opts: { source: 'live' | 'bulk'; delayMs?: number; traceparents?: readonly string[] };
  record?: readonly RequestRecord[];
  /** The gate saw the key with no job in the queue: no pending job to merge into (@podset/queue's RequestItem). */
  noJob?: boolean;
}

/** What the watcher needs of the queue (@podset/queue's ReconcileQueue has it). */
export interface ReconcileRequester {
  /** Requests every item, in as few round trips as it can; rejects when any of them failed. */
  requestAll(items: readonly WatcherRequest[]): Promise<unknown>;
}

/** Requests every key at bulk priority, `width` per call; `sent(n)` after each call went through. */
export async function requestBulk(
  queue: ReconcileRequester,
  keys: readonly string[],
  width: number,
  sent: (n: number) => void,
): Promise<void> {
  for (let i = 0; i < keys.length; i += width) {
    const group = keys.slice(i, i + width);
    await queue.requestAll(group.map((key) => ({ key, opts: { source: 'bulk' } })));
    sent(group.length);
  }
}
