// The plan for a PodSet being deleted: its pods go (worst first, capped per pass), then the finalizer —
// unless the deletion orphans them (kubectl delete --cascade=orphan): then no pod goes, and the garbage
// collector takes our ownerReference off each of them.
import { CLEANUP_FINALIZER, ORPHAN_FINALIZER } from './api.ts';
import { podLifecycle } from './pod-state.ts';
import { podDeletion } from './pod-changes.ts';
import { rankForDeletion } from './ranking.ts';
import { plural } from './text.ts';
import type { Plan, PlannedEvent, Pod, PodSet, PodSetStatus, ReconcileOptions } from './types.ts';

export function cleanupPlan(podset: PodSet, controlled: Pod[], opts: Required<ReconcileOptions>): Plan {
  const status = structuredClone(podset.status ?? {});
  const hasFinalizer = podset.metadata.finalizers?.includes(CLEANUP_FINALIZER) ?? false;
  // Without our finalizer the deletion does not wait for us: its pods are the garbage collector's.
  if (!hasFinalizer) return deletingNoPods(status, [], null);
  // The API server adds `orphan` for propagationPolicy=Orphan; once the garbage collector has freed the
  // pods it removes it, and by then they no longer carry our controller reference, so none is listed here.
  if (podset.metadata.finalizers?.includes(ORPHAN_FINALIZER)) {
    const orphaning: PlannedEvent = {
      type: 'Normal',
      reason: 'Orphaning',
      message: 'Deleted with orphan propagation: pods kept',
    };
    return deletingNoPods(status, [orphaning], 'remove');
  }
  const goners = rankForDeletion(controlled.filter((p) => podLifecycle(p) !== 'terminating'));
  // Each delete also carries the resourceVersion it was planned from: a pod the garbage collector freed
  // meanwhile (an orphaning delete issued while this one ran) is not taken (409).
  const deletes = goners.slice(0, opts.maxDeletesPerPass).map((p) => podDeletion(podset, p, 'Cleanup', true));
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

/** A cleanup that deletes no pod: the status kept, the events given, our finalizer left or removed. */
function deletingNoPods(status: PodSetStatus, events: PlannedEvent[], finalizer: 'remove' | null): Plan {
  return {
    mode: 'cleanup',
    creates: [],
    deletes: [],
    status,
    statusChanged: false,
    events,
    requeue: null,
    finalizer,
  };
}
