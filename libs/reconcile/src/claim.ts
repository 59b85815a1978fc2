// Which pods a PodSet claims, by the controller-ref manager's rules (client-go's ClaimPods, as a ReplicaSet
// uses them): a pod it controls whose labels still match its selector is its own; one it controls that no
// longer matches is released (its ownerReference removed), unless the PodSet is being deleted; an active pod
// with no controller at all that matches is adopted, unless either is being deleted. A pod controlled by
// anything else is never touched. Released and adopted pods are only planned here: the worker carries them
// out from an API read, and adopts only after a fresh read of the PodSet (its UID, not being deleted).
import { NAME_LABEL } from './api.ts';
import { controllerRef, isControlledBy } from './ownership.ts';
import { podLifecycle } from './pod-state.ts';
import type { ObjectMeta, Pod, PodSet } from './types.ts';

export interface Claims<P> {
  /** Controlled and matching: the pods the plan counts. */
  owned: P[];
  /** Controlled, active, no longer matching: their ownerReference is to go. */
  release: P[];
  /** No controller, active, matching: to be adopted (and counted once they are). */
  adopt: P[];
}

/** The PodSet's selector (status.selector: podset.io/name=<name>) matches the pod's labels. */
export function matchesSelector(pod: { metadata?: ObjectMeta }, podset: PodSet): boolean {
  const name = podset.metadata.name;
  return name !== undefined && pod.metadata?.labels?.[NAME_LABEL] === name;
}

export function claimPods<P extends Pod>(podset: PodSet, pods: readonly P[]): Claims<P> {
  const claims: Claims<P> = { owned: [], release: [], adopt: [] };
  const deleting = podset.metadata.deletionTimestamp !== undefined;
  for (const pod of pods) {
    const matches = matchesSelector(pod, podset);
    if (controllerRef(pod) !== undefined) {
      if (!isControlledBy(pod, podset)) continue;
      if (matches) claims.owned.push(pod);
      // Only active pods are claimed either way, as a ReplicaSet filters them before it claims.
      else if (!deleting && podLifecycle(pod) === 'active') claims.release.push(pod);
      continue;
    }
    if (!deleting && matches && podLifecycle(pod) === 'active') claims.adopt.push(pod);
  }
  return claims;
}

/** The pods a PodSet may claim: those it controls and those with no controller (never another's). */
export function claimablePods<P extends { metadata?: ObjectMeta }>(podset: PodSet, pods: readonly P[]): P[] {
  return pods.filter((p) => controllerRef(p) === undefined || isControlledBy(p, podset));
}

/**
 * The names the PodSet's last status listed (status.podNames) that `pods` lacks. A read that finds pods by
 * their label alone shows a pod relabelled out of the set exactly so: it is still controlled by the PodSet
 * but no longer listed, and only a read that looks those names up (the API's) can release it. The plan from
 * such a read may act on nothing (a scale-down or a rollout past the pod leaves the count right), so this
 * is the sign to look. Pods the PodSet deleted, or saw finish or start terminating, are not listed by the
 * status written after it did.
 */
export function unlistedPodNames(podset: PodSet, pods: readonly { metadata?: ObjectMeta }[]): string[] {
  const listed = podset.status?.podNames ?? [];
  if (listed.length === 0) return [];
  const seen = new Set(pods.map((p) => p.metadata?.name));
  return listed.filter((name) => !seen.has(name));
}
