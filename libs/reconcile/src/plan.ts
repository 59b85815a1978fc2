// The planner: (podset, pods, now) → plan. Pure: no I/O, no clock, no randomness; inputs are not mutated.
import { CLEANUP_FINALIZER, TEMPLATE_HASH_LABEL } from './api.ts';
import { getCondition, removeCondition, setCondition, type ConditionInput } from './conditions.ts';
import { controlledPods } from './ownership.ts';
import { isPodAvailable, msUntilAvailable, podLifecycle } from './pod-state.ts';
import { podManifest } from './pod-template.ts';
import { rankFinishedForRetention, rankForDeletion } from './ranking.ts';
import { rolloutStep } from './rollout.ts';
import { minReadySeconds, resolveStrategy, type ResolvedStrategy } from './strategy.ts';
import { templateHash } from './template-hash.ts';
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

function deletion(podset: PodSet, pod: Pod, reason: DeleteReason, unchanged = false): PodDeletion {
  const rv = pod.metadata?.resourceVersion;
  return {
    namespace: pod.metadata?.namespace ?? podset.metadata.namespace ?? 'default',
    name: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid ?? '',
    reason,
    ...(unchanged && rv !== undefined ? { resourceVersion: rv } : {}),
  };
}

/** The template hashes of outdated pods, for the RolloutStarted event when status does not say. */
function outdatedHashes(pods: readonly Pod[]): string {
  const hashes = new Set(pods.map((p) => p.metadata?.labels?.[TEMPLATE_HASH_LABEL] ?? '(none)'));
  return [...hashes].sort().join(', ');
}

function strategyText(s: ResolvedStrategy): string {
  return s.type === 'Recreate'
    ? 'Recreate'
    : `RollingUpdate (maxSurge ${s.maxSurge}, maxUnavailable ${s.maxUnavailable})`;
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
  const nowMs = toMillis(now)!;
  const hash = templateHash(podset);
  const minReady = problem ? 0 : minReadySeconds(podset);
  const isAvailable = (p: Pod) => isPodAvailable(p, minReady, nowMs);
  const isCurrent = (p: Pod) => p.metadata?.labels?.[TEMPLATE_HASH_LABEL] === hash;
  const updated = active.filter(isCurrent);
  const outdated = active.filter((p) => !isCurrent(p));
  const outdatedTerminating = controlled.filter(
    (p) => podLifecycle(p) === 'terminating' && !isCurrent(p),
  ).length;
  const strategy = problem ? undefined : resolveStrategy(podset, desired);

  const creates: Plan['creates'] = [];
  const deletes: PodDeletion[] = [];
  let capped = false;
  let held = false;
  if (strategy) {
    const step = rolloutStep({
      desired,
      strategy,
      current: updated,
      outdated,
      outdatedTerminating,
      isAvailable,
    });
    const n = Math.min(step.creates, opts.maxCreatesPerPass);
    if (n > 0) {
      const manifest = podManifest(podset, hash);
      for (let i = 0; i < n; i++) creates.push(i === 0 ? manifest : structuredClone(manifest));
    }
    for (const d of step.deletes.slice(0, opts.maxDeletesPerPass)) {
      deletes.push(deletion(podset, d.pod, d.reason, d.unchanged === true));
    }
    capped ||= n < step.creates || deletes.length < step.deletes.length;
    held = step.held;
    const old = rankFinishedForRetention(finished).slice(opts.finishedPodsToKeep);
    const budget = opts.maxDeletesPerPass - deletes.length;
    for (const p of old.slice(0, budget)) deletes.push(deletion(podset, p, 'Finished'));
    capped ||= old.length > budget;
  }
  const surplusDeletes = deletes.filter((d) => d.reason === 'Surplus').length;

  // ---- status ----
  const availablePods = active.filter(isAvailable);
  const observed = observedStatus({
    name,
    generation: podset.metadata.generation,
    templateHash: hash,
    activePods: active,
    updated: updated.length,
    available: availablePods.length,
  });
  const available = observed.availableReplicas;
  const notReady = active.length - observed.readyReplicas;
  const untilAvailable = active
    .map((p) => msUntilAvailable(p, minReady, nowMs))
    .filter((ms): ms is number => ms !== undefined);
  const prevProgressing = getCondition(current, 'Progressing');
  const wasRolling = prevProgressing?.reason === 'RollingOut';
  const done = outdated.length === 0 && updated.length === desired && available >= desired;
  const rolling =
    strategy !== undefined &&
    (outdated.length > 0 ||
      (strategy.type === 'Recreate' && outdatedTerminating > 0) ||
      (wasRolling && !done));
  const conditions: ConditionInput[] = [];
  if (problem) {
    conditions.push(
      { type: 'Available', status: 'False', reason: problem.reason, message: problem.message },
      { type: 'Progressing', status: 'False', reason: problem.reason, message: problem.message },
      { type: 'ReplicaFailure', status: 'True', reason: problem.reason, message: problem.message },
    );
  } else {
    const counts = `${available}/${desired} replicas ${minReady === 0 ? 'ready' : 'available'}`;
    conditions.push(
      available >= desired
        ? { type: 'Available', status: 'True', reason: 'AllReplicasReady', message: counts }
        : { type: 'Available', status: 'False', reason: 'ReplicasNotReady', message: counts },
    );
    if (rolling) {
      conditions.push({
        type: 'Progressing',
        status: 'True',
        reason: 'RollingOut',
        message: `${strategy.type} to template ${hash}: ${updated.length}/${desired} pods updated, ${available} available`,
      });
    } else if (creates.length > 0) {
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
    } else if (notReady > 0 || untilAvailable.length > 0) {
      conditions.push({
        type: 'Progressing',
        status: 'True',
        reason: 'WaitingForReady',
        message:
          notReady > 0
            ? `${plural(notReady, 'pod')} not ready yet`
            : `${plural(untilAvailable.length, 'pod')} not ready for ${minReady}s yet`,
      });
    } else if (wasRolling || prevProgressing?.reason === 'RolloutComplete') {
      conditions.push({
        type: 'Progressing',
        status: 'False',
        reason: 'RolloutComplete',
        message: `template ${hash} rolled out: ${counts}`,
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
  // A new template with pods of another one left: a rollout starts (settle writes its status at once, so
  // the next pass sees templateHash and does not say it again).
  if (strategy && outdated.length > 0 && current?.templateHash !== hash) {
    const from = current?.templateHash ?? outdatedHashes(outdated);
    events.push({
      type: 'Normal',
      reason: 'RolloutStarted',
      message: `Rolling out template ${hash} (from ${from}) with ${strategyText(strategy)}`,
    });
  }
  if (wasRolling && !rolling && !problem) {
    events.push({
      type: 'Normal',
      reason: 'RolloutComplete',
      message: `Template ${hash} rolled out: ${plural(updated.length, 'pod')} updated and available`,
    });
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
  else if (deletes.length > 0 || (held && outdatedTerminating > 0))
    requeue = { afterMs: opts.notReadyRequeueMs, reason: 'PodsDeleting' };
  else if (untilAvailable.length > 0)
    requeue = { afterMs: Math.max(1, Math.min(...untilAvailable)), reason: 'PodsNotAvailable' };

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
