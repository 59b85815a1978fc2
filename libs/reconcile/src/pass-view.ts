// What one planning pass sees of a PodSet and its pods: the spec resolved (defaults, strategy) and the
// pods it controls sorted by what the plan does with them.
import { TEMPLATE_HASH_LABEL } from './api.ts';
import { isPodAvailable, podLifecycle } from './pod-state.ts';
import { desiredReplicas, specProblem, type SpecProblem } from './spec-check.ts';
import {
  minReadySeconds,
  progressDeadlineSeconds,
  resolveStrategy,
  type ResolvedStrategy,
} from './strategy.ts';
import { templateHash } from './template-hash.ts';
import type { Pod, PodSet } from './types.ts';

interface PassViewBase {
  podset: PodSet;
  nowMs: number;
  desired: number;
  /** Hash of the current template. */
  hash: string;
  minReadySeconds: number;
  progressDeadlineSeconds: number;
  /** Controlled pods neither terminating nor finished. */
  active: Pod[];
  /** Controlled pods Succeeded or Failed. */
  finished: Pod[];
  /** Active pods of the current template. */
  updated: Pod[];
  /** Active pods of any other template (or none recorded). */
  outdated: Pod[];
  /** Terminating pods of other templates. */
  outdatedTerminating: number;
  /** Ready for at least minReadySeconds at nowMs. */
  isAvailable: (pod: Pod) => boolean;
}

/** A spec with a problem (then there is no strategy, and no work), or a strategy to work by. */
export type PassView = PassViewBase &
  ({ problem: SpecProblem; strategy: undefined } | { problem: undefined; strategy: ResolvedStrategy });

export function passView(podset: PodSet, controlled: readonly Pod[], nowMs: number): PassView {
  const problem = specProblem(podset);
  const desired = desiredReplicas(podset);
  const hash = templateHash(podset);
  const minReady = problem ? 0 : minReadySeconds(podset);
  const isCurrent = (p: Pod) => p.metadata?.labels?.[TEMPLATE_HASH_LABEL] === hash;
  const active = controlled.filter((p) => podLifecycle(p) === 'active');
  const base: PassViewBase = {
    podset,
    nowMs,
    desired,
    hash,
    minReadySeconds: minReady,
    progressDeadlineSeconds: problem ? 0 : progressDeadlineSeconds(podset),
    active,
    finished: controlled.filter((p) => podLifecycle(p) === 'finished'),
    updated: active.filter(isCurrent),
    outdated: active.filter((p) => !isCurrent(p)),
    outdatedTerminating: controlled.filter((p) => podLifecycle(p) === 'terminating' && !isCurrent(p)).length,
    isAvailable: (p) => isPodAvailable(p, minReady, nowMs),
  };
  return problem
    ? { ...base, problem, strategy: undefined }
    : { ...base, problem: undefined, strategy: resolveStrategy(podset, desired) };
}
