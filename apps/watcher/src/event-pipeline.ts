// The watch loop's sink: watch events → reconcile requests, through the named stages of an event's path
// (the README's table), each handing its output to the next: batch (batch.ts: the events of one turn) → key
// and log (key-and-log.ts: a KeyedBatch) → fold and admit (admit.ts, the change gate: Admitted, the owed keys)
// → request (request.ts: what the queue did per key) → commit (commit.ts). A relist page asks for every key
// in it at bulk priority. Whether an event owes a reconcile, and what is kept to know it, is the change
// gate's (chosen once at start-up: see change-gate.ts).
import { systemClock, type Clock } from '@podset/clock';
import { KIND } from '@podset/reconcile';
import { admit, type Admitted } from './admit.ts';
import { TurnBatcher } from './batch.ts';
import type { BatchWindows, ChangeGate, EventOutcome, StreamInfo } from './change-gate.ts';
import { commit, rollback } from './commit.ts';
import type { EventRecord } from './event-log.ts';
import type { BatchSpans, EventTracing } from './event-tracing.ts';
import { QuietHold } from './hold.ts';
import { keyAndLog, type KeyedBatch } from './key-and-log.ts';
import { keyFor, keysOf } from './keys.ts';
import type { Logger } from '@podset/log';
import { StatusWindows } from './status-windows.ts';
import { requestBulk, requestLive, type LiveRequested, type ReconcileRequester } from './request.ts';
import type { ListedPage, WatchEvent, WatchSink } from './watch-loop.ts';

export type { EventOutcome } from './change-gate.ts';
export type { ReconcileRequester } from './request.ts';

export interface EventAppender {
  append(record: EventRecord): Promise<unknown>;
  /** Appends records in order, in one call. */
  appendMany(records: readonly EventRecord[]): Promise<unknown>;
}

export interface EventPipelineOptions {
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
  /** Stamps the event-log records. Default the system clock. */
  clock?: Clock;
  /**
   * A key owed a request only by status-only changes (Admission.statusOnly) is requested due this many ms
   * later: the queue merges every request for a waiting key into one job at the earliest due time, so the
   * changes of one PodSet's pods within this window cost one reconcile, and an event that can change a plan
   * still makes it due at once. Default 0: every request due at once. This is the window of a PodSet whose
   * rollout is under way; one whose pods the change leaves all ready is due at once, and any other waits
   * `statusCollapsePartialMs` (status-windows.ts judges which, from what the leader has seen).
   */
  statusCollapseMs?: number;
  /**
   * The window of a status-only change that leaves its PodSet's pods not all ready and no rollout under way
   * (a scale's pods coming ready one after another). Default `statusCollapseMs`.
   */
  statusCollapsePartialMs?: number;
  /**
   * An event that cannot owe a reconcile (hold.ts: a pod event that moves none of its inputs, or a pod of
   * no PodSet) arriving alone in its turn waits up to this many ms to join the next batch, instead of a
   * batch (a Redis round trip) of its own; so do the ADDED of a pod its PodSet created (a worker's creates,
   * of which only the last one it awaits requests), a PodSet's status write (its plan inputs unchanged), and
   * a pod's phase or readiness change alone when `statusCollapseMs` is at least as long (its request then
   * comes due up to this much later). Default 0: never held.
   */
  quietHoldMs?: number;
  /**
   * The pod watch's pause between turns (POD_WATCH_READ_PAUSE_MS; default 0, unpaced): held events go with
   * the first turn `quietHoldMs` or more after them, so they wait up to `quietHoldMs` plus this (hold.ts).
   */
  podTurnPauseMs?: number;
}

