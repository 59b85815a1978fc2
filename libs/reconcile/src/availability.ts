// The Available condition, as Deployments decide it: True while enough pods are available that the
// strategy would let no more go, i.e. available >= replicas - maxUnavailable (Recreate tolerates none).
// So a scale-up or a rollout within its bounds keeps a PodSet Available.
import type { ConditionInput } from './conditions.ts';
import { toleratedUnavailable, type ResolvedStrategy } from './strategy.ts';

export interface Availability {
  /** spec.replicas. */
  desired: number;
  /** Active pods Ready for at least minReadySeconds. */
  available: number;
  strategy: ResolvedStrategy;
  /** spec.minReadySeconds: with 0, available and ready are the same, and the message says ready. */
  minReadySeconds: number;
}

/** "3/4 replicas ready": the counts the conditions' messages share. */
export function availabilityCounts(a: Availability): string {
  return `${a.available}/${a.desired} replicas ${a.minReadySeconds === 0 ? 'ready' : 'available'}`;
}

/** The fewest available pods with which the PodSet is Available. */
export function minimumAvailable(a: Availability): number {
  return Math.max(0, a.desired - toleratedUnavailable(a.strategy, a.desired));
}

export function availableCondition(a: Availability): ConditionInput {
  const minimum = minimumAvailable(a);
  const message = `${availabilityCounts(a)}, at least ${minimum} needed`;
  return a.available >= minimum
    ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message }
    : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message };
}
