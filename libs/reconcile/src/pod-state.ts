// What the planner reads from a pod: is it active, finished or terminating; is it ready; scheduled.
import type { Pod } from './types.ts';

/**
 * - terminating: has a deletionTimestamp (whatever its phase): not counted, never deleted again;
 * - finished: phase Succeeded or Failed: not counted, replaced, deleted beyond a retention bound;
 * - active: everything else (Pending, Running, Unknown, no phase yet).
 */
export type PodLifecycle = 'active' | 'finished' | 'terminating';

export function podLifecycle(pod: Pod): PodLifecycle {
  if (pod.metadata?.deletionTimestamp) return 'terminating';
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return 'finished';
  return 'active';
}

/** The pod's Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** The pod is bound to a node. */
export function isPodScheduled(pod: Pod): boolean {
  return typeof pod.spec?.nodeName === 'string' && pod.spec.nodeName !== '';
}
