// Pure mapping from watched objects to reconcile keys ("namespace/name" of a PodSet).
// The watcher holds no cache: a Pod names its PodSet through its controller ownerReference (`podSetKeyOf`,
// the one ownership rule in @podset/reconcile), or, once released from it, through its podset.io/name label.
import {
  API_VERSION,
  KIND,
  NAME_LABEL,
  formatKey,
  isPodReady,
  podSetKeyOf,
  type ObjectMeta,
  type Pod,
} from '@podset/reconcile';

/** The subset of a Kubernetes object the watcher reads. */
export interface WatchedObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  status?: Pod['status'];
}

export type Resource = 'podsets' | 'pods';

/**
 * Whether a watch event's object is of the kind the stream watches (watch events always carry kind and
 * apiVersion). Anything else — a proxy's or a broken server's junk — must be neither enqueued nor have its
 * resourceVersion taken as the stream's.
 */
export function isWatchedKind(resource: Resource, obj: WatchedObject): boolean {
  if (resource === 'pods') return obj.kind === 'Pod' && obj.apiVersion === 'v1';
  return obj.kind === KIND && obj.apiVersion === API_VERSION;
}

/** Key of a PodSet: `namespace/name`, or undefined when the object lacks either. */
export function podSetKey(obj: WatchedObject): string | undefined {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name;
  if (ns === undefined || ns === '' || name === undefined || name === '') return undefined;
  return formatKey(ns, name);
}

/**
 * The PodSet a pod concerns: its controller's key, else the PodSet its podset.io/name label names. A pod
 * released from its PodSet (controller reference removed, e.g. to debug it) keeps the label, and that
 * PodSet must learn it lost the pod: it creates a replacement, and its projected state stops counting it.
 */
function podKey(obj: WatchedObject): string | undefined {
  const owned = podSetKeyOf(obj);
  if (owned !== undefined) return owned;
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.labels?.[NAME_LABEL];
  return ns && name ? formatKey(ns, name) : undefined;
}

/**
 * An object's `namespace/name`, as the leader's per-pod memories (the hold, the status windows, the API
 * fallback's) key it. Joined, not concatenated: V8 keeps a concatenation of 13 characters or more as a
 * rope over its parts, which as a map key stays beside its flattened copy (~88 bytes against ~40 for join's
 * flat string). The last object's id is answered again for the same object, so the memories that see one
 * event one after the other share one string: at 100,000 pods each copy saved is 4 MiB of the heap.
 */
export function objectId(obj: WatchedObject): string {
  if (obj !== lastObject) {
    lastId = [obj.metadata?.namespace ?? '', obj.metadata?.name ?? ''].join('/');
    lastObject = obj;
  }
  return lastId;
}

let lastObject: WatchedObject | undefined;
let lastId = '';

/** The reconcile key an object of `resource` maps to. */
export function keyFor(resource: Resource, obj: WatchedObject): string | undefined {
  return resource === 'podsets' ? podSetKey(obj) : podKey(obj);
}

/** Distinct keys of a list of objects (a relist), in first-seen order. */
export function keysOf(resource: Resource, objects: readonly WatchedObject[]): string[] {
  const keys = new Set<string>();
  for (const obj of objects) {
    const key = keyFor(resource, obj);
    if (key !== undefined) keys.add(key);
  }
  return [...keys];
}

/** Whether a pod's Ready condition is True (undefined for objects that aren't pods). */
export function podReady(obj: WatchedObject): boolean | undefined {
  return obj.status?.conditions === undefined ? undefined : isPodReady(obj);
}

/** The stream id of one watch: resource and namespace (`*` for all namespaces). */
export function streamId(resource: Resource, namespace: string | undefined): string {
  return `${resource}/${namespace ?? '*'}`;
}

/** The collection path of a resource, cluster-wide when namespace is undefined. */
export function collectionPath(resource: Resource, namespace: string | undefined): string {
  const base = resource === 'podsets' ? '/apis/podset.io/v1' : '/api/v1';
  const ns = namespace === undefined ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  return `${base}${ns}/${resource}`;
}
