// How a reconcile's failures are named: the error it throws for the queue to retry, and the words that
// go into the ReplicaFailure condition (stable across attempts) and into Events and logs (the API's own).
import { isKubeApiError } from '@podset/kube';
import type { CreateFailure } from './executor.ts';

/** A reconcile that went through but could not do all it had to: the queue retries it with backoff. */
export class ReconcileError extends Error {
  override name = 'ReconcileError';
  readonly reason: string;
  /** The PodSet's generation the failed pass planned from (for parking). */
  readonly generation: number | undefined;
  /** The API's own words (may name generated objects): for Events and logs, not for conditions. */
  readonly detail: string | undefined;
  constructor(reason: string, message: string, opts: { generation?: number; detail?: string } = {}) {
    super(message);
    this.reason = reason;
    this.generation = opts.generation;
    this.detail = opts.detail;
  }
}

/** A pass's first failure, before it becomes a ReconcileError. */
export interface Failure {
  reason: string;
  /** Stable across attempts that fail the same way: it goes into the ReplicaFailure condition. */
  message: string;
  /** The API's message for the first failure, for Events. */
  detail?: string;
}

export function errorText(err: unknown): string {
  if (isKubeApiError(err)) return `${err.code} ${err.reason}: ${err.statusMessage}`;
  return err instanceof Error ? err.message : String(err);
}

/** The condition's reason for an error: a ReconcileError's or the API's, else ReconcileError. */
export function reasonOf(err: unknown): string {
  if (err instanceof ReconcileError) return err.reason;
  if (isKubeApiError(err)) return err.reason;
  return 'ReconcileError';
}

/** " (the API's words)" for a Warning Event, when the error carries them. */
export function detailOf(error: unknown): string {
  return error instanceof ReconcileError && error.detail !== undefined ? ` (${error.detail})` : '';
}

/**
 * The ReplicaFailure message for failed creates: the same on every attempt that fails the same way (no
 * generated pod names, no server message that may carry one), so a retry rewrites no status. The API's
 * full message goes into the Warning Event instead.
 */
export function createFailureMessage(failure: CreateFailure, wanted: number): string {
  const verb = isKubeApiError(failure.error) ? 'rejected' : 'failed';
  return `${failure.failed} of ${wanted} pod creates ${verb}: ${stableReason(failure.error)}`;
}

/** An error's cause in words that don't vary between attempts: the API's reason, or the error's code or kind. */
export function stableReason(err: unknown): string {
  if (isKubeApiError(err)) return `${err.code} ${err.reason}`;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== '') return code;
  return err instanceof Error ? err.name : 'Error';
}
