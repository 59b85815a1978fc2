// After a plan's creates and deletes ran: the status to write, and whether to write it. Pure, like the
// planner, so the worker only carries out what is decided here.
import { getCondition, withFailure, withoutFailure } from './conditions.ts';
import { PROGRESS_DEADLINE_EXCEEDED } from './progress-deadline.ts';
import { statusEqual } from './status.ts';
import type { Plan, PodSetStatus } from './types.ts';

/** How the plan's creates and deletes went. */
export interface ExecutionOutcome {
  /** The first failure, with a message that is the same on every attempt that fails the same way. */
  failure?: { reason: string; message: string };
}

export interface Settled {
  status: PodSetStatus;
  /** Write `status` (status subresource, conditional on the resourceVersion read). */
  write: boolean;
}

/**
 * - A failure shows as ReplicaFailure (its lastTransitionTime kept while it stays True).
 * - A pass whose creates and deletes all went through clears ReplicaFailure.
 * - A pass that created or deleted pods, all successfully, leaves its status to the next pass: the
 *   status was computed from the pods listed before the writes, so it is already out of date; their
 *   watch events bring the next pass within moments (the planned requeue at the latest), and that pass
 *   counts them — one status write per scale-up instead of two. A failure, and clearing one, are
 *   written at once; so are a rollout's start and end, and the progress deadline passing.
 * - A PodSet being deleted (cleanup) keeps its status.
 * - Nothing is written when the status would not change.
 */
export function settle(
  plan: Plan,
  current: PodSetStatus | undefined,
  outcome: ExecutionOutcome,
  now: Date | number,
): Settled {
  if (plan.mode === 'cleanup') return { status: plan.status, write: false };
  const didWork = plan.creates.length + plan.deletes.length > 0;
  const status =
    outcome.failure !== undefined
      ? withFailure(plan.status, outcome.failure.reason, outcome.failure.message, now)
      : didWork
        ? withoutFailure(plan.status)
        : plan.status;
  if (statusEqual(status, current)) return { status, write: false };
  const failing = (s: PodSetStatus | undefined) =>
    (s?.conditions ?? []).some((c) => c.type === 'ReplicaFailure');
  // A rollout starting or ending, and the progress deadline passing or progress after it, are written at
  // once: they are what `kubectl get ps -w` shows, and the status is how the next pass knows they were
  // already announced (the templateHash, the Progressing reason) and not to say them again.
  const newsReason = (s: PodSetStatus | undefined) => {
    const reason = getCondition(s, 'Progressing')?.reason;
    return reason === 'RollingOut' || reason === PROGRESS_DEADLINE_EXCEEDED ? reason : undefined;
  };
  const rolloutNews =
    (current?.templateHash !== undefined && status.templateHash !== current.templateHash) ||
    newsReason(status) !== newsReason(current);
  const leftToNextPass =
    !rolloutNews &&
    outcome.failure === undefined &&
    plan.requeue !== null &&
    didWork &&
    !failing(current) &&
    !failing(plan.status);
  return { status, write: !leftToNextPass };
}
