// The planner: (podset, pods, now) → plan. Pure: no I/O, no clock, no randomness; inputs are not mutated.
import { CLEANUP_FINALIZER, TEMPLATE_HASH_LABEL } from './api.ts';
import { availabilityCounts, availableCondition } from './availability.ts';
import { claimPods } from './claim.ts';
import { cleanupPlan } from './cleanup-plan.ts';
import { getCondition, removeCondition, setCondition, type ConditionInput } from './conditions.ts';
import { controlledPods } from './ownership.ts';
import { passView, type PassView } from './pass-view.ts';
import { podChanges, type PodChanges } from './pod-changes.ts';
import { isPodReady, msUntilAvailable } from './pod-state.ts';
import {
  PROGRESS_DEADLINE_EXCEEDED,
  wasRollingOut,
  withProgressDeadline,
  type DeadlineOutcome,
  type ProgressCounts,
} from './progress-deadline.ts';
import { progressingCondition, rolloutStartedMessage, rolloutUnderWay } from './progressing.ts';
import type { SpecProblem } from './spec-check.ts';
import type { ResolvedStrategy } from './strategy.ts';
import { observedStatus, statusEqual } from './status.ts';
import { plural } from './text.ts';
import { toMillis } from './time.ts';
import type {
  CountedDeletion,
  Plan,
  PlannedEvent,
  Pod,
  PodSet,
  PodSetCondition,
  PodSetStatus,
  ReconcileOptions,
  Requeue,
} from './types.ts';

