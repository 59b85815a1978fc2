// One leadership term of the watcher: a watch loop per (resource, namespace), the pipeline and event
// log they feed, the periodic resync, and the Redis data-loss check. Built fresh for every term (by
// startWatcher, watcher.ts), so a new leader starts from the checkpoint in Redis, not from anything a
// previous term remembered.
import type { Clock } from '@podset/clock';
import type { WatchApi } from './kube-api.ts';
import type { Resource } from './keys.ts';
import type { Logger } from '@podset/log';
import type { EventTracing } from './event-tracing.ts';
import type { EventOutcome } from './change-gate.ts';
import { EventPipeline, type EventAppender } from './event-pipeline.ts';
import type { ReconcileRequester } from './request.ts';
import { listPodSetKeys, Resync } from './resync.ts';
import {
  newCounters,
  WatchLoop,
  type Checkpointer,
  type WatchCounters,
  type WatchHooks,
} from './watch-loop.ts';
import type { BackoffOptions } from '@podset/queue';
import type { ChangeGate } from './change-gate.ts';
import { streamId } from './keys.ts';

export interface TermOptions {
  api: WatchApi;
  queue: ReconcileRequester;
  checkpoint: Checkpointer & { flush?: () => Promise<void> };
  eventLog?: EventAppender;
  /** Empty: all namespaces. */
  namespaces: readonly string[];
  /** 0: no periodic resync. */
  resyncPeriodMs: number;
  watchTimeoutSeconds: number;
  /** A watch open this long past its timeout, silent as long, is stalled (see WatchLoopOptions). */
  stallGraceMs: number;
  /** How long a status-only change's request waits (see EventPipelineOptions). Default 0. */
  statusCollapseMs?: number;
  /** The window of a scale's intermediate readiness (see EventPipelineOptions). Default statusCollapseMs. */
  statusCollapsePartialMs?: number;
  /** How long an event that cannot owe a reconcile may wait for the next batch (see EventPipelineOptions). Default 0. */
  quietHoldMs?: number;
  /** The pod watch's pause between turns, a held event's wait too (see EventPipelineOptions). Default 0. */
  podTurnPauseMs?: number;
  backoff?: BackoffOptions;
  logger: Logger;
  hooks?: WatchHooks;
  onEnqueued?: (source: 'live' | 'bulk', count: number) => void;
  /** What watch events came to, a batch at a time (see EventOutcome). */
  onEventOutcomes?: (outcomes: Readonly<Record<EventOutcome, number>>) => void;
  /** Starts the data-loss check; calls onLoss when Redis lost its data; returns a stop function. */
  watchDataLoss?: (onLoss: () => void) => Promise<() => void>;
  /**
   * The change gate of this term, given the streams it watches: the projection, or the API fallback's
   * filter (chosen once at start-up, see change-gate.ts).
   */
  gate: (streams: readonly string[]) => ChangeGate;
  /** Set only when tracing is on (event-tracing.ts). */
  tracing?: EventTracing;
  /** Default the system clock. */
  clock?: Clock;
}

const RESOURCES: readonly Resource[] = ['podsets', 'pods'];

export class WatchTerm {
  readonly loops: WatchLoop[];
  readonly pipeline: EventPipeline;
  readonly resync: Resync | undefined;
  readonly #o: TermOptions;

  readonly gate: ChangeGate;

