// An abortable sleep on a Clock, for the watcher's waits between retries and lease renewals: the loops
// that wait check their signal afterwards, so an abort ends the wait without an error.
import { systemClock, type Clock } from '@podset/clock';

/** Resolves after ms on `clock`, or early (without throwing) when the signal aborts. */
export async function sleep(ms: number, signal?: AbortSignal, clock: Clock = systemClock): Promise<void> {
  try {
    await clock.sleep(ms, signal);
  } catch (err) {
    if (signal?.aborted !== true) throw err;
  }
}
