// spec.strategy and spec.minReadySeconds, resolved to numbers for a given spec.replicas, the way
// Deployments resolve them: maxSurge rounds up, maxUnavailable rounds down, and when both come to 0 (a
// percent too small for this many replicas) maxUnavailable is 1, so that a rollout can always move.
import {
  DEFAULT_MAX_SURGE,
  DEFAULT_MAX_UNAVAILABLE,
  DEFAULT_MIN_READY_SECONDS,
  DEFAULT_PROGRESS_DEADLINE_SECONDS,
  DEFAULT_STRATEGY_TYPE,
  PROGRESS_DEADLINE_NOT_AFTER_MIN_READY,
  RECREATE_WITH_ROLLING_UPDATE,
  ROLLING_UPDATE_BOTH_ZERO,
} from './podset-schema.ts';
import type { PodSet } from './types.ts';

export type ResolvedStrategy =
  | { type: 'Recreate' }
  | {
      type: 'RollingUpdate';
      /** Active pods may be at most replicas + maxSurge. */
      maxSurge: number;
      /** Available pods may fall to replicas - maxUnavailable (unless already below). */
      maxUnavailable: number;
    };

type IntOrPercent = { value: number; percent: boolean };

/** An int >= 0 or a string "N%"; an Error naming the field otherwise. */
export function parseIntOrPercent(v: unknown, field: string): IntOrPercent | Error {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return { value: v, percent: false };
  if (typeof v === 'string') {
    const m = /^([0-9]+)%$/.exec(v);
    if (m) return { value: Number(m[1]), percent: true };
  }
  return new Error(`${field} must be an integer >= 0 or a percent such as "25%", got ${JSON.stringify(v)}`);
}

function scaled(v: IntOrPercent, replicas: number, roundUp: boolean): number {
  if (!v.percent) return v.value;
  const exact = (v.value * replicas) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

function rollingUpdateOf(podset: PodSet): { maxSurge: unknown; maxUnavailable: unknown } {
  const ru = podset.spec?.strategy?.rollingUpdate;
  return {
    maxSurge: ru?.maxSurge ?? DEFAULT_MAX_SURGE,
    maxUnavailable: ru?.maxUnavailable ?? DEFAULT_MAX_UNAVAILABLE,
  };
}

/**
 * What is wrong with spec.strategy, spec.minReadySeconds or spec.progressDeadlineSeconds (the CRD rejects
 * all of it), if anything.
 */
export function strategyProblem(podset: PodSet): string | undefined {
  const minReady: unknown = podset.spec?.minReadySeconds ?? DEFAULT_MIN_READY_SECONDS;
  if (typeof minReady !== 'number' || !Number.isInteger(minReady) || minReady < 0) {
    return `spec.minReadySeconds must be an integer >= 0, got ${JSON.stringify(minReady)}`;
  }
  const deadline: unknown = podset.spec?.progressDeadlineSeconds ?? DEFAULT_PROGRESS_DEADLINE_SECONDS;
  if (typeof deadline !== 'number' || !Number.isInteger(deadline) || deadline < 1) {
    return `spec.progressDeadlineSeconds must be an integer >= 1, got ${JSON.stringify(deadline)}`;
  }
  if (deadline <= minReady) return `spec: ${PROGRESS_DEADLINE_NOT_AFTER_MIN_READY}`;
  const s = podset.spec?.strategy;
  const type: unknown = s?.type ?? DEFAULT_STRATEGY_TYPE;
  if (type !== 'RollingUpdate' && type !== 'Recreate') {
    return `spec.strategy.type must be RollingUpdate or Recreate, got ${JSON.stringify(type)}`;
  }
  if (type === 'Recreate') {
    return s?.rollingUpdate !== undefined ? `spec.strategy: ${RECREATE_WITH_ROLLING_UPDATE}` : undefined;
  }
  const { maxSurge, maxUnavailable } = rollingUpdateOf(podset);
  const surge = parseIntOrPercent(maxSurge, 'spec.strategy.rollingUpdate.maxSurge');
  if (surge instanceof Error) return surge.message;
  const unavailable = parseIntOrPercent(maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable');
  if (unavailable instanceof Error) return unavailable.message;
  if (unavailable.percent && unavailable.value > 100) {
    return `spec.strategy.rollingUpdate.maxUnavailable must be at most 100%, got ${JSON.stringify(maxUnavailable)}`;
  }
  if (surge.value === 0 && unavailable.value === 0) {
    return `spec.strategy.rollingUpdate: ${ROLLING_UPDATE_BOTH_ZERO}`;
  }
  return undefined;
}

/** The strategy for `replicas` pods. Call only when strategyProblem found nothing. */
export function resolveStrategy(podset: PodSet, replicas: number): ResolvedStrategy {
  if ((podset.spec?.strategy?.type ?? DEFAULT_STRATEGY_TYPE) === 'Recreate') return { type: 'Recreate' };
  const { maxSurge, maxUnavailable } = rollingUpdateOf(podset);
  const surge = parseIntOrPercent(maxSurge, 'maxSurge');
  const unavailable = parseIntOrPercent(maxUnavailable, 'maxUnavailable');
  if (surge instanceof Error || unavailable instanceof Error) throw new RangeError('invalid strategy');
  const s = scaled(surge, replicas, true);
  const u = Math.min(scaled(unavailable, replicas, false), replicas);
  return { type: 'RollingUpdate', maxSurge: s, maxUnavailable: s === 0 && u === 0 ? 1 : u };
}

/** spec.progressDeadlineSeconds, defaulted. */
export function progressDeadlineSeconds(podset: PodSet): number {
  return podset.spec?.progressDeadlineSeconds ?? DEFAULT_PROGRESS_DEADLINE_SECONDS;
}

/**
 * How far available pods may fall below spec.replicas before the PodSet is not Available, as Deployments
 * reckon it: maxUnavailable for RollingUpdate (as resolved above), 0 for Recreate.
 */
export function toleratedUnavailable(strategy: ResolvedStrategy, replicas: number): number {
  return strategy.type === 'RollingUpdate' ? Math.min(strategy.maxUnavailable, replicas) : 0;
}

/** spec.minReadySeconds, defaulted. */
export function minReadySeconds(podset: PodSet): number {
  return podset.spec?.minReadySeconds ?? DEFAULT_MIN_READY_SECONDS;
}
