// What a reconcile tells the queue when it ends, after controller-runtime's reconcile.go: return a
// ReconcileResult (look again after a delay, and why), throw an error to be retried with backoff, or
// throw a TerminalError to say that retrying cannot help.
import { UnrecoverableError } from 'bullmq';

/** A reconcile that went through. Nothing asked: no further reconcile until something changes. */
export interface ReconcileResult {
  /** Reconcile the key again after this long (ms), or sooner if asked to. */
  requeueAfterMs?: number;
  /** Why it looks again (e.g. pods not ready yet), for logs. */
  reason?: string;
}

/**
 * Thrown by a reconcile whose failure no retry can mend: the job ends at once (no further attempt)
 * and onFinalFailure sees its cause, just as it sees the error of a last attempt.
 */
export class TerminalError extends Error {
  override name = 'TerminalError';
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** Whether `err` ends the job's attempts now (BullMQ's own UnrecoverableError counts too). */
export function isTerminal(err: unknown): boolean {
  return err instanceof TerminalError || err instanceof UnrecoverableError;
}

/** The error a reconcile failed with: a TerminalError's cause, else the error itself. */
export function failureOf(err: Error): Error {
  if (err instanceof TerminalError && err.cause instanceof Error) return err.cause;
  return err;
}
