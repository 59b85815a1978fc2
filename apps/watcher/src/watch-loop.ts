// List+watch of one resource in one scope (a namespace or all), forever, with its own recovery.
//
// The loop keeps the last resourceVersion the sink has taken. Every way a watch can end leads back to a
// watch from that RV: a clean end (server timeout) at once; a reset, a 5xx or an unreachable server after
// exponential backoff with jitter; a 429 after its Retry-After; a silent stall once the watch outlived its
// timeoutSeconds by the stall grace (stall-check.ts). Only "410 Gone" (the RV is older than the server
// retains), 504 ResourceVersionTooLarge, or a 400/422 refusing an RV loaded from the checkpoint before the
// server accepted it (an RV is opaque: only the server can say it is no good) leads to a relist: LIST
// (paged), every page to the sink in order, then watch from the list's RV. Events are handed to the sink
// in order without waiting for each other, up to maxInFlight (64) at once; the RV advances (and may be
// checkpointed) strictly in order, only past events the sink has taken (hand-off.ts), so a crash replays
// instead of losing.
import { backoffDelay, type BackoffOptions } from '@podset/queue';
import { systemClock, type Clock } from '@podset/clock';
import { OrderedHandOff } from './hand-off.ts';
import { isTooLargeResourceVersion, type ListPage, type WatchApi, type WatchLine } from './kube-api.ts';
import { sleep } from './sleep.ts';
import { StallCheck } from './stall-check.ts';
import { abortReason, callEnd, handOn, toWatchEnd, WatchEnd, type RestartReason } from './watch-end.ts';
import { NAME_LABEL } from '@podset/reconcile';
import type { EncodedPod } from '@podset/state';
import { isWatchedKind, streamId, type Resource, type WatchedObject } from './keys.ts';
import type { Logger } from '@podset/log';

/** The relist cause when the API refused the resourceVersion a stream resumed from its checkpoint. */
export const CHECKPOINT_REFUSED = 'the API refused the checkpoint';

/** Between reconnects: 200 ms doubling to 30 s, equal jitter so a fleet doesn't reconnect in lockstep. */
const RECONNECT_BACKOFF: BackoffOptions = { baseMs: 200, maxMs: 30_000, jitter: 0.5 };

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface WatchEvent {
  stream: string;
  resource: Resource;
  type: EventType;
  object: WatchedObject;
  rv: string | undefined;
  /** A pod's encoding for the fold, set by the stage that computed it first (the hold): hashed once. */
  encoded?: EncodedPod;
}

export interface ListedPage {
  stream: string;
  resource: Resource;
  objects: WatchedObject[];
  /** Why the relist happened (start without checkpoint, 410, data loss, …). */
  cause: string;
}

/** Where events go (enqueue + event log). Must not resolve before the event is durably handed on. */
export interface WatchSink {
  event(ev: WatchEvent): Promise<void>;
  listed(page: ListedPage): Promise<void>;
  /** A relist of `stream` begins (its pages follow). */
  relistStarted?(stream: string): Promise<void>;
  /** A relist completed: every object of the stream was handed on by listed(). */
  relistDone?(info: { stream: string; resource: Resource; namespace: string | undefined }): Promise<void>;
}

/** Where the last RV of a stream is kept across restarts. */
export interface Checkpointer {
  load(stream: string): Promise<string | undefined>;
  /**
   * `force`: write now (relist, bookmark, stop); otherwise the store may throttle. `events`: how many events
   * this RV moves past (default 1; the events of one batch advance together, to the last one's RV).
   */
  save(stream: string, rv: string, opts?: { force?: boolean; events?: number }): Promise<void>;
}

export type { RestartReason } from './watch-end.ts';

export interface WatchCounters {
  events: Record<EventType | 'BOOKMARK', number>;
  restarts: Record<RestartReason, number>;
  relists: number;
  listedObjects: number;
  watchesOpened: number;
  /** Watch events skipped because their object was not of the watched kind. */
  unexpected: number;
}

