// Client-side rate limit for every request to the Kubernetes API: a token bucket (QPS, burst), like
// client-go's flowcontrol limiter, plus a pause that a 429's Retry-After imposes on everyone.
//
// Reservations are taken in call order (FIFO): each acquire takes one token now, possibly driving the
// balance negative, and waits until the bucket would have refilled to it. This makes waits exact and
// testable with an injected clock.
import { systemClock, type Clock } from '@podset/clock';

export interface RateLimiterOptions {
  /** Sustained requests per second. 0 or Infinity: unlimited (Retry-After pauses still apply). */
  qps: number;
  /** Bucket size: how many requests may go at once after an idle period. At least 1. */
  burst: number;
  clock?: Clock;
}

export interface RateLimiterStats {
  /** Requests admitted so far. */
  acquired: number;
  /** Requests that had to wait (for tokens or a pause). */
  waited: number;
  /** Total time spent waiting across all requests, in ms. */
  waitMs: number;
  /** Retry-After pauses applied. */
  pauses: number;
}

export class RateLimiter {
  readonly qps: number;
  readonly burst: number;
  readonly clock: Clock;
  #tokens: number;
  #last: number;
  #pausedUntil = 0;
  #stats: RateLimiterStats = { acquired: 0, waited: 0, waitMs: 0, pauses: 0 };

  constructor(options: RateLimiterOptions) {
    if (!(options.qps >= 0)) throw new RangeError(`qps must be >= 0, got ${options.qps}`);
    if (!(options.burst >= 1)) throw new RangeError(`burst must be >= 1, got ${options.burst}`);
    this.qps = options.qps;
    this.burst = options.burst;
    this.clock = options.clock ?? systemClock;
    this.#tokens = options.burst;
    this.#last = this.clock.elapsed();
  }

  get unlimited(): boolean {
    return this.qps === 0 || this.qps === Infinity;
  }

  /**
   * Reserve one request slot and return how long the caller must wait (ms) before sending it.
   * The reservation is made now, so later callers queue behind it.
   */
  reserve(): number {
    const now = this.clock.elapsed();
    let wait = 0;
    if (!this.unlimited) {
      this.#refill(now);
      this.#tokens -= 1;
      if (this.#tokens < 0) wait = (-this.#tokens * 1000) / this.qps;
    }
    wait = Math.max(wait, this.#pausedUntil - now);
    this.#stats.acquired += 1;
    if (wait > 0) {
      this.#stats.waited += 1;
      this.#stats.waitMs += wait;
    }
    return wait;
  }

  /** Wait for a slot; resolves with the time waited (ms). */
  async acquire(signal?: AbortSignal): Promise<number> {
    const wait = this.reserve();
    if (wait > 0) await this.clock.sleep(wait, signal);
    return wait;
  }

  /** Hold every request (current reservations included from now on) for `ms`, e.g. from a 429's Retry-After. */
  pause(ms: number): void {
    if (!(ms > 0)) return;
    const until = this.clock.elapsed() + ms;
    if (until > this.#pausedUntil) {
      this.#pausedUntil = until;
      this.#stats.pauses += 1;
    }
  }

  /** Tokens available right now (may be negative when requests are queued). */
  tokens(): number {
    if (!this.unlimited) this.#refill(this.clock.elapsed());
    return this.#tokens;
  }

  stats(): RateLimiterStats {
    return { ...this.#stats };
  }

  #refill(now: number): void {
    const elapsed = now - this.#last;
    if (elapsed > 0) {
      this.#tokens = Math.min(this.burst, this.#tokens + (elapsed * this.qps) / 1000);
      this.#last = now;
    }
  }
}
