// Which surplus pods go first: the ones whose loss hurts least. Unscheduled before scheduled, Pending
// before Unknown before Running, not-ready before ready, youngest first; name then UID break ties so
// the order is total and deterministic.
import { isPodReady, isPodScheduled } from './pod-state.ts';
import { toMillis } from './time.ts';
import type { Pod } from './types.ts';

function phaseRank(pod: Pod): number {
  switch (pod.status?.phase) {
    case 'Running':
      return 2;
    case 'Unknown':
      return 1;
    default:
      return 0; // Pending, or no phase yet
  }
}

function creationMillis(pod: Pod): number {
  // A pod without a creation time is treated as the youngest.
  return toMillis(pod.metadata?.creationTimestamp) ?? Number.POSITIVE_INFINITY;
}

function cmp(a: number | string, b: number | string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Negative: `a` is deleted before `b`. */
export function compareForDeletion(a: Pod, b: Pod): number {
  return (
    cmp(Number(isPodScheduled(a)), Number(isPodScheduled(b))) ||
    cmp(phaseRank(a), phaseRank(b)) ||
    cmp(Number(isPodReady(a)), Number(isPodReady(b))) ||
    cmp(creationMillis(b), creationMillis(a)) || // younger (later) first
    cmp(a.metadata?.name ?? '', b.metadata?.name ?? '') ||
    cmp(a.metadata?.uid ?? '', b.metadata?.uid ?? '')
  );
}

/** A sorted copy: the first pod is the first to delete. */
export function rankForDeletion<P extends Pod>(pods: readonly P[]): P[] {
  return [...pods].sort(compareForDeletion);
}

/** Finished pods, youngest first: the first ones are kept, the rest deleted. */
export function rankFinishedForRetention<P extends Pod>(pods: readonly P[]): P[] {
  return [...pods].sort(
    (a, b) =>
      cmp(creationMillis(b), creationMillis(a)) ||
      cmp(a.metadata?.name ?? '', b.metadata?.name ?? '') ||
      cmp(a.metadata?.uid ?? '', b.metadata?.uid ?? ''),
  );
}