export function newCounters(): WatchCounters {
  return {
    events: { ADDED: 0, MODIFIED: 0, DELETED: 0, BOOKMARK: 0 },
    restarts: {
      closed: 0,
      reset: 0,
      stall: 0,
      gone: 0,
      throttled: 0,
      'server-error': 0,
      'client-error': 0,
      unreachable: 0,
      'relist-requested': 0,
      'sink-error': 0,
    },
    relists: 0,
    listedObjects: 0,
    watchesOpened: 0,
    unexpected: 0,
  };
}

/** Called as things happen, for metrics (counters here are per loop; metrics outlive leadership terms). */
export interface WatchHooks {
  event?(resource: Resource, type: EventType | 'BOOKMARK' | 'ERROR'): void;
  restart?(resource: Resource, reason: RestartReason): void;
  relisted?(resource: Resource, cause: string, objects: number): void;
}

export interface WatchLoopOptions {
  hooks?: WatchHooks;
  resource: Resource;
  /** undefined: all namespaces. */
  namespace: string | undefined;
  api: WatchApi;
  sink: WatchSink;
  checkpoint: Checkpointer;
  logger: Logger;
  /** Server-side watch timeout; each watch asks for a random value in [t, 2t) to spread reconnects. */
  timeoutSeconds?: number;
  /**
   * A watch still open this long after its timeoutSeconds, with nothing read from it for as long, is stalled:
   * aborted and re-watched. A quiet watch is never cut for its quiet: the server ends it at its timeout.
   */
  stallGraceMs?: number;
  backoff?: BackoffOptions;
  /** LIST page size. */
  pageSize?: number;
  /** Events handed to the sink before the first of them must be done (1: one at a time). Default 64. */
  maxInFlight?: number;
  random?: () => number;
  /** Waits between retries, and a watch's age and silence. Default the system clock. */
  clock?: Clock;
}

/** What to tell the user when the API has no such resource: for PodSets, the CRD is not installed. */
export function missingResourceHint(resource: Resource): string {
  return resource === 'podsets'
    ? 'the PodSet CRD (customresourcedefinition podsets.podset.io) is not installed: ' +
        'apply it with `kubectl apply -f crds/podset.yaml` (or `kubectl apply -k crds`); ' +
        'retrying until it is there (the retries are logged at debug)'
    : 'the API server has no pods resource; retrying (the retries are logged at debug)';
}

/** What to tell the user when the missing resource is served again. */
export function foundResourceHint(resource: Resource): string {
  return resource === 'podsets'
    ? 'the PodSet CRD (customresourcedefinition podsets.podset.io) is installed now: watching PodSets'
    : 'the API server serves pods now: watching pods';
}

export class WatchLoop {
  readonly stream: string;
  readonly counters = newCounters();
  readonly #o: Required<Omit<WatchLoopOptions, 'namespace' | 'hooks'>> & { namespace: string | undefined };
  readonly #hooks: WatchHooks;
  #rv: string | undefined;
  /** #rv came from the checkpoint and no server has accepted a watch from it yet. */
  #unconfirmed = false;
  #attempt = 0;
  #relistCause: string | undefined;
  #current: AbortController | undefined;
  /** The API answered 404 for the resource (a CRD not installed): said once, until it is served again. */
  #missing = false;