export class EventPipeline implements WatchSink {
  readonly #o: EventPipelineOptions;
  readonly #clock: Clock;
  /** Requests made, by source (for tests and metrics). */
  readonly requested = { live: 0, bulk: 0 };
  /** Events that mapped to no key (pods without a PodSet controller). */
  unkeyed = 0;
  /** Live events that shared their batch's one request for their key. */
  coalesced = 0;
  /** Events that changed nothing a plan reads (the operator's own status writes among them). */
  unchanged = 0;
  /** Events not folded: a later MODIFIED of their object in the same batch was folded for them (superseded.ts). */
  superseded = 0;
  /** Events owed a request that the queue's cover rule, run in the gate's call, covered: nothing requested. */
  covered = 0;
  /**
   * Events owed a request that was merged into the key's pending job in the gate's call: their keys are
   * counted as requested live and merged (queueAnswers), once per key and batch, as requestAll counts them.
   */
  merged = 0;
  /** Keys requested live, by what the queue did with each (a covered one: its job already ran soon enough). */
  readonly queueAnswers: LiveRequested = { created: 0, merged: 0, covered: 0 };
  readonly #batches: TurnBatcher<WatchEvent>;
  readonly #hold: QuietHold | undefined;
  /** What the leader has seen of pods and PodSets: how long each key's status-only request waits. */
  readonly windows: StatusWindows;

  constructor(options: EventPipelineOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#batches = new TurnBatcher((events) => this.#flush(events));
    const shortMs = options.statusCollapseMs ?? 0;
    this.windows = new StatusWindows({ shortMs, partialMs: options.statusCollapsePartialMs ?? shortMs });
    const holdMs = options.quietHoldMs ?? 0;
    // A status-only change is held too when its request waits at least the hold's longest wait anyway (one
    // that leaves its PodSet's pods all ready is due at once: not held).
    const statusToo = (key: string) => this.windows.windowMs(key) >= (this.#hold?.maxWaitMs ?? 0);
    const send = (ev: WatchEvent) => this.#batches.add(ev);
    const pauseMs = options.podTurnPauseMs ?? 0;
    this.#hold = holdMs > 0 ? new QuietHold(holdMs, send, statusToo, this.#clock, pauseMs) : undefined;
  }

  /** Events held to join a later batch (hold.ts), so far. */
  get held(): number {
    return this.#hold?.heldTotal ?? 0;
  }

  /**
   * The watch loop calls this for events in order without waiting for each other. Events that arrive
   * together (one read of the watch stream) are handled as one batch: the event-log records appended in
   * one call, the gate asked once (with the projection: one fold call), and one live request per key
   * however many of the batch's events owe one, all of them in one call to the queue (one Redis
   * transaction, which also records them as requested). Batches keep event order: each appends and asks
   * the gate before the next one does (ioredis keeps call order on its connection). A key requested by
   * two batches at once is merged by the queue. An event settles with its batch: when any part of the
   * batch fails, every event of it fails and the watch re-delivers them.
   */
  event(ev: WatchEvent): Promise<void> {
    this.windows.seen(ev.resource, ev.type, ev.object);
    const hold = this.#hold;
    if (hold === undefined) return this.#batches.add(ev);
    // Remembered whatever happens next; held only when no batch of this turn would take it along.
    if (hold.quiet(ev) && !this.#batches.open) return hold.hold(ev);
    hold.release();
    return this.#batches.add(ev);
  }

  /**
   * One batch down the path, each stage handing its output to the next (the README's table): key and log →
   * fold and admit → request → commit. A failure anywhere fails the whole batch and rolls it back here.
   */
  async #flush(events: readonly WatchEvent[]): Promise<void> {
    const spans = this.#spans();
    const batch = this.#keyAndLog(events);
    // A gate that appends the records does so in the call that folds the batch (one Redis call, not two).
    const withFolds = this.#o.gate.appendsLog === true && batch.records.length > 0;
    // Issued before the gate is asked, so the log stays in event order across batches; awaited last (its
    // failure is handled there: the catch only keeps it from counting as unhandled meanwhile).
    const logged = withFolds ? undefined : this.#appendApart(batch);
    void logged?.catch(() => undefined);
    let admitted: Admitted | undefined;
    try {
      if (batch.keyed.length > 0 || withFolds) {
        // One judgement per key for the batch: the fold's cover rule and the request use the same window.
        const windows = this.windows.windows(batch.keyed.map((k) => k.key));
        admitted = await admit(this.#o.gate, batch.keyed, {
          spans,
          windows,
          ...(withFolds ? { log: batch.records } : {}),
        });
        this.#count(admitted.tally);
        if (admitted.merged.size > 0)
          this.#countRequested({ created: 0, merged: admitted.merged.size, covered: 0 });
        // Most batches owe nothing (the hold's, a worker's creates): no request stage, no commit, no promises.
        if (admitted.owed.size > 0) await this.#request(admitted.owed, windows, spans);
      }
      if (logged !== undefined) await logged;
      spans?.end();
    } catch (err) {
      spans?.end(err);
      rollback(admitted?.answers ?? []);
      throw err;
    }
  }

