// The planner: (podset, pods, now) → plan. Pure: no I/O, no clock, no randomness; inputs are not mutated.
import { CLEANUP_FINALIZER } from './api.ts';
import { getCondition, removeCondition, setCondition, type ConditionInput } from './conditions.ts';
import { controlledPods } from './ownership.ts';
import { podLifecycle } from './pod-state.ts';
import { podManifest } from './pod-template.ts';
import { rankFinishedForRetention, rankForDeletion } from './ranking.ts';
import { desiredReplicas, specProblem, type SpecProblem } from './spec-check.ts';
import { observedStatus, statusEqual } from './status.ts';
import { toMillis } from './time.ts';
import type {
  DeleteReason,
  Plan,
  PlannedEvent,
  Pod,
  PodDeletion,
  PodSet,
  PodSetCondition,
  PodSetStatus,
  ReconcileOptions,
  Requeue,
} from './types.ts';

export const DEFAULT_OPTIONS: Required<ReconcileOptions> = {
  finishedPodsToKeep: 3,
  notReadyRequeueMs: 5000,
  maxCreatesPerPass: 500,
  maxDeletesPerPass: 500,
};

/** Reasons of ReplicaFailure the planner owns (and so clears itself once the problem is gone). */
const PLANNER_FAILURE_REASONS: ReadonlySet<string> = new Set<SpecProblem['reason']>([
  'InvalidName',
  'InvalidSpec',
]);

function resolveOptions(options: ReconcileOptions | undefined): Required<ReconcileOptions> {
  const o = { ...DEFAULT_OPTIONS };
  for (const k of Object.keys(o) as (keyof ReconcileOptions)[]) {
    const v = options?.[k];
    if (v !== undefined) {
      if (!Number.isFinite(v) || v < 0) throw new RangeError(`reconcile option ${k} must be >= 0, got ${v}`);
      o[k] = Math.floor(v);
    }
  }
  return o;
}

