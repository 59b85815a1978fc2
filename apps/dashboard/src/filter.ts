// The overview's filter: query parameters (a plain GET form, so it works without JavaScript) over
// namespace, name and status. Parsing refuses what it does not know (a 400 names it) rather than
// quietly showing everything.
import { failingCondition } from '@podset/reconcile';
import { isConverged, type PodSetRow } from './overview.ts';

export const STATUSES = ['converged', 'progressing', 'rolling-out', 'failing'] as const;
export type StatusFilter = (typeof STATUSES)[number];

export interface OverviewFilter {
  /** Words that must all occur in "namespace/name status" (case-insensitive). */
  q: string;
  /** Exact namespace; empty: all. */
  namespace: string;
  status: StatusFilter | '';
}

export const NO_FILTER: OverviewFilter = { q: '', namespace: '', status: '' };
const MAX_QUERY = 200;

export type PodSetState = 'converged' | 'progressing' | 'rolling-out' | 'failing';

/**
 * Failing first (whatever else holds, its reconciles don't succeed), then rolling out (a new template
 * replacing the pods), converged, or progressing (not there yet).
 */
export function stateOf(r: PodSetRow): PodSetState {
  if (isFailing(r)) return 'failing';
  if (r.rollout !== undefined) return 'rolling-out';
  return isConverged(r) ? 'converged' : 'progressing';
}

/**
 * Its status says it fails (libs/reconcile's failingCondition: ReplicaFailure True, or the progress
 * deadline passed), or the last reconcile failed or waits for its retry. The condition is the
 * lasting signal: the worker keeps it until a reconcile succeeds, while a parked key's requests end as
 * completed jobs (they only wait out its backoff) and finished jobs are removed after a while.
 */
export function isFailing(r: Pick<PodSetRow, 'conditions' | 'lastReconcile'>): boolean {
  if (failingCondition(r.conditions) !== undefined) return true;
  return r.lastReconcile !== undefined && r.lastReconcile.result !== 'completed';
}

export function parseFilter(
  params: Record<string, string | undefined>,
): { filter: OverviewFilter } | { problem: string } {
  const q = (params.q ?? '').trim();
  const namespace = (params.namespace ?? '').trim();
  const status = (params.status ?? '').trim();
  if (q.length > MAX_QUERY) return { problem: `q: at most ${MAX_QUERY} characters` };
  if (namespace.length > 63 || (namespace !== '' && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(namespace))) {
    return { problem: 'namespace: not a valid namespace name' };
  }
  if (status !== '' && !(STATUSES as readonly string[]).includes(status)) {
    return { problem: `status: one of ${STATUSES.join(', ')}` };
  }
  return { filter: { q, namespace, status: status as StatusFilter | '' } };
}

export function matches(r: PodSetRow, f: OverviewFilter): boolean {
  if (f.namespace !== '' && r.namespace !== f.namespace) return false;
  const state = stateOf(r);
  if (f.status !== '' && state !== f.status) return false;
  if (f.q === '') return true;
  const text = `${r.namespace}/${r.name} ${state}`.toLowerCase();
  return f.q
    .toLowerCase()
    .split(/\s+/)
    .every((word) => text.includes(word));
}

export function isFiltered(f: OverviewFilter): boolean {
  return f.q !== '' || f.namespace !== '' || f.status !== '';
}
