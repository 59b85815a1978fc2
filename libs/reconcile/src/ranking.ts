// Which surplus pods go first: the ones whose loss hurts least, in the order of Kubernetes'
// ActivePodsWithRanks. Unscheduled before scheduled, Pending before Unknown before Running, not-ready
// before ready, lower pod-deletion-cost before higher, youngest first; name then UID break ties so the
// order is total and deterministic.
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

/** The annotation a user sets to say which pods of a set to delete first (lower cost first). */
export const DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** The pod's deletion cost: the annotation as an int32, else 0 (as a ReplicaSet reads a missing or bad one). */
export function deletionCost(pod: Pod): number {
  const text = pod.metadata?.annotations?.[DELETION_COST_ANNOTATION];
  if (text === undefined || !/^[+-]?\d+$/.test(text)) return 0;
  const n = Number(text);
  return n >= INT32_MIN && n <= INT32_MAX ? n : 0;
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
    cmp(deletionCost(a), deletionCost(b)) ||
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
