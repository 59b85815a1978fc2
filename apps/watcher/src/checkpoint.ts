// The last resourceVersion of each watched stream, kept in Redis so a restarted (or newly elected)
// watcher resumes where the last one stopped instead of relisting. Writes are throttled (every N
// events or every interval, and at once when forced: relists, bookmarks, shutdown). A lagging
// checkpoint is safe: resuming from an older RV replays events, and replays are idempotent.
//
// Also detects a Redis that lost its data (restarted without persistence, flushed): a sentinel key is
// written at start and re-checked periodically and on every reconnect; when it has vanished, the
// queue lost its pending requests too, so the owner relists and enqueues every key.
import type { RedisClient } from '@podset/redis';
import { systemClock, type Clock } from '@podset/clock';
import type { Checkpointer } from './watch-loop.ts';
import type { Logger } from '@podset/log';

/**
 * A resourceVersion is opaque to clients: only the API server may say one is too old (410) or unknown. What
 * a checkpoint can be held to is the shape of a string the API could have issued: printable ASCII, not empty,
 * and short. Anything else (a control character, a megabyte) was written by someone else and is never sent.
 */
const MAX_RESOURCE_VERSION_LENGTH = 256;
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/** Why a stored checkpoint cannot be a resourceVersion, or undefined when it can. */
export function checkpointFault(rv: string): string | undefined {
  if (rv === '') return 'empty';
  if (rv.length > MAX_RESOURCE_VERSION_LENGTH) return `longer than ${MAX_RESOURCE_VERSION_LENGTH} characters`;
  if (!PRINTABLE_ASCII.test(rv)) return 'not printable ASCII';
  return undefined;
}

export interface CheckpointOptions {
  redis: RedisClient;
  /** Hash key holding `stream → rv`. */
  key: string;
  /** Write after this many unsaved events. Default 100. */
  everyEvents?: number;
  /** Write unsaved RVs at least this often (ms). Default 1000. */
  everyMs?: number;
  logger: Logger;
}

export class RedisCheckpoint implements Checkpointer {
  readonly #redis: RedisClient;
  readonly #key: string;
  readonly #everyEvents: number;
  readonly #logger: Logger;
  readonly #pending = new Map<string, string>();
  #unsaved = 0;
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  /** Writes made (for tests and metrics). */
  writes = 0;

  constructor(options: CheckpointOptions) {
    this.#redis = options.redis;
    this.#key = options.key;
    this.#everyEvents = options.everyEvents ?? 100;
    this.#logger = options.logger;
    this.#timer = setInterval(() => {
      if (this.#pending.size > 0) {
        this.flush().catch((err: unknown) =>
          this.#logger.warn({ err: String(err) }, 'checkpoint write failed; will retry'),
        );
      }
    }, options.everyMs ?? 1000);
    this.#timer.unref();
  }

  /**
   * The stream's checkpoint, or undefined (a full relist). Any string the API could have issued is kept,
   * whatever its format; whether it is still good is the API's answer to the watch from it (the watch loop
   * relists on 410 Gone and on a refused resumed version). A value no API issues (anyone holding the
   * watcher's Redis password can write one) is logged by its stream, never by its value, and taken as no
   * checkpoint.
   */
  async load(stream: string): Promise<string | undefined> {
    const rv = await this.#redis.hget(this.#key, stream);
    if (rv === null) return undefined;
    const why = checkpointFault(rv);
    if (why === undefined) return rv;
    this.#logger.warn(
      { stream, redisKey: this.#key, why },
      'the checkpoint is out of bounds: relisting in full',
    );
    return undefined;
  }

  async save(stream: string, rv: string, opts: { force?: boolean; events?: number } = {}): Promise<void> {
    this.#pending.set(stream, rv);
    this.#unsaved += opts.events ?? 1;
    if (opts.force === true || this.#unsaved >= this.#everyEvents) await this.flush();
  }

  /** Writes every unsaved RV now (serialised: concurrent callers wait for one write). */
  flush(): Promise<void> {
    const run = this.#flushing.then(async () => {
      if (this.#pending.size === 0) return;
      const batch = new Map(this.#pending);
      this.#pending.clear();
      this.#unsaved = 0;
      try {
        await this.#redis.hset(this.#key, Object.fromEntries(batch));
        this.writes++;
      } catch (err) {
        // Put back what wasn't written, unless something newer arrived meanwhile.
        for (const [stream, rv] of batch) if (!this.#pending.has(stream)) this.#pending.set(stream, rv);
        throw err;
      }
    });
    this.#flushing = run.catch(() => undefined);
    return run;
  }

  /** Forget a stream's RV in memory (unsaved) — e.g. when leadership is lost, nothing more is written. */
  discardPending(): void {
    this.#pending.clear();
    this.#unsaved = 0;
  }

  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

export interface DataLossOptions {
  redis: RedisClient;
  /** The sentinel key; it must live where the queue lives (same Redis, same hash slot prefix). */
  key: string;
  /** How often to check (ms). Default 5000. */
  intervalMs?: number;
  logger: Logger;
  /** Called when the sentinel had vanished: Redis lost its data since the last check. */
  onLoss: () => void;
  /** Stamps the sentinel's value (this process and when it started). Default the system clock. */
  clock?: Clock;
}

/** Watches for a Redis that lost its data (see file comment). Call stop() when done. */
export class DataLossDetector {
  readonly #o: DataLossOptions;
  readonly #value: string;
  #timer: NodeJS.Timeout | undefined;
  #armed = false;
  readonly #onReady = () => void this.check();
  losses = 0;

  constructor(options: DataLossOptions) {
    this.#o = options;
    this.#value = `${process.pid}-${(options.clock ?? systemClock).now()}`;
  }

  /** Writes the sentinel (if absent) and starts checking. */
  async start(): Promise<void> {
    await this.#o.redis.set(this.#o.key, this.#value, 'NX');
    this.#armed = true;
    this.#timer = setInterval(() => void this.check(), this.#o.intervalMs ?? 5000);
    this.#timer.unref();
    this.#o.redis.on('ready', this.#onReady);
  }

  /** True when the sentinel was missing (and is now rewritten). Errors (Redis down) count as no. */
  async check(): Promise<boolean> {
    if (!this.#armed) return false;
    try {
      const wrote = await this.#o.redis.set(this.#o.key, this.#value, 'NX');
      if (wrote !== 'OK') return false;
    } catch {
      return false;
    }
    this.losses++;
    this.#o.logger.warn(
      { key: this.#o.key },
      'redis lost its data (sentinel vanished): relisting everything',
    );
    this.#o.onLoss();
    return true;
  }

  stop(): void {
    this.#armed = false;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#o.redis.off('ready', this.#onReady);
  }
}