export const DEFAULT_OPTIONS: Required<ReconcileOptions> = {
  finishedPodsToKeep: 3,
  notReadyRequeueMs: 30_000,
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

/** The observed status, and the facts about it the conditions, events and requeue are decided from. */
interface Observation {
  /** The status's counts once this pass's creates and deletes went through. */
  observed: Omit<Required<PodSetStatus>, 'conditions'>;
  /** The active pods this pass deletes, as `observed` counted them out. */
  countedOut: CountedDeletion[];
  /** The counts before this pass's creates and deletes. */
  before: ProgressCounts;
  /** Active pods not Ready, before this pass's changes. */
  notReady: number;
  /** Per Ready pod not yet available: ms until it will be. */
  untilAvailable: number[];
  /** Once this pass's creates and deletes went through: active pods not Ready (those it creates among
   * them), and Ready pods not available yet. What the next pass will find, if nothing else moves. */
  after: { notReady: number; notAvailableYet: number };
  /** The last Progressing said a rollout was under way. */
  wasRollingOut: boolean;
  rollingOut: boolean;
}

/**
 * Counts the pods as the API will hold them after this pass's creates and deletes (so that a capped
 * scale shows its progress pass by pass), and tells whether a rollout is on (from the pods as they are).
 */
function observe(view: PassView, changes: PodChanges): Observation {
  const going = new Set(changes.deletes.map((d) => d.uid));
  const stays = (p: Pod) => !going.has(p.metadata?.uid ?? '');
  const staying = view.active.filter(stays);
  const updated = new Set(view.updated);
  const countedOut = view.active
    .filter((p) => !stays(p))
    .map((p) => ({
      name: p.metadata?.name ?? '',
      ready: isPodReady(p),
      available: view.isAvailable(p),
      updated: updated.has(p),
    }));
  const observed = observedStatus({
    name: view.podset.metadata.name ?? '',
    generation: view.podset.metadata.generation,
    templateHash: view.hash,
    activePods: staying,
    updated: view.updated.filter(stays).length,
    available: staying.filter(view.isAvailable).length,
    creating: changes.creates.length,
  });
  const previous = getCondition(view.podset.status, 'Progressing');
  const rolling = wasRollingOut(previous);
  const availableNow = view.active.filter(view.isAvailable).length;
  const complete =
    view.outdated.length === 0 && view.updated.length === view.desired && availableNow >= view.desired;
  return {
    observed,
    countedOut,
    before: {
      replicas: view.active.length,
      updatedReplicas: view.updated.length,
      readyReplicas: view.active.filter(isPodReady).length,
      availableReplicas: availableNow,
    },
    notReady: view.active.filter((p) => !isPodReady(p)).length,
    untilAvailable: view.active
      .map((p) => msUntilAvailable(p, view.minReadySeconds, view.nowMs))
      .filter((ms): ms is number => ms !== undefined),
    after: {
      notReady: observed.replicas - observed.readyReplicas,
      notAvailableYet: staying.filter(
        (p) => msUntilAvailable(p, view.minReadySeconds, view.nowMs) !== undefined,
      ).length,
    },
    wasRollingOut: rolling,
    rollingOut:
      view.strategy !== undefined &&
      rolloutUnderWay({
        strategy: view.strategy,
        outdated: view.outdated.length,
        outdatedTerminating: view.outdatedTerminating,
        complete,
        wasRollingOut: rolling,
      }),
  };
}

/** A spec that cannot be acted on: every condition says why. */
function problemConditions(problem: SpecProblem): ConditionInput[] {
  const { reason, message } = problem;
  return [
    { type: 'Available', status: 'False', reason, message },
    { type: 'Progressing', status: 'False', reason, message },
    { type: 'ReplicaFailure', status: 'True', reason, message },
  ];
}

/** Available, and Progressing with the progress deadline applied. */
function workConditions(
  view: PassView,
  strategy: ResolvedStrategy,
  changes: PodChanges,
  seen: Observation,
): {
  conditions: ConditionInput[];
  progress: DeadlineOutcome;
} {
  const availability = {
    desired: view.desired,
    available: seen.observed.availableReplicas,
    strategy,
    minReadySeconds: view.minReadySeconds,
  };
  const work = progressingCondition({
    hash: view.hash,
    desired: view.desired,
    strategy,
    active: seen.observed.replicas,
    updated: seen.observed.updatedReplicas,
    available: seen.observed.availableReplicas,
    notReady: seen.after.notReady,
    notAvailableYet: seen.after.notAvailableYet,
    minReadySeconds: view.minReadySeconds,
    creates: changes.creates.length,
    surplusDeletes: changes.deletes.filter((d) => d.reason === 'Surplus').length,
    capped: changes.capped,
    rollingOut: seen.rollingOut,
    counts: availabilityCounts(availability),
    paused: view.podset.spec?.paused === true,
  });
  // This pass's creates and deletes count as progress, unless the last pass's failed: a PodSet whose
  // creates keep being refused must not restart its deadline's clock each time it tries.
  const lastFailed = getCondition(view.podset.status, 'ReplicaFailure')?.status === 'True';
  const progress = withProgressDeadline({
    work,
    previous: view.podset.status,
    counts: lastFailed ? seen.before : seen.observed,
    hash: view.hash,
    deadlineSeconds: view.progressDeadlineSeconds,
    nowMs: view.nowMs,
  });
  return { conditions: [availableCondition(availability), progress.condition], progress };
}

/**
 * The conditions after this pass. A ReplicaFailure the executor recorded stays while there is still
 * work whose outcome it will decide; the planner's own reasons go as soon as the problem is fixed.
 */
function nextConditions(view: PassView, changes: PodChanges, decided: ConditionInput[]): PodSetCondition[] {
  let next: PodSetCondition[] = view.podset.status?.conditions?.map((c) => ({ ...c })) ?? [];
  for (const c of decided) next = setCondition(next, c, view.nowMs);
  if (view.problem) return next;
  const failure = getCondition(view.podset.status, 'ReplicaFailure');
  const hasWork = changes.creates.length > 0 || changes.deletes.length > 0;
  if (!failure || PLANNER_FAILURE_REASONS.has(failure.reason ?? '') || !hasWork) {
    next = removeCondition(next, 'ReplicaFailure');
  }
  return next;
}

/** The template hashes of outdated pods, for the RolloutStarted event when status does not say. */
function outdatedHashes(pods: readonly Pod[]): string {
  const hashes = new Set(pods.map((p) => p.metadata?.labels?.[TEMPLATE_HASH_LABEL] ?? '(none)'));
  return [...hashes].sort().join(', ');
}

/**
 * Events the planner has news for: a spec problem (once per problem), a rollout starting and ending,
 * the progress deadline passing. No Normal events for scaling: the executor records
 * SuccessfulCreate/SuccessfulDelete with the pod names, and Progressing says ScalingUp/ScalingDown; one
 * more Event per scale action would be an API write that tells the user nothing new.
 */
function plannedEvents(
  view: PassView,
  seen: Observation,
  progress: DeadlineOutcome | undefined,
): PlannedEvent[] {
  const current = view.podset.status;
  const events: PlannedEvent[] = [];
  if (view.problem) {
    const { reason, message } = view.problem;
    const prev = getCondition(current, 'ReplicaFailure');
    if (prev?.status !== 'True' || prev.reason !== reason || prev.message !== message) {
      events.push({ type: 'Warning', reason, message });
    }
    return events;
  }
  // A new template with pods of another one left: a rollout starts (settle writes its status at once, so
  // the next pass sees templateHash and does not say it again).
  if (view.strategy && view.outdated.length > 0 && current?.templateHash !== view.hash) {
    const from = current?.templateHash ?? outdatedHashes(view.outdated);
    events.push({
      type: 'Normal',
      reason: 'RolloutStarted',
      message: rolloutStartedMessage(view.hash, from, view.strategy),
    });
  }
  if (seen.wasRollingOut && !seen.rollingOut) {
    events.push({
      type: 'Normal',
      reason: 'RolloutComplete',
      message: `Template ${view.hash} rolled out: ${plural(view.updated.length, 'pod')} updated and available`,
    });
  }
  if (progress?.exceeded) {
    events.push({ type: 'Warning', reason: PROGRESS_DEADLINE_EXCEEDED, message: progress.exceeded.message });
  }
  return events;
}

/** When to look again: at once if capped, soon while pods are on their way, at the progress deadline. */
function nextLook(
  view: PassView,
  changes: PodChanges,
  seen: Observation,
  progress: DeadlineOutcome | undefined,
  opts: Required<ReconcileOptions>,
): Requeue | null {
  if (view.problem) return null;
  let requeue: Requeue | null = null;
  if (changes.capped) requeue = { afterMs: 0, reason: 'MoreWork' };
  else if (changes.creates.length > 0 || seen.notReady > 0)
    requeue = { afterMs: opts.notReadyRequeueMs, reason: 'PodsNotReady' };
  else if (changes.deletes.length > 0 || (changes.held && view.outdatedTerminating > 0))
    requeue = { afterMs: opts.notReadyRequeueMs, reason: 'PodsDeleting' };
  else if (seen.untilAvailable.length > 0)
    requeue = { afterMs: Math.max(1, Math.min(...seen.untilAvailable)), reason: 'PodsNotAvailable' };
  // The status write that starts the clock requests nothing, so the deadline needs a look of its own.
  const deadline = progress?.deadlineInMs;
  if (deadline !== undefined && (requeue === null || deadline < requeue.afterMs)) {
    requeue = { afterMs: Math.max(1, deadline), reason: 'ProgressDeadline' };
  }
  return requeue;
}

/**
 * Plans one reconcile of `podset` given the pods listed by its label (any pods: those it doesn't control
 * are ignored) at time `now` (for conditions' times, minReadySeconds and the progress deadline).
 *
 * The steps, in order: what the pass sees (passView), the pods to create and delete (podChanges), the
 * status as the pods are (observe), the conditions (problemConditions or workConditions, then
 * nextConditions), the events (plannedEvents), when to look again (nextLook).
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
  const nowMs = toMillis(now);
  if (nowMs === undefined) throw new RangeError(`reconcile: invalid now ${String(now)}`);
  // Being deleted: every pod it still controls goes, whatever its labels (the garbage collector's rule).
  if (podset.metadata.deletionTimestamp) return cleanupPlan(podset, controlledPods(podset, pods), opts);
  // Counted: the pods it controls whose labels still match (claim.ts; the rest is released or adopted).
  const controlled = claimPods(podset, pods).owned;

  const view = passView(podset, controlled, nowMs);
  const changes = podChanges(view, opts);
  const seen = observe(view, changes);
  const decided = view.problem
    ? { conditions: problemConditions(view.problem), progress: undefined }
    : workConditions(view, view.strategy, changes, seen);
  const status: PodSetStatus = {
    ...seen.observed,
    conditions: nextConditions(view, changes, decided.conditions),
  };
  return {
    mode: 'sync',
    creates: changes.creates,
    deletes: changes.deletes,
    status,
    countedOut: seen.countedOut,
    statusChanged: !statusEqual(status, podset.status),
    events: plannedEvents(view, seen, decided.progress),
    requeue: nextLook(view, changes, seen, decided.progress, opts),
    finalizer: podset.metadata.finalizers?.includes(CLEANUP_FINALIZER) ? null : 'add',
  };
}
