// Stage 4 of an event's path: request. A batch's owed keys are requested live in one call (one Redis
// transaction), each key once, with the events' records of what was requested written in the same
// transaction; the queue answers per key what it did (created, merged or covered). The queue is the one owner
// of de-duplication: a key whose request from an earlier batch is still on its way is simply requested
// again, and the queue merges the two. Relists and resyncs request every key at bulk priority, `width` per
// call.
import type { RequestOutcome } from '@podset/queue';
import type { Admission, BatchWindows, RequestRecord } from './change-gate.ts';
import { windowOf } from './status-windows.ts';

/** One request as the watcher makes it. */
export interface WatcherRequest {
  key: string;
  opts: { source: 'live' | 'bulk'; delayMs?: number; traceparents?: readonly string[] };
  record?: readonly RequestRecord[];
  /** The gate saw the key with no job in the queue: no pending job to merge into (@podset/queue's RequestItem). */
  noJob?: boolean;
}

/** What the queue did with one request (@podset/queue's RequestResult). */
export interface QueueAnswer {
  outcome: RequestOutcome;
}

/** What the watcher needs of the queue (@podset/queue's ReconcileQueue has it). */
export interface ReconcileRequester {
  /** Requests every item, in as few round trips as it can, answering each in order; rejects when any failed. */
  requestAll(items: readonly WatcherRequest[]): Promise<readonly QueueAnswer[]>;
}

/** Stage 4's output: the keys requested live, by what the queue did with each. */
export type LiveRequested = Record<RequestOutcome, number>;

export interface LiveRequestOptions {
  /** A key owed only by status-only changes is requested due its window later (0: at once). */
  windows: BatchWindows;
  /** With tracing on: the traceparents of the events that owe `key`, carried in its request. */
  traceparentsOf?: (key: string) => string[] | undefined;
}

const LIVE = { source: 'live' } as const;

/** Requests each owed key once, live, all in one call; what the queue did, by outcome. */
export async function requestLive(
  queue: ReconcileRequester,
  owed: ReadonlyMap<string, readonly Admission[]>,
  opts: LiveRequestOptions,
): Promise<LiveRequested> {
  const requested: LiveRequested = { created: 0, merged: 0, covered: 0 };
  if (owed.size === 0) return requested;
  const items = [...owed].map(([key, owing]) => liveRequest(key, owing, opts));
  for (const answer of await queue.requestAll(items)) requested[answer.outcome]++;
  return requested;
}

/** One owed key's request: its events' records ride along; no pending job seen by all of them is a hint. */
function liveRequest(key: string, owing: readonly Admission[], opts: LiveRequestOptions): WatcherRequest {
  const record = owing.flatMap((a): RequestRecord[] => (a.record !== undefined ? [a.record] : []));
  return {
    key,
    opts: liveOpts(owing, windowOf(opts.windows, key), opts.traceparentsOf?.(key)),
    ...(record.length > 0 ? { record } : {}),
    ...(owing.every((a) => a.noJob === true) ? { noJob: true } : {}),
  };
}

/** When a key's request is due: at once if any of its events can change a plan, else after its window. */
function liveOpts(
  owing: readonly Admission[],
  collapseMs: number,
  traceparents: string[] | undefined,
): WatcherRequest['opts'] {
  const delayMs = collapseMs > 0 && owing.every((a) => a.statusOnly === true) ? collapseMs : 0;
  if (delayMs === 0 && traceparents === undefined) return LIVE;
  return {
    source: 'live',
    ...(delayMs > 0 ? { delayMs } : {}),
    ...(traceparents !== undefined ? { traceparents } : {}),
  };
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
