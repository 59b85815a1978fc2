// Watch events → reconcile requests. A live event asks for its key at live priority (carrying the
// event's RV); a relist page asks for every key in it at bulk priority. Every watch event is also
// appended to the event log. Implements the watch loop's sink. Whether an event owes a reconcile, and what
// is kept to know it, is the change gate's (chosen once at start-up: see change-gate.ts).
import { rvNewer } from '@podset/state';
import { KIND } from '@podset/reconcile';
import type { Admission, ChangeGate, StreamInfo } from './change-gate.ts';
import { keyFor, keysOf } from './keys.ts';
import { eventRecord, type EventRecord } from './event-log.ts';
import type { ListedPage, WatchEvent, WatchSink } from './watch-loop.ts';
import type { Logger } from './log.ts';

/** What the watcher needs of the queue (@podset/queue's ReconcileQueue has it). */
export interface ReconcileRequester {
  request(key: string, opts: { source: 'live' | 'bulk'; delayMs?: number; rv?: string }): Promise<unknown>;
}

export interface EventAppender {
  append(record: EventRecord): Promise<unknown>;
}

export interface EnqueuerOptions {
  queue: ReconcileRequester;
  eventLog?: EventAppender;
  logger: Logger;
  /** Called after requests were made (for metrics). */
  onEnqueued?: (source: 'live' | 'bulk', count: number) => void;
  /** Parallel requests while enqueuing a relist page. Default 32. */
  bulkConcurrency?: number;
  /** Records each event and answers whether it owes a reconcile (the projection, or the API fallback's filter). */
  gate: ChangeGate;
}

interface FollowUp {
  rv: string | undefined;
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function followUp(rv: string | undefined): FollowUp {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined); // callers observe it; never an unhandled rejection here
  return { rv, promise, resolve, reject };
}

export class Enqueuer implements WatchSink {
  readonly #o: EnqueuerOptions;
  /** Requests made, by source (for tests and metrics). */
  readonly requested = { live: 0, bulk: 0 };
  /** Events that mapped to no key (pods without a PodSet controller). */
  unkeyed = 0;
  /** Live events folded into a follow-up request for a key already being requested. */
  coalesced = 0;
  /** Events that changed nothing a plan reads (the operator's own status writes among them). */
  unchanged = 0;

  constructor(options: EnqueuerOptions) {
    this.#o = options;
  }

  /**
   * The watch loop calls this for events in order without waiting for each other, so: the event-log
   * XADD is issued first (ioredis keeps call order on its connection, so the log stays in event order),
   * and live requests for one key are coalesced — while a request for the key is in flight, later events
   * for it share ONE follow-up request issued after it completes (carrying the newest RV). A follow-up is
   * always issued after the event was seen, so no change can slip past a reconcile already under way.
   */
  async event(ev: WatchEvent): Promise<void> {
    const key = keyFor(ev.resource, ev.object);
    const logged = this.#o.eventLog?.append(eventRecord(ev.resource, ev.type, ev.object));
    if (key === undefined) this.unkeyed++;
    let admission: Admission | undefined;
    // Asked before the request: with the projection, the worker that takes it must find this event in the
    // state it reads. Asked in event order (the gate records the event before it answers).
    const requested =
      key === undefined
        ? undefined
        : this.#o.gate.admit(ev, key).then(async (a) => {
            admission = a;
            if (!a.owed) {
              this.unchanged++;
              return;
            }
            await this.#requestLive(key, ev.rv);
            // Not recorded (Redis gone meanwhile): the next event of this object owes one more request.
            await a.requested().catch(() => undefined);
          });
    this.#o.logger.debug(
      {
        stream: ev.stream,
        type: ev.type,
        kind: ev.resource,
        podset: key,
        name: ev.object.metadata?.name,
        rv: ev.rv,
      },
      'watch event',
    );
    try {
      await Promise.all([logged, requested]);
    } catch (err) {
      await requested?.catch(() => undefined);
      admission?.failed();
      throw err;
    }
  }

  /** Live requests in flight per key, with the follow-up that later events for the key wait on. */
  readonly #live = new Map<string, { again?: FollowUp }>();

  #requestLive(key: string, rv: string | undefined): Promise<void> {
    const state = this.#live.get(key);
    if (state !== undefined) {
      if (state.again === undefined) state.again = followUp(rv);
      else if (rv !== undefined && rvNewer(rv, state.again.rv)) state.again.rv = rv;
      this.coalesced++;
      return state.again.promise;
    }
    const entry: { again?: FollowUp } = {};
    this.#live.set(key, entry);
    const sent = this.#o.queue
      .request(key, { source: 'live', ...(rv === undefined ? {} : { rv }) })
      .then(() => {
        this.requested.live++;
        this.#o.onEnqueued?.('live', 1);
      });
    const next = () => {
      this.#live.delete(key);
      const again = entry.again;
      if (again !== undefined) this.#requestLive(key, again.rv).then(again.resolve, again.reject);
    };
    sent.then(next, next);
    return sent;
  }

  async relistStarted(stream: string): Promise<void> {
    await this.#o.gate.relistStarted(stream);
  }

  async relistDone(info: StreamInfo): Promise<void> {
    await this.#o.gate.relistDone(info);
  }

  async listed(page: ListedPage): Promise<void> {
    await this.#o.gate.listed(page, (obj) => keyFor(page.resource, obj));
    await this.enqueueBulk(keysOf(page.resource, page.objects));
    await this.#o.eventLog?.append({
      t: new Date().toISOString(),
      type: 'RELIST',
      kind: page.resource === 'pods' ? 'Pod' : KIND,
      key: '',
      name: '',
      rv: '',
      n: String(page.objects.length),
    });
  }

  /** Requests every key at bulk priority (relists, resyncs). */
  async enqueueBulk(keys: readonly string[]): Promise<void> {
    const width = this.#o.bulkConcurrency ?? 32;
    for (let i = 0; i < keys.length; i += width) {
      await Promise.all(
        keys.slice(i, i + width).map((key) => this.#o.queue.request(key, { source: 'bulk' })),
      );
      const n = Math.min(width, keys.length - i);
      this.requested.bulk += n;
      this.#o.onEnqueued?.('bulk', n);
    }
  }
}
