// One step of moving a PodSet's active pods towards `desired` pods of its current template, within the
// strategy's bounds.
//
// With no outdated pod it is plain scaling, as a ReplicaSet does it. During a rollout, RollingUpdate does
// what Deployments do, with exact counts instead of ReplicaSet sizes:
//   creates ≤ replicas + maxSurge − active          (counted before this step's deletes, so the
//                                                    bound holds in whatever order they run)
//   deleting an available pod needs available > replicas − maxUnavailable; an unavailable one is
//   always free to go (it takes nothing away), so a PodSet already below the bound never drops further.
//   Outdated pods go first, worst first; then surplus current pods, worst first.
//   A scale-down during the rollout takes surplus current pods only within the same budget.
// Recreate: every outdated pod is deleted, and nothing is created until none is left, terminating or not.
import { rankForDeletion } from './ranking.ts';
import type { ResolvedStrategy } from './strategy.ts';
import type { Pod } from './types.ts';

export interface RolloutInput<P extends Pod> {
  desired: number;
  strategy: ResolvedStrategy;
  /** Active pods of the current template. */
  current: readonly P[];
  /** Active pods of any other template (or none recorded). */
  outdated: readonly P[];
  /** Terminating pods of other templates: Recreate waits for them to be gone. */
  outdatedTerminating: number;
  isAvailable: (pod: P) => boolean;
  /** spec.paused: pods of other templates are kept, not replaced; only the count follows `desired`. */
  paused?: boolean;
}

export interface RolloutStep<P extends Pod> {
  /** Pods of the current template to create. */
  creates: number;
  /**
   * Pods to delete, in this order. `unchanged`: only as planned from (a resourceVersion precondition),
   * because it goes as not available, and would take availability away if it became available meanwhile.
   */
  deletes: { pod: P; reason: 'Outdated' | 'Surplus'; unchanged?: true }[];
  /** Some deletes are due but held back by maxUnavailable, or creates by old pods still terminating. */
  held: boolean;
}

export function rolloutStep<P extends Pod>(input: RolloutInput<P>): RolloutStep<P> {
  const { desired, strategy, current, outdated } = input;
  const surplus = Math.max(0, current.length - desired);

  if (outdated.length === 0) {
    // Plain scaling, as a ReplicaSet does it: the user asked for this many. Recreate still waits for
    // the old pods to be gone before it creates. (Ranked only when some go: most passes delete none.)
    const waiting = strategy.type === 'Recreate' && input.outdatedTerminating > 0;
    const deletes = surplus === 0 ? [] : rankForDeletion(current).slice(0, surplus);
    return {
      creates: waiting ? 0 : Math.max(0, desired - current.length),
      deletes: deletes.map((pod) => ({ pod, reason: 'Surplus' as const })),
      held: waiting && desired > current.length,
    };
  }
  if (input.paused === true) return pausedStep(input);
  if (strategy.type === 'Recreate') {
    return {
      creates: 0,
      deletes: rankForDeletion(outdated).map((pod) => ({ pod, reason: 'Outdated' as const })),
      held: false,
    };
  }

  const active = current.length + outdated.length;
  const maxActive = desired + strategy.maxSurge;
  const minAvailable = Math.max(0, desired - strategy.maxUnavailable);
  const creates = Math.max(0, Math.min(desired - current.length, maxActive - active));

  let available = 0;
  for (const p of current) if (input.isAvailable(p)) available++;
  for (const p of outdated) if (input.isAvailable(p)) available++;
  let budget = available - minAvailable;
  const deletes: RolloutStep<P>['deletes'] = [];
  let held = false;
  /** Deletes `pod` if that keeps availability; true if it did. */
  const take = (pod: P, reason: 'Outdated' | 'Surplus'): boolean => {
    if (!input.isAvailable(pod)) deletes.push({ pod, reason, unchanged: true });
    else if (budget > 0) {
      deletes.push({ pod, reason });
      budget--;
    } else {
      held = true;
      return false;
    }
    return true;
  };
  for (const pod of rankForDeletion(outdated)) take(pod, 'Outdated');
  // A scale-down during the rollout: surplus pods of the current template, worst first among those
  // whose deletion keeps availability.
  let surplusLeft = surplus;
  for (const pod of surplus === 0 ? [] : rankForDeletion(current)) {
    if (surplusLeft === 0) break;
    if (take(pod, 'Surplus')) surplusLeft--;
  }
  return { creates, deletes, held };
}

/**
 * Paused with pods of another template (a rollout under way when it was paused): as a paused Deployment
 * keeps its ReplicaSets, the pods stay as they are; a scale-up adds pods of the current template, a
 * scale-down removes pods of other templates first, worst first.
 */
function pausedStep<P extends Pod>(input: RolloutInput<P>): RolloutStep<P> {
  const { desired, current, outdated } = input;
  const surplus = Math.max(0, current.length + outdated.length - desired);
  const ranked = surplus === 0 ? [] : [...rankForDeletion(outdated), ...rankForDeletion(current)];
  return {
    creates: Math.max(0, desired - current.length - outdated.length),
    deletes: ranked.slice(0, surplus).map((pod) => ({ pod, reason: 'Surplus' as const })),
    held: false,
  };
}
