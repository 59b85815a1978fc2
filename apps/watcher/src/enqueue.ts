// Watch events → reconcile requests. A live event asks for its key at live priority; a relist page asks
// for every key in it at bulk priority. Every watch event is also appended to the event log. Implements the
// watch loop's sink. Whether an event owes a reconcile, and what is kept to know it, is the change gate's
// (chosen once at start-up: see change-gate.ts).
import { MAX_TRACEPARENTS } from '@podset/queue';
import { KIND } from '@podset/reconcile';
import type { Admission, ChangeGate, KeyedEvent, StreamInfo } from './change-gate.ts';
import { keyFor, keysOf } from './keys.ts';
import { eventRecord, type EventRecord } from './event-log.ts';
import type { ListedPage, WatchEvent, WatchSink } from './watch-loop.ts';
import type { Logger } from './log.ts';
import type { EventTracing } from './event-tracing.ts';

/** What the watcher needs of the queue (@podset/queue's ReconcileQueue has it). */
export interface ReconcileRequester {
  request(
    key: string,
    opts: { source: 'live' | 'bulk'; delayMs?: number; traceparents?: readonly string[] },
  ): Promise<unknown>;
}

export interface EventAppender {
  append(record: EventRecord): Promise<unknown>;
  /** Appends records in order, in one call. */
  appendMany(records: readonly EventRecord[]): Promise<unknown>;
}

export interface EnqueuerOptions {
  queue: ReconcileRequester;
  eventLog?: EventAppender;
  logger: Logger;
  /** Called after requests were made (for metrics). */
  onEnqueued?: (source: 'live' | 'bulk', count: number) => void;
  /** What a batch of watch events came to, by outcome (for metrics). */
  onEventOutcomes?: (outcomes: Readonly<Record<EventOutcome, number>>) => void;
  /** Parallel requests while enqueuing a relist page. Default 32. */
  bulkConcurrency?: number;
  /** Records each event and answers whether it owes a reconcile (the projection, or the API fallback's filter). */
  gate: ChangeGate;
  /** Set only when tracing is on: a span per event that requests (or is covered), carried in the request. */
  tracing?: EventTracing;
}

/**
 * What a watch event came to: `requested` it made a live request; `coalesced` it shared one with another
 * event of its key; `covered` the key's job already waiting covered it; `unchanged` it changed nothing a
 * plan reads (the operator's own status writes among them); `unkeyed` it concerns no PodSet.
 */
export type EventOutcome = 'requested' | 'coalesced' | 'covered' | 'unchanged' | 'unkeyed';

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined); // callers observe it; never an unhandled rejection here
  return { promise, resolve, reject };
}

