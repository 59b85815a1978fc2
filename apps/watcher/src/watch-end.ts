// How a watch ended, as the loop's restart reason: the error type every failed call, abort and stream end
// is turned into, so the loop picks the next step (re-watch, back off, relist) from one field.
import { errorCode, isTooLargeResourceVersion, retryAfterSeconds } from './kube-api.ts';

/** Why a watch ended, and so what the loop does next (and the restarts metric's label). */
export type RestartReason =
  | 'closed' // the server ended the watch (timeoutSeconds) cleanly
  | 'reset' // the connection broke mid-stream
  | 'stall' // the server neither ended the watch at its timeoutSeconds nor sent anything for the grace after
  | 'gone' // 410: the RV is too old, relist
  | 'throttled' // 429
  | 'server-error' // 5xx, or an ERROR event other than 410
  | 'client-error' // other 4xx (RBAC, missing CRD…)
  | 'unreachable' // connection refused, DNS, timeout before the answer
  | 'relist-requested' // asked from outside (e.g. Redis lost its data)
  | 'sink-error'; // enqueue, event log or checkpoint failed (Redis down): the event is re-delivered

export class WatchEnd extends Error {
  readonly reason: RestartReason;
  readonly delayMs: number | undefined;
  /** The HTTP status of the failed call, when there was one. */
  code: number | undefined;
  constructor(reason: RestartReason, message: string, delayMs?: number) {
    super(message);
    this.reason = reason;
    this.delayMs = delayMs;
  }
}

/** Awaits a sink or checkpoint call, turning its failure into a 'sink-error' restart. */
export async function handOn(p: Promise<void>): Promise<void> {
  try {
    await p;
  } catch (err) {
    throw new WatchEnd('sink-error', err instanceof Error ? err.message : String(err));
  }
}

export function abortReason(signal: AbortSignal): WatchEnd | undefined {
  if (!signal.aborted) return undefined;
  return signal.reason instanceof WatchEnd ? signal.reason : new WatchEnd('closed', 'stopped');
}

export function toWatchEnd(err: unknown): WatchEnd {
  if (err instanceof WatchEnd) return err;
  return new WatchEnd('unreachable', err instanceof Error ? err.message : String(err));
}

/** Classifies a failed call: by HTTP status when there is one, else as `noStatus`. */
export function callEnd(err: unknown, signal: AbortSignal, noStatus: RestartReason): WatchEnd {
  if (err instanceof WatchEnd) return err;
  const message = err instanceof Error ? err.message : String(err);
  const code = errorCode(err);
  if (code === undefined || code === 0) return new WatchEnd(signal.aborted ? 'closed' : noStatus, message);
  if (code === 410) return new WatchEnd('gone', message);
  const status = (err as { status?: unknown } | null)?.status ?? { code, ...(err as object) };
  if (isTooLargeResourceVersion(status)) return new WatchEnd('gone', message);
  if (code === 429) {
    const s = retryAfterSeconds(err);
    return new WatchEnd('throttled', message, s === undefined ? undefined : s * 1000);
  }
  if (code >= 500) return new WatchEnd('server-error', message);
  const end = new WatchEnd('client-error', message);
  end.code = code;
  return end;
}
