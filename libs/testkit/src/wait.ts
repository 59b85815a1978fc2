import { setTimeout as sleep } from 'node:timers/promises';
import { systemClock } from '@podset/clock';

export interface WaitOptions {
  /** Give up after this long. Default 20 s: generous, because the shared test machines are noisy. */
  timeoutMs?: number;
  /** Pause between checks. Default 25 ms. */
  intervalMs?: number;
  /** Extra context for the timeout error (e.g. a child's recent logs), computed only on failure. */
  describe?: () => string;
  /** Checked after each failed check: a reason (e.g. "the process exited") ends the wait at once. */
  giveUp?: () => string | undefined;
}

type Falsy = undefined | null | false | 0 | '';

/**
 * Polls `check` (sync or async) until it returns a truthy value, and returns that value. A check that
 * throws counts as "not yet". On timeout it throws an Error naming `what`, with the last value or error
 * seen. `options` may be just the timeout in ms.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | Falsy | Promise<T | Falsy>,
  opts: WaitOptions | number = {},
): Promise<T> {
  const options = typeof opts === 'number' ? { timeoutMs: opts } : opts;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const intervalMs = options.intervalMs ?? 25;
  const deadline = systemClock.now() + timeoutMs;
  let last: { value: unknown } | { error: unknown } | undefined;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    const reason = options.giveUp?.();
    if (reason !== undefined) {
      const extra = options.describe === undefined ? '' : `\n${options.describe()}`;
      throw new Error(`gave up waiting for ${what}: ${reason}${extra}`);
    }
    if (systemClock.now() >= deadline)
      throw new Error(timeoutMessage(what, timeoutMs, last, options.describe));
    await sleep(intervalMs);
  }
}

function timeoutMessage(
  what: string,
  timeoutMs: number,
  last: { value: unknown } | { error: unknown } | undefined,
  describe: (() => string) | undefined,
): string {
  let seen = '';
  if (last !== undefined && 'error' in last) seen = `; last error: ${String(last.error)}`;
  else if (last !== undefined) seen = `; last value: ${safeJson(last.value)}`;
  const extra = describe === undefined ? '' : `\n${describe()}`;
  return `timed out after ${timeoutMs} ms waiting for ${what}${seen}${extra}`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