function deletion(podset: PodSet, pod: Pod, reason: DeleteReason): PodDeletion {
  return {
    namespace: pod.metadata?.namespace ?? podset.metadata.namespace ?? 'default',
    name: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid ?? '',
    reason,
  };
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

function cleanupPlan(podset: PodSet, controlled: Pod[], opts: Required<ReconcileOptions>): Plan {
  const hasFinalizer = podset.metadata.finalizers?.includes(CLEANUP_FINALIZER) ?? false;
  // Without our finalizer the deletion does not wait for us: its pods are the garbage collector's.
  if (!hasFinalizer) {
    const status = structuredClone(podset.status ?? {});
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
  const deletes = goners.slice(0, opts.maxDeletesPerPass).map((p) => deletion(podset, p, 'Cleanup'));
  const capped = deletes.length < goners.length;
  return {
    mode: 'cleanup',
    creates: [],
    deletes,
    status: structuredClone(podset.status ?? {}),
    statusChanged: false,
    events:
      deletes.length > 0
        ? [{ type: 'Normal', reason: 'CleaningUp', message: `Deleting ${plural(deletes.length, 'pod')}` }]
        : [],
    requeue: capped ? { afterMs: 0, reason: 'MoreWork' } : null,
    finalizer: capped ? null : 'remove',
  };
}

/**
 * Plans one reconcile of `podset` given the pods listed by its label (any pods: those it doesn't control
 * are ignored) at time `now` (only used for conditions' lastTransitionTime).
 *
 * Execute the plan in this order: finalizer 'add'; creates (slow-start batches); deletes (UID
 * precondition, 404 = done); status if changed (or as amended by withFailure/withoutFailure);
 * finalizer 'remove' only after every delete succeeded; events; then requeue.
 */
export function reconcile(
  podset: PodSet,
  pods: readonly Pod[],
  now: Date | number,
  options?: ReconcileOptions,
): Plan {
  const opts = resolveOptions(options);
  if (toMillis(now) === undefined) throw new RangeError(`reconcile: invalid now ${String(now)}`);
  const controlled = controlledPods(podset, pods);
  if (podset.metadata.deletionTimestamp) return cleanupPlan(podset, controlled, opts);

  const active = controlled.filter((p) => podLifecycle(p) === 'active');
  const finished = controlled.filter((p) => podLifecycle(p) === 'finished');
  const current = podset.status;
  const problem = specProblem(podset);
  const desired = desiredReplicas(podset);
  const name = podset.metadata.name ?? '';

  const creates: Plan['creates'] = [];
  const deletes: PodDeletion[] = [];
  let capped = false;
  let surplusDeletes = 0;
  if (!problem) {
    const missing = desired - active.length;
    if (missing > 0) {
      const n = Math.min(missing, opts.maxCreatesPerPass);
      const manifest = podManifest(podset);
      for (let i = 0; i < n; i++) creates.push(i === 0 ? manifest : structuredClone(manifest));
      capped ||= n < missing;
    } else if (missing < 0) {
      const n = Math.min(-missing, opts.maxDeletesPerPass);
      for (const p of rankForDeletion(active).slice(0, n)) deletes.push(deletion(podset, p, 'Surplus'));
      surplusDeletes = n;
      capped ||= n < -missing;
    }
    const old = rankFinishedForRetention(finished).slice(opts.finishedPodsToKeep);
    const budget = opts.maxDeletesPerPass - deletes.length;
    for (const p of old.slice(0, budget)) deletes.push(deletion(podset, p, 'Finished'));
    capped ||= old.length > budget;
  }

  // ---- status ----
  const observed = observedStatus(name, podset.metadata.generation, active);
  const ready = observed.readyReplicas;
  const notReady = active.length - ready;
  const conditions: ConditionInput[] = [];
  if (problem) {
    conditions.push(
      { type: 'Available', status: 'False', reason: problem.reason, message: problem.message },
      { type: 'Progressing', status: 'False', reason: problem.reason, message: problem.message },
      { type: 'ReplicaFailure', status: 'True', reason: problem.reason, message: problem.message },
    );
  } else {
    const counts = `${ready}/${desired} replicas ready`;
    conditions.push(
      ready >= desired
        ? { type: 'Available', status: 'True', reason: 'AllReplicasReady', message: counts }
        : { type: 'Available', status: 'False', reason: 'ReplicasNotReady', message: counts },
    );
    if (creates.length > 0) {
      conditions.push({
        type: 'Progressing',
        status: 'True',
        reason: 'ScalingUp',
        message: `${active.length}/${desired} replicas active, creating ${plural(creates.length, 'pod')}`,
      });
    } else if (surplusDeletes > 0) {
      conditions.push({
        type: 'Progressing',
        status: 'True',
        reason: 'ScalingDown',
        message: `${active.length}/${desired} replicas active, deleting ${plural(surplusDeletes, 'pod')}`,
      });
    } else if (notReady > 0) {
      conditions.push({
        type: 'Progressing',
        status: 'True',
        reason: 'WaitingForReady',
        message: `${plural(notReady, 'pod')} not ready yet`,
      });
    } else {
      conditions.push({ type: 'Progressing', status: 'False', reason: 'Settled', message: counts });
    }
  }
  let next: PodSetCondition[] = current?.conditions?.map((c) => ({ ...c })) ?? [];
  for (const c of conditions) next = setCondition(next, c, now);
  if (!problem) {
    // A failure the executor recorded stays while there is still work whose outcome it will decide;
    // the planner's own reasons go as soon as the problem is fixed.
    const failure = getCondition(current, 'ReplicaFailure');
    const hasWork = creates.length > 0 || deletes.length > 0;
    if (!failure || PLANNER_FAILURE_REASONS.has(failure.reason ?? '') || !hasWork) {
      next = removeCondition(next, 'ReplicaFailure');
    }
  }
  const status: PodSetStatus = { ...observed, conditions: next };

  // ---- events ----
  const events: PlannedEvent[] = [];
  if (problem) {
    const prev = getCondition(current, 'ReplicaFailure');
    if (prev?.status !== 'True' || prev.reason !== problem.reason || prev.message !== problem.message) {
      events.push({ type: 'Warning', reason: problem.reason, message: problem.message });
    }
  }
  // No Normal events for scaling: the executor records SuccessfulCreate/SuccessfulDelete with the pod
  // names, and the Progressing condition says ScalingUp/ScalingDown. One more Event per scale action
  // would be an API write that tells the user nothing new.

  // ---- requeue ----
  let requeue: Requeue | null = null;
  if (problem) requeue = null;
  else if (capped) requeue = { afterMs: 0, reason: 'MoreWork' };
  else if (creates.length > 0 || notReady > 0)
    requeue = { afterMs: opts.notReadyRequeueMs, reason: 'PodsNotReady' };
  else if (deletes.length > 0) requeue = { afterMs: opts.notReadyRequeueMs, reason: 'PodsDeleting' };

  return {
    mode: 'sync',
    creates,
    deletes,
    status,
    statusChanged: !statusEqual(status, current),
    events,
    requeue,
    finalizer: podset.metadata.finalizers?.includes(CLEANUP_FINALIZER) ? null : 'add',
  };
}