  /**
   * Stages 4 and 5: the owed keys requested, then committed. Called once the batch is admitted: with the
   * projection, the worker that takes a request finds these events.
   */
  async #request(
    owed: Admitted['owed'],
    windows: BatchWindows,
    spans: BatchSpans | undefined,
  ): Promise<void> {
    const requested = await requestLive(this.#o.queue, owed, {
      windows,
      ...(spans !== undefined ? { traceparentsOf: (key: string) => spans.traceparentsOf(key) } : {}),
    });
    this.#countRequested(requested);
    await commit(owed);
  }

  /** With tracing on: the batch's spans, starting now. */
  #spans(): BatchSpans | undefined {
    const tracing = this.#o.tracing;
    return tracing?.batch(tracing.now());
  }

  /** Stage 2: each event's key and event-log record, stamped with the batch's one time. */
  #keyAndLog(events: readonly WatchEvent[]): KeyedBatch {
    const batch = keyAndLog(events, {
      seenAt: new Date(this.#clock.now()).toISOString(),
      log: this.#o.eventLog !== undefined,
      logger: this.#o.logger,
    });
    if (batch.unkeyed > 0) this.#count({ unkeyed: batch.unkeyed });
    return batch;
  }

  /** The batch's records appended in a call of their own. */
  #appendApart(batch: KeyedBatch): Promise<unknown> | undefined {
    return batch.records.length === 0 ? undefined : this.#o.eventLog?.appendMany(batch.records);
  }

  /** Stage 4's answer, counted: every key requested live, and what the queue did with it. */
  #countRequested(requested: LiveRequested): void {
    const keys = requested.created + requested.merged + requested.covered;
    if (keys === 0) return;
    this.requested.live += keys;
    for (const outcome of ['created', 'merged', 'covered'] as const)
      this.queueAnswers[outcome] += requested[outcome];
    this.#o.onEnqueued?.('live', keys);
  }

  #count(tally: Partial<Record<EventOutcome, number>>): void {
    this.unkeyed += tally.unkeyed ?? 0;
    this.coalesced += tally.coalesced ?? 0;
    this.covered += tally.covered ?? 0;
    this.merged += tally.merged ?? 0;
    this.unchanged += tally.unchanged ?? 0;
    this.superseded += tally.superseded ?? 0;
    this.#o.onEventOutcomes?.({
      requested: 0,
      coalesced: 0,
      covered: 0,
      merged: 0,
      unchanged: 0,
      superseded: 0,
      unkeyed: 0,
      ...tally,
    });
  }

  async relistStarted(stream: string): Promise<void> {
    this.#hold?.forget();
    this.windows.relistStarted(stream);
    await this.#o.gate.relistStarted(stream);
  }

  async relistDone(info: StreamInfo): Promise<void> {
    this.windows.relistDone(info);
    await this.#o.gate.relistDone(info);
  }

  /** A relisted page: folded (the gate), every key requested at bulk priority, a RELIST marker logged. */
  async listed(page: ListedPage): Promise<void> {
    this.windows.listed(page.stream, page.resource, page.objects);
    await this.#o.gate.listed(page, (obj) => keyFor(page.resource, obj));
    await this.enqueueBulk(keysOf(page.resource, page.objects));
    await this.#o.eventLog?.append({
      t: new Date(this.#clock.now()).toISOString(),
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
    await requestBulk(this.#o.queue, keys, this.#o.bulkConcurrency ?? 32, (n) => {
      this.requested.bulk += n;
      this.#o.onEnqueued?.('bulk', n);
    });
  }
}
