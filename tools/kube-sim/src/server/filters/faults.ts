// Fault injection, set at start or at run time: errors, latency, watch cuts and expiry, a shrunk history.
import { ApiError } from '../../apimachinery/types.ts';
import type { Filter } from './chain.ts';

export interface ErrorRule {
  /** Verb (`create`, `list`, `watch`, ...) or '*' / undefined for all. */
  verb?: string;
  /** Resource plural (`pods`, `podsets`: also their subresources), `podsets/status` for one subresource, or '*' / undefined for all. */
  resource?: string;
  /** Fraction of matching requests that fail, 0..1 (default 1). */
  rate?: number;
  code: number;
  reason?: string;
  message?: string;
  /** For 429 (default 1) and 503. */
  retryAfterSeconds?: number;
  /** Fail only this many times, then the rule is spent. */
  times?: number;
}

export interface FaultOptions {
  errors?: ErrorRule[];
  /** Added to every request (watch: before the stream starts). */
  latencyMs?: number;
  /** Random extra latency in [0, jitterMs). */
  latencyJitterMs?: number;
  /** End every watch after this many seconds. */
  watchCutAfterSeconds?: number;
  /** End every watch after it sent this many events. */
  watchCutAfterEvents?: number;
  /** How a watch is cut: a clean end of the response (default) or a reset connection. */
  watchCutMode?: 'end' | 'reset';
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export class Faults {
  errors: ErrorRule[] = [];
  latencyMs = 0;
  latencyJitterMs = 0;
  watchCutAfterSeconds: number | undefined;
  watchCutAfterEvents: number | undefined;
  watchCutMode: 'end' | 'reset' = 'end';
  private goneWatches = 0;
  /** Set by the server: shrinks the retained event history (watch resume window). */
  setHistoryLimit: (n: number) => void = () => {};
  /** Set by the server: forgets all history now (every older resourceVersion gives 410). */
  compactHistory: () => void = () => {};
  /**
   * Set by the server: a silent stall of every open watch (connection open, no events, no bookmarks, no end at
   * its timeoutSeconds) — what a client must detect by itself. New watches are not affected. Returns how many
   * were stalled.
   */
  stallWatches: () => number = () => 0;

  constructor(opts: FaultOptions = {}) {
    this.set(opts);
  }

  /** Replaces the given settings (others are kept). */
  set(opts: FaultOptions): void {
    if (opts.errors) this.errors = opts.errors.map((e) => ({ ...e }));
    if (opts.latencyMs !== undefined) this.latencyMs = opts.latencyMs;
    if (opts.latencyJitterMs !== undefined) this.latencyJitterMs = opts.latencyJitterMs;
    if ('watchCutAfterSeconds' in opts) this.watchCutAfterSeconds = opts.watchCutAfterSeconds;
    if ('watchCutAfterEvents' in opts) this.watchCutAfterEvents = opts.watchCutAfterEvents;
    if (opts.watchCutMode) this.watchCutMode = opts.watchCutMode;
  }

  /** The current settings (JSON). */
  snapshot(): FaultOptions & { expiredWatchesPending: number } {
    return {
      errors: this.errors.map((e) => ({ ...e })),
      latencyMs: this.latencyMs,
      latencyJitterMs: this.latencyJitterMs,
      ...(this.watchCutAfterSeconds !== undefined ? { watchCutAfterSeconds: this.watchCutAfterSeconds } : {}),
      ...(this.watchCutAfterEvents !== undefined ? { watchCutAfterEvents: this.watchCutAfterEvents } : {}),
      watchCutMode: this.watchCutMode,
      expiredWatchesPending: this.goneWatches,
    };
  }

  addError(rule: ErrorRule): void {
    this.errors.push({ ...rule });
  }

  /** Clears every fault. */
  reset(): void {
    this.errors = [];
    this.latencyMs = 0;
    this.latencyJitterMs = 0;
    this.watchCutAfterSeconds = undefined;
    this.watchCutAfterEvents = undefined;
    this.watchCutMode = 'end';
    this.goneWatches = 0;
  }

  /** The next `n` watches are answered with 410 Gone. */
  expireNextWatch(n = 1): void {
    this.goneWatches += n;
  }

  takeExpiredWatch(): boolean {
    if (this.goneWatches <= 0) return false;
    this.goneWatches--;
    return true;
  }

  delayMs(): number {
    return this.latencyMs + (this.latencyJitterMs ? Math.random() * this.latencyJitterMs : 0);
  }

  /** Throws the injected error for this request, if a rule fires. */
  check(verb: string, resource: string, subresource = ''): void {
    for (const r of this.errors) {
      if (r.verb && r.verb !== '*' && r.verb !== verb) continue;
      if (
        r.resource &&
        r.resource !== '*' &&
        r.resource !== resource &&
        r.resource !== `${resource}/${subresource}`
      ) {
        continue;
      }
      if (r.times !== undefined && r.times <= 0) continue;
      if (Math.random() >= (r.rate ?? 1)) continue;
      if (r.times !== undefined) r.times--;
      const reason = r.reason ?? REASONS[r.code] ?? 'InternalError';
      const retry = r.retryAfterSeconds ?? (r.code === 429 ? 1 : undefined);
      throw new ApiError(r.code, reason, r.message ?? `injected fault: ${reason}`, {
        ...(retry !== undefined ? { retryAfterSeconds: retry } : {}),
      });
    }
  }
}

/** Injected latency, before anything but authentication (a watch waits before its stream starts). */
export function withLatency(faults: Faults): Filter {
  return async (_ctx, next) => {
    const delay = faults.delayMs();
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    await next();
  };
}

/** Injected errors of a resource request, once it is authorized (by its verb, resource and subresource). */
export function withInjectedErrors(faults: Faults): Filter {
  return async (ctx, next) => {
    const info = ctx.info;
    if (info) faults.check(info.verb, info.plural, info.subresource ?? '');
    await next();
  };
}