  constructor(options: WatchLoopOptions) {
    this.#o = {
      timeoutSeconds: 300,
      stallGraceMs: 30_000,
      backoff: RECONNECT_BACKOFF,
      pageSize: 500,
      maxInFlight: 64,
      random: Math.random,
      clock: systemClock,
      ...options,
    };
    this.#hooks = options.hooks ?? {};
    this.stream = streamId(options.resource, options.namespace);
  }

  /** The last resourceVersion handed to the sink (or listed). */
  get resourceVersion(): string | undefined {
    return this.#rv;
  }

  /** Drop the current watch and relist (e.g. the queue lost its data). */
  requestRelist(cause: string): void {
    this.#relistCause = cause;
    this.#current?.abort(new WatchEnd('relist-requested', cause));
  }

  /** Runs until `signal` aborts. Never throws for API trouble; it retries. */
  async run(signal: AbortSignal): Promise<void> {
    const log = this.#o.logger;
    // Redis may be down at start: keep trying (with backoff) rather than start without the checkpoint.
    for (;;) {
      try {
        this.#rv = await this.#o.checkpoint.load(this.stream);
        break;
      } catch (err) {
        if (signal.aborted) return;
        const delay = backoffDelay(++this.#attempt, this.#o.backoff, this.#o.random);
        log.warn({ stream: this.stream, err: String(err), delayMs: delay }, 'cannot read the checkpoint');
        await sleep(delay, signal, this.#o.clock);
        if (signal.aborted) return;
      }
    }
    this.#attempt = 0;
    this.#unconfirmed = this.#rv !== undefined;
    if (this.#rv === undefined) this.#relistCause ??= 'no checkpoint';
    else log.info({ stream: this.stream, rv: this.#rv }, 'resuming watch from checkpoint');

    while (!signal.aborted) {
      try {
        if (this.#relistCause !== undefined || this.#rv === undefined) {
          const cause = this.#relistCause ?? 'no resourceVersion';
          this.#relistCause = undefined;
          try {
            await this.#relist(cause, signal);
          } catch (err) {
            this.#relistCause ??= cause; // a relist cut short is done again, whole
            throw err;
          }
          this.#served();
        }
        if (signal.aborted) break;
        if (this.#relistCause !== undefined) continue; // asked again while listing (e.g. data loss)
        await this.#watchOnce(signal);
      } catch (err) {
        if (signal.aborted) break;
        const end = toWatchEnd(err);
        this.counters.restarts[end.reason]++;
        this.#hooks.restart?.(this.#o.resource, end.reason);
        const delay = this.#delayFor(end);
        // A 404 is one warning (below) however many retries it takes, not one per retry.
        const level = end.reason === 'closed' || end.code === 404 ? 'debug' : 'warn';
        log[level](
          { stream: this.stream, reason: end.reason, rv: this.#rv, delayMs: delay, err: end.message },
          'watch ended; restarting',
        );
        if (end.code === 404 && !this.#missing) {
          this.#missing = true;
          log.warn({ stream: this.stream, err: end.message }, missingResourceHint(this.#o.resource));
        }
        if (end.reason === 'gone') this.#relistCause ??= '410 Gone'; // also an expired continue token
        if (this.#checkpointRefused(end)) {
          // The checkpoint's RV is none this server accepts (another server's, or written by someone else):
          // retrying it would be refused for good, so relist once, after this restart's backoff.
          log.warn({ stream: this.stream, code: end.code }, `${CHECKPOINT_REFUSED}: relisting in full`);
          this.#relistCause ??= CHECKPOINT_REFUSED;
        }
        if (delay > 0) await sleep(delay, signal, this.#o.clock);
      }
    }
    log.info({ stream: this.stream, rv: this.#rv }, 'watch stopped');
  }

  /** The API served the resource: if it was missing, say once that it is back. */
  #served(): void {
    if (!this.#missing) return;
    this.#missing = false;
    this.#o.logger.info({ stream: this.stream }, foundResourceHint(this.#o.resource));
  }

  /** A 400 or 422 to the first watch from a checkpoint's RV: the server refuses that RV itself. */
  #checkpointRefused(end: WatchEnd): boolean {
    return this.#unconfirmed && end.reason === 'client-error' && (end.code === 400 || end.code === 422);
  }

  #delayFor(end: WatchEnd): number {
    switch (end.reason) {
      case 'closed':
      case 'stall':
      case 'gone':
      case 'relist-requested':
        // Healthy endings re-watch at once; end.delayMs is set when the stream was suspiciously short.
        return end.delayMs ?? 0;
      case 'throttled': {
        const backoff = backoffDelay(++this.#attempt, this.#o.backoff, this.#o.random);
        // Honour Retry-After, plus a little jitter so throttled clients don't return together.
        return end.delayMs === undefined ? backoff : end.delayMs + Math.round(this.#o.random() * 250);
      }
      default:
        return backoffDelay(++this.#attempt, this.#o.backoff, this.#o.random);
    }
  }

  async #relist(cause: string, signal: AbortSignal): Promise<void> {
    const { resource, namespace, api, sink, logger } = this.#o;
    // While the resource is missing, each retry's relist is a debug line: the warning said it once.
    logger[this.#missing ? 'debug' : 'info']({ stream: this.stream, cause }, 'relisting');
    await handOn(sink.relistStarted?.(this.stream) ?? Promise.resolve());
    // The next page is asked for as soon as this one's continue token is known, so the server encodes it
    // and the response is parsed while this page is handed on. Pages still reach the sink one at a time,
    // in order, each taken before the next is handed on; a relist that fails drops the page ahead.
    const ahead = new AbortController();
    const onAbort = () => ahead.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const fetchPage = (cont: string | undefined): Promise<ListPage> => {
      const fetched = api
        .list(resource, namespace, {
          limit: this.#o.pageSize,
          ...(resource === 'pods' ? { labelSelector: NAME_LABEL } : {}),
          ...(cont === undefined ? {} : { continue: cont }),
          signal: ahead.signal,
        })
        .catch((err: unknown) => {
          throw callEnd(err, signal, 'unreachable');
        });
      fetched.catch(() => undefined); // observed when its turn comes; not before the page ahead of it
      return fetched;
    };
    let next: Promise<ListPage> | undefined = fetchPage(undefined);
    let listRv: string | undefined;
    let count = 0;
    try {
      while (next !== undefined && !signal.aborted) {
        const page: ListPage = await next;
        const cont: string | undefined = page.metadata?.continue === '' ? undefined : page.metadata?.continue;
        next = cont === undefined ? undefined : fetchPage(cont);
        const objects = page.items ?? [];
        count += objects.length;
        await handOn(sink.listed({ stream: this.stream, resource, objects, cause }));
        listRv = page.metadata?.resourceVersion;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (next !== undefined) ahead.abort(new Error('relist ended'));
    }
    if (signal.aborted) return;
    await handOn(sink.relistDone?.({ stream: this.stream, resource, namespace }) ?? Promise.resolve());
    this.counters.relists++; // completed relists
    this.counters.listedObjects += count;
    this.#hooks.relisted?.(resource, cause, count);
    this.#attempt = 0;
    this.#rv = listRv;
    this.#unconfirmed = false;
    if (listRv !== undefined) await handOn(this.#o.checkpoint.save(this.stream, listRv, { force: true }));
    logger.info({ stream: this.stream, cause, objects: count, rv: listRv }, 'relisted');
  }

  async #watchOnce(outer: AbortSignal): Promise<void> {
    const { resource, namespace, api, checkpoint, clock } = this.#o;
    const controller = new AbortController();
    this.#current = controller;
    const onOuter = () => controller.abort(outer.reason);
    outer.addEventListener('abort', onOuter, { once: true });
    const timeout = Math.round(this.#o.timeoutSeconds * (1 + this.#o.random()));
    const grace = this.#o.stallGraceMs;
    const stall = new StallCheck({
      timeoutSeconds: timeout,
      graceMs: grace,
      clock,
      onStall: () =>
        controller.abort(
          new WatchEnd(
            'stall',
            `the server neither ended the watch at its timeout (${timeout} s) nor sent anything for ${grace} ms after it`,
          ),
        ),
    });
    const handOff = new OrderedHandOff(
      async (rv, events) => {
        this.#rv = rv;
        await checkpoint.save(this.stream, rv, { events });
      },
      (err) => controller.abort(new WatchEnd('sink-error', err instanceof Error ? err.message : String(err))),
    );
    const started = clock.now();
    let lines = 0;
    try {
      const events = api.watch(resource, namespace, {
        ...(resource === 'pods' ? { labelSelector: NAME_LABEL } : {}),
        ...(this.#rv === undefined ? {} : { resourceVersion: this.#rv }),
        allowWatchBookmarks: true,
        timeoutSeconds: timeout,
        signal: controller.signal,
      });
      this.counters.watchesOpened++;
      try {
        for await (const batch of events) {
          for (const parsed of batch) {
            stall.heard();
            lines++;
            if (lines === 1) {
              this.#attempt = 0; // the server is healthy again
              this.#served();
            }
            const waiting = this.#take(parsed, handOff, stall);
            if (waiting !== undefined) await waiting;
            this.#unconfirmed = false; // the server sent something other than an ERROR from this RV
          }
        }
        stall.stop(); // the stream has ended: what follows waits on the sink alone
        this.#unconfirmed = false; // and it ended cleanly: the RV was accepted
        await handOn(handOff.taken);
      } catch (err) {
        stall.stop();
        await handOff.settle(); // let the RV get as far as the sink got
        throw (
          abortReason(controller.signal) ??
          callEnd(err, controller.signal, lines > 0 ? 'reset' : 'unreachable')
        );
      }
      // The stream ends quietly when aborted (stop, stall, relist request).
      const aborted = abortReason(controller.signal);
      if (aborted !== undefined) throw aborted;
      // Clean end. A stream that ends at once with nothing in it, over and over, would be a
      // reconnect storm: back off unless it carried something or lasted a while.
      const short = lines === 0 && clock.now() - started < 1000;
      throw new WatchEnd(
        'closed',
        'server closed the watch',
        short ? backoffDelay(++this.#attempt, this.#o.backoff, this.#o.random) : undefined,
      );
    } finally {
      stall.stop();
      outer.removeEventListener('abort', onOuter);
      if (!controller.signal.aborted) controller.abort();
      this.#current = undefined;
    }
  }

  /**
   * One line of the watch: an event handed on, a bookmark checkpointed, an ERROR ending the watch (thrown).
   * A promise only when there is something to wait for: most events need none, and an await each was a
   * promise and a microtask per event.
   */
  #take(parsed: WatchLine, handOff: OrderedHandOff, stall: StallCheck): Promise<void> | undefined {
    const { resource, sink } = this.#o;
    const obj = parsed.object ?? {};
    const rv = obj.metadata?.resourceVersion;
    switch (parsed.type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED':
        if (!isWatchedKind(resource, obj)) {
          this.counters.unexpected++;
          this.#o.logger.warn(
            { stream: this.stream, type: parsed.type, kind: obj.kind, apiVersion: obj.apiVersion },
            'skipped a watch event of an unexpected kind',
          );
          return;
        }
        this.counters.events[parsed.type]++;
        this.#hooks.event?.(resource, parsed.type);
        handOff.add(sink.event({ stream: this.stream, resource, type: parsed.type, object: obj, rv }), rv);
        if (handOff.inFlight >= this.#o.maxInFlight) return stall.busy(handOn(handOff.taken));
        return;
      case 'BOOKMARK':
        this.counters.events.BOOKMARK++;
        this.#hooks.event?.(resource, 'BOOKMARK');
        return this.#bookmark(rv, handOff, stall);
      case 'ERROR':
        this.#hooks.event?.(resource, 'ERROR');
        if (obj.code === 410 || isTooLargeResourceVersion(obj)) {
          throw new WatchEnd('gone', obj.message ?? `watch ERROR ${obj.code}`);
        }
        if (obj.code === 400 || obj.code === 422) {
          const end = new WatchEnd('client-error', `watch ERROR ${obj.code}: ${obj.message ?? ''}`);
          end.code = obj.code;
          throw end;
        }
        throw new WatchEnd('server-error', `watch ERROR ${obj.code ?? '?'}: ${obj.message ?? ''}`);
      default:
        return;
    }
  }

  async #bookmark(rv: string | undefined, handOff: OrderedHandOff, stall: StallCheck): Promise<void> {
    await stall.busy(handOn(handOff.taken)); // everything before the bookmark is handed on first
    if (rv !== undefined) {
      this.#rv = rv;
      await stall.busy(handOn(this.#o.checkpoint.save(this.stream, rv, { force: true })));
    }
  }
}
