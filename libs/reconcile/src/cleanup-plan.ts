// The plan for a PodSet being deleted: its pods go (worst first, capped per pass), then the finalizer.
import { CLEANUP_FINALIZER } from './api.ts';
import { podLifecycle } from './pod-state.ts';
import { podDeletion } from './pod-changes.ts';
import { rankForDeletion } from './ranking.ts';
import { plural } from './text.ts';
import type { Plan, Pod, PodSet, ReconcileOptions } from './types.ts';

export function cleanupPlan(podset: PodSet, controlled: Pod[], opts: Required<ReconcileOptions>): Plan {
  const status = structuredClone(podset.status ?? {});
  const hasFinalizer = podset.metadata.finalizers?.includes(CLEANUP_FINALIZER) ?? false;
  // Without our finalizer the deletion does not wait for us: its pods are the garbage collector's.
  if (!hasFinalizer) {
    return {
      mode: 'cleanup',
      creates: [],
      deletes: [],
      status,
      statusChanged: false,
      events: [],
      requeue: null,
      finalizer: null,
    };
  }
  const goners = rankForDeletion(controlled.filter((p) => podLifecycle(p) !== 'terminating'));
  const deletes = goners.slice(0, opts.maxDeletesPerPass).map((p) => podDeletion(podset, p, 'Cleanup'));
  const capped = deletes.length < goners.length;
  return {
    mode: 'cleanup',
    creates: [],
    deletes,
    status,
    statusChanged: false,
    events:
      deletes.length > 0
        ? [{ type: 'Normal', reason: 'CleaningUp', message: `Deleting ${plural(deletes.length, 'pod')}` }]
        : [],
    requeue: capped ? { afterMs: 0, reason: 'MoreWork' } : null,
    finalizer: capped ? null : 'remove',
  };
}
