// What makes a PodSet impossible to act on. The CRD schema rejects all of these at the API; the
// planner checks again because callers pass plain JSON (and a schema may be bypassed or older). The CRD
// also refuses the operator's own labels in a template; the planner does not: its pods get the
// operator's values anyway, so a PodSet stored before that rule keeps working.
import { MAX_NAME_LENGTH, MAX_REPLICAS, MIN_REPLICAS } from './api.ts';
import { DEFAULT_REPLICAS } from './podset-schema.ts';
import { effectiveTemplate } from './pod-template.ts';
import { strategyProblem } from './strategy.ts';
import type { PodSet } from './types.ts';

export interface SpecProblem {
  /** ReplicaFailure reason. */
  reason: 'InvalidName' | 'InvalidSpec';
  message: string;
}

/** spec.replicas, defaulted as the API server does. */
export function desiredReplicas(podset: PodSet): number {
  return podset.spec?.replicas ?? DEFAULT_REPLICAS;
}

export function specProblem(podset: PodSet): SpecProblem | undefined {
  const name = podset.metadata.name ?? '';
  if (name === '') return { reason: 'InvalidName', message: 'metadata.name is empty' };
  if (name.length > MAX_NAME_LENGTH) {
    return {
      reason: 'InvalidName',
      message:
        `metadata.name is ${name.length} characters; a PodSet name must be at most ${MAX_NAME_LENGTH} ` +
        `because it is the value of its pods' podset.io/name label`,
    };
  }
  if (!podset.metadata.uid) return { reason: 'InvalidSpec', message: 'metadata.uid is missing' };
  const r = desiredReplicas(podset);
  if (!Number.isInteger(r) || r < MIN_REPLICAS || r > MAX_REPLICAS) {
    return {
      reason: 'InvalidSpec',
      message: `spec.replicas must be an integer from ${MIN_REPLICAS} to ${MAX_REPLICAS}, got ${String(r)}`,
    };
  }
  const restartPolicy: unknown = (effectiveTemplate(podset).spec as { restartPolicy?: unknown } | undefined)
    ?.restartPolicy;
  if (restartPolicy !== undefined && restartPolicy !== 'Always') {
    return {
      reason: 'InvalidSpec',
      message: `spec.template.spec.restartPolicy must be Always (a pod that may finish would be replaced for ever), got ${String(restartPolicy)}`,
    };
  }
  const containers: unknown = effectiveTemplate(podset).spec?.containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    return {
      reason: 'InvalidSpec',
      message: 'spec.template.spec.containers must list at least one container',
    };
  }
  for (const [i, c] of containers.entries()) {
    const ok =
      typeof c === 'object' &&
      c !== null &&
      typeof (c as { name?: unknown }).name === 'string' &&
      typeof (c as { image?: unknown }).image === 'string' &&
      (c as { image: string }).image !== '';
    if (!ok) {
      return {
        reason: 'InvalidSpec',
        message: `spec.template.spec.containers[${i}] needs a name and an image`,
      };
    }
  }
  const strategy = strategyProblem(podset);
  if (strategy !== undefined) return { reason: 'InvalidSpec', message: strategy };
  return undefined;
}
