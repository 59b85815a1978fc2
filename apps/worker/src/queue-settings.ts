// The queue's settings that BullMQ reads from Redis before it hands out a job (its meta hash): `paused`,
// and a global `concurrency` and rate limit (`max`, `duration`). One field there stops or throttles every
// reconcile of every worker, and any holder of the worker's password can write it.
// - `paused` can be deliberate: the dashboard, when not read-only (DASHBOARD_READ_ONLY=false), offers
//   bull-board's Pause and Resume. A worker that resumed the queue would undo an operator's stop, so it
//   alerts instead: podset_queue_paused is 1, /readyz fails with the reason, and a log line says so once
//   per pause (and once when it ends).
// - `concurrency`, `max` and `duration` are never set by this project (nothing offers them): a worker that
//   finds one removes it, logs it (by name) and counts it as out of bounds.
import type { RedisClient } from '@podset/redis';
import { systemClock, type Clock } from '@podset/clock';
import type { Logger } from '@podset/log';
import type { OutOfBoundsReport } from './out-of-bounds.ts';

/** BullMQ's meta fields that throttle every worker; the project sets none of them. */
export const FOREIGN_QUEUE_SETTINGS = ['concurrency', 'max', 'duration'] as const;

/** How often the settings are looked at (besides at each readiness check). */
export const QUEUE_SETTINGS_CHECK_MS = 5_000;

export interface QueueSettingsWatch {
  /** Looks now: removes foreign settings; answers why the queue takes no work (undefined: it does). */
  check(): Promise<string | undefined>;
  /** Stops the periodic look. */
  close(): void;
}

export interface QueueSettingsOptions {
  client: RedisClient;
  /** BullMQ's meta hash of the reconcile queue. */
  metaKey: string;
  log: Pick<Logger, 'warn' | 'info'>;
  outOfBounds: OutOfBoundsReport;
  /** Sets podset_queue_paused. */
  paused: (paused: boolean) => void;
  intervalMs?: number;
  clock?: Pick<Clock, 'sleep'>;
}

export const PAUSED_REASON =
  "paused: the queue's meta has paused set, so no worker takes a reconcile (resume it from the dashboard, or with BullMQ's Queue.resume())";

export function watchQueueSettings(o: QueueSettingsOptions): QueueSettingsWatch {
  const stop = new AbortController();
  const clock = o.clock ?? systemClock;
  let wasPaused = false;
  const look = async (): Promise<string | undefined> => {
    const [paused, ...foreign] = await o.client.hmget(o.metaKey, 'paused', ...FOREIGN_QUEUE_SETTINGS);
    const set = FOREIGN_QUEUE_SETTINGS.filter((_, i) => foreign[i] !== null);
    if (set.length > 0) {
      await o.client.hdel(o.metaKey, ...set);
      for (const name of set) {
        o.outOfBounds({
          what: 'queue-setting',
          key: name,
          why: 'a global limit of the queue this project never sets: removed',
        });
      }
    }
    const isPaused = paused !== null;
    o.paused(isPaused);
    if (isPaused !== wasPaused) {
      if (isPaused) o.log.warn({ metaKey: o.metaKey }, `the reconcile queue is ${PAUSED_REASON}`);
      else o.log.info({ metaKey: o.metaKey }, 'the reconcile queue is resumed: reconciles run again');
      wasPaused = isPaused;
    }
    return isPaused ? PAUSED_REASON : undefined;
  };
  // One look at a time: a readiness check during the periodic one shares it (and reports nothing twice).
  let looking: Promise<string | undefined> | undefined;
  const check = (): Promise<string | undefined> => (looking ??= look().finally(() => (looking = undefined)));
  const loop = async () => {
    while (!stop.signal.aborted) {
      await check().catch((err: unknown) =>
        o.log.warn({ err: String(err) }, "could not read the queue's settings; looking again later"),
      );
      await clock.sleep(o.intervalMs ?? QUEUE_SETTINGS_CHECK_MS, stop.signal).catch(() => undefined);
    }
  };
  void loop();
  return { check, close: () => stop.abort() };
}
