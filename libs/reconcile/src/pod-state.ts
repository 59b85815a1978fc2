// What the planner reads from a pod: is it active, finished or terminating; is it ready; scheduled.
import { toMillis } from './time.ts';
import type { Pod, PodCondition } from './types.ts';

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

/** The pod's Ready condition when it is True (the one place that rule is written). */
export function readyCondition(pod: Pod): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
}

/** The pod's Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return readyCondition(pod) !== undefined;
}

/** The pod is bound to a node. */
export function isPodScheduled(pod: Pod): boolean {
  return typeof pod.spec?.nodeName === 'string' && pod.spec.nodeName !== '';
}

/** When the pod's Ready condition last became True (ms), if it is True and says so. */
export function readySince(pod: Pod): number | undefined {
  const c = readyCondition(pod);
  return c === undefined ? undefined : toMillis(c.lastTransitionTime);
}

/**
 * Available: Ready for at least minReadySeconds at `nowMs`. With minReadySeconds 0, Ready is enough;
 * otherwise a Ready condition without a lastTransitionTime never counts (as in Kubernetes).
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds === 0) return true;
  const since = readySince(pod);
  return since !== undefined && since + minReadySeconds * 1000 <= nowMs;
}

/** For a pod Ready but not yet available: ms until it is. Undefined otherwise. */
export function msUntilAvailable(pod: Pod, minReadySeconds: number, nowMs: number): number | undefined {
  if (!isPodReady(pod) || isPodAvailable(pod, minReadySeconds, nowMs)) return undefined;
  const since = readySince(pod);
  return since === undefined ? undefined : since + minReadySeconds * 1000 - nowMs;
}