  constructor(options: TermOptions) {
    this.#o = options;
    const scopes: (string | undefined)[] =
      options.namespaces.length === 0 ? [undefined] : [...options.namespaces];
    const streams = RESOURCES.flatMap((resource) => scopes.map((ns) => streamId(resource, ns)));
    const clock = options.clock === undefined ? {} : { clock: options.clock };
    this.gate = options.gate(streams);
    this.pipeline = new EventPipeline({
      queue: options.queue,
      logger: options.logger,
      gate: this.gate,
      ...(options.statusCollapseMs === undefined ? {} : { statusCollapseMs: options.statusCollapseMs }),
      ...(options.statusCollapsePartialMs === undefined
        ? {}
        : { statusCollapsePartialMs: options.statusCollapsePartialMs }),
      ...(options.quietHoldMs === undefined ? {} : { quietHoldMs: options.quietHoldMs }),
      ...(options.podTurnPauseMs === undefined ? {} : { podTurnPauseMs: options.podTurnPauseMs }),
      ...(options.eventLog === undefined ? {} : { eventLog: options.eventLog }),
      ...(options.onEnqueued === undefined ? {} : { onEnqueued: options.onEnqueued }),
      ...(options.onEventOutcomes === undefined ? {} : { onEventOutcomes: options.onEventOutcomes }),
      ...(options.tracing === undefined ? {} : { tracing: options.tracing }),
      ...clock,
    });
    this.loops = RESOURCES.flatMap((resource) =>
      scopes.map(
        (namespace) =>
          new WatchLoop({
            resource,
            namespace,
            api: options.api,
            sink: this.pipeline,
            checkpoint: this.#checkpoint(options.checkpoint),
            logger: options.logger,
            timeoutSeconds: options.watchTimeoutSeconds,
            stallGraceMs: options.stallGraceMs,
            ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
            ...(options.hooks === undefined ? {} : { hooks: options.hooks }),
            ...clock,
          }),
      ),
    );
    this.resync =
      options.resyncPeriodMs > 0
        ? new Resync({
            periodMs: options.resyncPeriodMs,
            listKeys: listPodSetKeys(options.api, scopes),
            enqueueBulk: (keys) => this.pipeline.enqueueBulk(keys),
            logger: options.logger,
            ...clock,
          })
        : undefined;
  }

  /**
   * While the gate does not hold what the streams saw (a projection not complete: a first start, or a
   * Redis that lost its data), a stream may not resume from its checkpoint: it relists, and so rebuilds it.
   */
  #checkpoint(checkpoint: Checkpointer): Checkpointer {
    const gate = this.gate;
    return {
      load: async (stream) => ((await gate.resumable()) ? await checkpoint.load(stream) : undefined),
      save: (stream, rv, opts) => checkpoint.save(stream, rv, opts),
    };
  }

  /** Relist every stream (and so request every key at bulk priority). */
  relistAll(cause: string): void {
    this.gate.relistingAll();
    for (const loop of this.loops) loop.requestRelist(cause);
  }

  /** Watch counters summed over the streams. */
  counters(): WatchCounters {
    const sum = newCounters();
    for (const loop of this.loops) {
      const c = loop.counters;
      for (const k of Object.keys(sum.events) as (keyof WatchCounters['events'])[])
        sum.events[k] += c.events[k];
      for (const k of Object.keys(sum.restarts) as (keyof WatchCounters['restarts'])[]) {
        sum.restarts[k] += c.restarts[k];
      }
      sum.relists += c.relists;
      sum.listedObjects += c.listedObjects;
      sum.watchesOpened += c.watchesOpened;
    }
    return sum;
  }

  /** Runs until `signal` aborts (shutdown or lost leadership); then writes the last checkpoint. */
  async run(signal: AbortSignal): Promise<void> {
    const log = this.#o.logger;
    let stopDataLoss: (() => void) | undefined;
    try {
      if (this.#o.watchDataLoss !== undefined) {
        stopDataLoss = await this.#o.watchDataLoss(() => this.relistAll('redis lost its data'));
      }
    } catch (err) {
      log.warn({ err: String(err) }, 'could not start the redis data-loss check');
    }
    try {
      await Promise.all([...this.loops.map((loop) => loop.run(signal)), this.resync?.run(signal)]);
    } finally {
      stopDataLoss?.();
      try {
        await this.#o.checkpoint.flush?.();
      } catch (err) {
        log.warn({ err: String(err) }, 'could not write the last checkpoint');
      }
      log.info({ counters: this.counters() }, 'watcher stopped');
    }
  }
}