const LIVE = { source: 'live' } as const;

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
  /** Events that may change a plan, whose key's job was already waiting in the queue: nothing requested. */
  covered = 0;

  constructor(options: EnqueuerOptions) {
    this.#o = options;
  }

  /**
   * The watch loop calls this for events in order without waiting for each other. Events that arrive
   * together (one read of the watch stream) are handled as one batch: the event-log records appended in
   * one call, the gate asked once (with the projection: one fold call), and one live request per key
   * however many of the batch's events owe one. Batches keep event order: each appends and asks the gate
   * before the next one does (ioredis keeps call order on its connection). Live requests for one key are
   * coalesced across batches too: while a request for the key is in flight, later events for it share ONE
   * follow-up request issued after it completes. A follow-up is always issued after the event was seen,
   * so no change can slip past a reconcile already under way. An event settles with its batch: when any
   * part of the batch fails, every event of it fails and the watch re-delivers them.
   */
  event(ev: WatchEvent): Promise<void> {
    let batch = this.#batch;
    if (batch === undefined) {
      batch = { events: [], done: deferred() };
      this.#batch = batch;
      // Events of one read of the stream reach us in one turn of the event loop: take them all at once.
      setImmediate(() => {
        this.#batch = undefined;
        this.#flush(batch!.events).then(batch!.done.resolve, batch!.done.reject);
      });
    }
    batch.events.push(ev);
    return batch.done.promise;
  }

  /** Events waiting for the next flush (see event). */
  #batch: { events: WatchEvent[]; done: Deferred } | undefined;

  async #flush(events: readonly WatchEvent[]): Promise<void> {
    const keyed: KeyedEvent[] = [];
    const records: EventRecord[] = [];
    const seenAt = new Date().toISOString();
    const tracing = this.#o.tracing;
    const startedAt = tracing === undefined ? undefined : tracing.now();
    let unkeyed = 0;
    for (const ev of events) {
      const key = keyFor(ev.resource, ev.object);
      if (key === undefined) unkeyed++;
      else keyed.push({ ev, key });
      if (this.#o.eventLog !== undefined)
        records.push(eventRecord(ev.resource, ev.type, ev.object, seenAt, key));
      const name = ev.object.metadata?.name;
      this.#o.logger.debug(
        { stream: ev.stream, type: ev.type, kind: ev.resource, podset: key, name, rv: ev.rv },
        'watch event',
      );
    }
    if (unkeyed > 0) this.#count({ unkeyed });
    // Issued first, so the log stays in event order across batches.
    const logged = records.length > 0 ? this.#o.eventLog?.appendMany(records) : undefined;
    let admissions: Admission[] | undefined;
    // Asked before the requests: with the projection, the worker that takes one must find these events in
    // the state it reads.
    const requested =
      keyed.length === 0
        ? undefined
        : this.#o.gate.admit(keyed).then(async (answers) => {
            admissions = answers;
            const tally = { requested: 0, coalesced: 0, covered: 0, unchanged: 0 };
            const owedBy = new Map<string, Admission[]>();
            const spans = tracing === undefined ? undefined : tracing.batch(startedAt!);
            answers.forEach((a, i) => {
              if (!a.owed) {
                const outcome = a.covered === true ? 'covered' : 'unchanged';
                tally[outcome]++;
                if (outcome === 'covered') spans?.event(keyed[i]!, outcome);
                return;
              }
              const key = keyed[i]!.key;
              const owing = owedBy.get(key);
              let outcome: EventOutcome;
              if (owing === undefined) {
                owedBy.set(key, [a]);
                // A key whose request is in flight gets a follow-up shared with later events (#requestLive).
                outcome = this.#live.has(key) ? 'coalesced' : 'requested';
              } else {
                owing.push(a);
                outcome = 'coalesced';
              }
              tally[outcome]++;
              spans?.event(keyed[i]!, outcome);
            });
            this.#count(tally);
            try {
              await Promise.all(
                [...owedBy].map(async ([key, owing]) => {
                  await this.#requestLive(key, spans?.traceparentsOf(key));
                  // Not recorded (Redis gone meanwhile): the next event of this object owes one more request.
                  await Promise.all(owing.map((a) => a.requested().catch(() => undefined)));
                }),
              );
            } catch (err) {
              spans?.end(err);
              throw err;
            }
            spans?.end();
          });
    try {
      await Promise.all([logged, requested]);
    } catch (err) {
      await requested?.catch(() => undefined);
      for (const a of admissions ?? []) a.failed();
      throw err;
    }
  }

  #count(tally: Partial<Record<EventOutcome, number>>): void {
    this.unkeyed += tally.unkeyed ?? 0;
    this.coalesced += tally.coalesced ?? 0;
    this.covered += tally.covered ?? 0;
    this.unchanged += tally.unchanged ?? 0;
    this.#o.onEventOutcomes?.({
      requested: 0,
      coalesced: 0,
      covered: 0,
      unchanged: 0,
      unkeyed: 0,
      ...tally,
    });
  }

  /**
   * Live requests in flight per key, with the follow-up that later events for the key wait on (and, with
   * tracing on, those events' traceparents, which the follow-up carries).
   */
  readonly #live = new Map<string, { again?: Deferred; traceparents?: string[] }>();

  #requestLive(key: string, traceparents?: readonly string[]): Promise<void> {
    const state = this.#live.get(key);
    if (state !== undefined) {
      state.again ??= deferred();
      if (traceparents !== undefined) {
        // Bounded as the job's list is: a job links to its first MAX_TRACEPARENTS events.
        const kept = (state.traceparents ??= []);
        for (const tp of traceparents) if (kept.length < MAX_TRACEPARENTS) kept.push(tp);
      }
      return state.again.promise;
    }
    const entry: { again?: Deferred; traceparents?: string[] } = {};
    this.#live.set(key, entry);
    const opts = traceparents === undefined ? LIVE : { source: 'live' as const, traceparents };
    const sent = this.#o.queue.request(key, opts).then(() => {
      this.requested.live++;
      this.#o.onEnqueued?.('live', 1);
    });
    const next = () => {
      this.#live.delete(key);
      const again = entry.again;
      if (again !== undefined) this.#requestLive(key, entry.traceparents).then(again.resolve, again.reject);
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
