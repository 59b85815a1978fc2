// Stage 4 of an event's path: request. One live request per key owed one; while a key's request is in
// flight, later events for it share ONE follow-up, issued once it completes, so no change can slip past a
// reconcile already under way. Relists and resyncs request every key at bulk priority, a few at a time.
import { MAX_TRACEPARENTS } from '@podset/queue';
import { deferred, type Deferred } from './deferred.ts';

/** What the watcher needs of the queue (@podset/queue's ReconcileQueue has it). */
export interface ReconcileRequester {
  request(
    key: string,
    opts: { source: 'live' | 'bulk'; delayMs?: number; traceparents?: readonly string[] },
  ): Promise<unknown>;
}

interface InFlight {
  /** The follow-up that later events for the key wait on. */
  again?: Deferred;
  /** The follow-up's delay: the least its events asked for. */
  againDelayMs?: number;
  /** With tracing on, those events' traceparents, which the follow-up carries. */
  traceparents?: string[];
}

export class LiveRequests {
  readonly #queue: ReconcileRequester;
  readonly #sent: () => void;
  readonly #inFlight = new Map<string, InFlight>();

  /** `sent` is called after each request went through (for counters and metrics). */
  constructor(queue: ReconcileRequester, sent: () => void) {
    this.#queue = queue;
    this.#sent = sent;
  }

  /** Whether a request for `key` is in flight (a new one would be its follow-up). */
  has(key: string): boolean {
    return this.#inFlight.has(key);
  }

  /**
   * Settles once a request for `key` issued after this call went through (or failed); due `delayMs` from
   * when it is issued (the queue keeps the earliest of a key's requests).
   */
  request(key: string, traceparents?: readonly string[], delayMs = 0): Promise<void> {
    const state = this.#inFlight.get(key);
    if (state !== undefined) {
      state.again ??= deferred();
      state.againDelayMs = Math.min(state.againDelayMs ?? delayMs, delayMs);
      if (traceparents !== undefined) {
        // Bounded as the job's list is: a job links to its first MAX_TRACEPARENTS events.
        const kept = (state.traceparents ??= []);
        for (const tp of traceparents) if (kept.length < MAX_TRACEPARENTS) kept.push(tp);
      }
      return state.again.promise;
    }
    const entry: InFlight = {};
    this.#inFlight.set(key, entry);
    const opts = {
      source: 'live' as const,
      ...(delayMs > 0 ? { delayMs } : {}),
      ...(traceparents !== undefined ? { traceparents } : {}),
    };
    const sent = this.#queue.request(key, opts).then(() => this.#sent());
    const next = () => {
      this.#inFlight.delete(key);
      const again = entry.again;
      if (again !== undefined)
        this.request(key, entry.traceparents, entry.againDelayMs).then(again.resolve, again.reject);
    };
    sent.then(next, next);
    return sent;
  }
}

/** Requests every key at bulk priority, `width` at a time; `sent(n)` after each group went through. */
export async function requestBulk(
  queue: ReconcileRequester,
  keys: readonly string[],
  width: number,
  sent: (n: number) => void,
): Promise<void> {
  for (let i = 0; i < keys.length; i += width) {
    await Promise.all(keys.slice(i, i + width).map((key) => queue.request(key, { source: 'bulk' })));
    sent(Math.min(width, keys.length - i));
  }
}
