// PodSet conditions: Available, Progressing, ReplicaFailure, kept in that order, with lastTransitionTime
// changed only when a condition's status changes.
import { formatTime } from './time.ts';
import type { ConditionStatus, ConditionType, PodSetCondition, PodSetStatus } from './types.ts';

export const CONDITION_ORDER: readonly ConditionType[] = ['Available', 'Progressing', 'ReplicaFailure'];

/** A condition without its transition time: what the planner decides. */
export interface ConditionInput {
  type: ConditionType;
  status: ConditionStatus;
  reason: string;
  message: string;
  /** Progressing only: when progress was last seen (the progress deadline counts from it). */
  lastUpdateTime?: string;
}

export function getCondition(
  status: PodSetStatus | undefined,
  type: ConditionType,
): PodSetCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

function ordered(conditions: PodSetCondition[]): PodSetCondition[] {
  const rank = (t: string): number => {
    const i = CONDITION_ORDER.indexOf(t as ConditionType);
    return i === -1 ? CONDITION_ORDER.length : i;
  };
  return conditions.sort((a, b) => rank(a.type) - rank(b.type) || (a.type < b.type ? -1 : 1));
}

/**
 * Returns a new list with `next` set: the previous lastTransitionTime is kept when the status is
 * unchanged, else it is `now`.
 */
export function setCondition(
  conditions: readonly PodSetCondition[] | undefined,
  next: ConditionInput,
  now: Date | number,
): PodSetCondition[] {
  const prev = conditions?.find((c) => c.type === next.type);
  const lastTransitionTime =
    prev && prev.status === next.status && prev.lastTransitionTime
      ? prev.lastTransitionTime
      : formatTime(now);
  const rest = (conditions ?? []).filter((c) => c.type !== next.type).map((c) => ({ ...c }));
  return ordered([...rest, { ...next, lastTransitionTime }]);
}

/** Returns a new list without the condition of this type. */
export function removeCondition(
  conditions: readonly PodSetCondition[] | undefined,
  type: ConditionType,
): PodSetCondition[] {
  return ordered((conditions ?? []).filter((c) => c.type !== type).map((c) => ({ ...c })));
}

/**
 * For the executor when creates or deletes fail (quota, admission, …): the status with ReplicaFailure
 * True and this reason/message (e.g. 'FailedCreate', the API's message). The transition time is kept
 * if ReplicaFailure was already True. Compare the result with `statusEqual` to decide to write it.
 */
export function withFailure(
  status: PodSetStatus,
  reason: string,
  message: string,
  now: Date | number,
): PodSetStatus {
  return {
    ...status,
    conditions: setCondition(
      status.conditions,
      { type: 'ReplicaFailure', status: 'True', reason, message },
      now,
    ),
  };
}

/** For the executor when every create and delete of the plan succeeded: ReplicaFailure removed. */
export function withoutFailure(status: PodSetStatus): PodSetStatus {
  return { ...status, conditions: removeCondition(status.conditions, 'ReplicaFailure') };
}
