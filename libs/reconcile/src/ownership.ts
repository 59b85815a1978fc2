// The one rule for which PodSet owns a pod: its controller ownerReference, of kind PodSet and apiVersion
// podset.io/v1, and, where the PodSet's UID is known, with that UID. A pod of a deleted PodSet with the
// same name (another UID) is never counted, deleted or adopted.
import { API_VERSION, KIND } from './api.ts';
import { formatKey } from './key.ts';
import type { ObjectMeta, OwnerReference, PodSet } from './types.ts';

/** The ownerReference with controller: true, if any. */
export function controllerRef(obj: { metadata?: ObjectMeta }): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/**
 * The controller ownerReference a PodSet sets on what it makes or adopts (its pods, its revisions): with
 * blockOwnerDeletion, so that a foreground deletion waits for them.
 */
export function controllerRefTo(podset: { metadata: { name?: string; uid?: string } }): OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    name: podset.metadata.name ?? '',
    uid: podset.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

function isPodSetRef(ref: OwnerReference | undefined): ref is OwnerReference {
  return ref !== undefined && ref.kind === KIND && ref.apiVersion === API_VERSION;
}

/** The controller ownerReference when the controller is a PodSet (whatever its UID). */
export function podSetControllerRef(obj: { metadata?: ObjectMeta }): OwnerReference | undefined {
  const ref = controllerRef(obj);
  return isPodSetRef(ref) ? ref : undefined;
}

/** The pod's controller is this PodSet (same UID). False when the PodSet has no UID. */
export function isControlledBy(pod: { metadata?: ObjectMeta }, podset: PodSet): boolean {
  const uid = podset.metadata.uid;
  if (!uid) return false;
  const ref = controllerRef(pod);
  return isPodSetRef(ref) && ref.uid === uid;
}

/** The pods among `pods` that this PodSet controls, in the given order. */
export function controlledPods<P extends { metadata?: ObjectMeta }>(podset: PodSet, pods: readonly P[]): P[] {
  return pods.filter((p) => isControlledBy(p, podset));
}

/**
 * The queue key `namespace/name` of the PodSet controlling a pod, from its controller ownerReference
 * (for the watcher: a Pod event → the PodSet to reconcile). Undefined if no PodSet controls it.
 */
export function podSetKeyOf(pod: { metadata?: ObjectMeta }): string | undefined {
  const ref = podSetControllerRef(pod);
  const ns = pod.metadata?.namespace;
  if (ref === undefined || !ns || !ref.name) return undefined;
  return formatKey(ns, ref.name);
}
