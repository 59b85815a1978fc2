// After a plan's creates and deletes ran: the status to write, and whether to write it. Pure, like the
// planner, so the worker only carries out what is decided here.
import { withFailure, withoutFailure } from './conditions.ts';
import { statusEqual } from './status.ts';
import type { Plan, PodSetStatus } from './types.ts';

/** How the plan's creates and deletes went. */
export interface ExecutionOutcome {
  /** The first failure, with a message that is the same on every attempt that fails the same way. */
  failure?: { reason: string; message: string };
  /** Names of the pods created. Unset: every create went through (names unknown). */
  created?: readonly string[];
  /** Names of the pods deleted (or found gone). Unset: every delete went through. */
  deleted?: readonly string[];
}

export interface Settled {
  status: PodSetStatus;
  /** Write `status` (status subresource, conditional on the resourceVersion read). */
  write: boolean;
}

/**
 * The plan's status (counted as if every create and delete went through) as they did go: creates that
 * were not made are taken out of replicas, pods whose delete failed are counted back, and the created
 * pods' names are added.
 */
export function carriedOut(plan: Plan, outcome: ExecutionOutcome): PodSetStatus {
  const created = outcome.created ?? [];
  const notCreated = outcome.created === undefined ? 0 : Math.max(0, plan.creates.length - created.length);
  const deleted = outcome.deleted === undefined ? undefined : new Set(outcome.deleted);
  const kept = deleted === undefined ? [] : (plan.countedOut ?? []).filter((d) => !deleted.has(d.name));
  if (created.length === 0 && notCreated === 0 && kept.length === 0) return plan.status;
  const s = plan.status;
  const back = (has: (d: (typeof kept)[number]) => boolean) => kept.filter(has).length;
  return {
    ...s,
    replicas: (s.replicas ?? 0) - notCreated + kept.length,
    updatedReplicas: (s.updatedReplicas ?? 0) - notCreated + back((d) => d.updated),
    readyReplicas: (s.readyReplicas ?? 0) + back((d) => d.ready),
    availableReplicas: (s.availableReplicas ?? 0) + back((d) => d.available),
    podNames: [...(s.podNames ?? []), ...kept.map((d) => d.name), ...created].sort(),
  };
}

/**
 * - The status counts the pods as the API holds them after the pass (carriedOut), and is written after
 *   every pass that changed it, as a ReplicaSet's is after every sync: a scale capped per pass shows its
 *   progress pass by pass, and the next pass, seeing those pods, has nothing more to write.
 * - A failure shows as ReplicaFailure (its lastTransitionTime kept while it stays True).
 * - A pass whose creates and deletes all went through clears ReplicaFailure.
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
  const counted = carriedOut(plan, outcome);
  const status =
    outcome.failure !== undefined
      ? withFailure(counted, outcome.failure.reason, outcome.failure.message, now)
      : didWork
        ? withoutFailure(counted)
        : counted;
  return { status, write: !statusEqual(status, current) };
}
