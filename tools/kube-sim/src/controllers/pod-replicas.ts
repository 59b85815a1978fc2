// Pod replication shared by the ReplicationController and ReplicaSet controllers (and the pod building and
// counting the Job controller needs): claim the pods a selector matches (adopt orphans, release pods whose
// labels no longer match), create or delete pods toward a count, and count the status replicas.
import {
  ApiError,
  type ClusterAccess,
  type Json,
  type JsonObject,
  type KubeObject,
  type OwnerReference,
} from '../apimachinery/types.ts';
import { labelSelectorString } from '../registry/api.ts';
import { matchesLabels, parseLabelSelector } from '../apimachinery/selectors.ts';
import { isTerminal } from './pod-status.ts';
import { recordEvent } from './object-events.ts';
import { isApiError, mutate, type ErrorReporter } from './util.ts';

export const obj = (v: unknown): JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};

export const num = (v: Json | undefined, fallback: number): number =>
  typeof v === 'number' && Number.isFinite(v) ? v : fallback;

/** The object a controller owns pods (or ReplicaSets) for. */
export interface Owner {
  apiVersion: string;
  kind: string;
  object: KubeObject;
}

export function controllerRef(owner: Owner): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.object.metadata.name ?? '',
    uid: owner.object.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function controllerOf(o: KubeObject): OwnerReference | undefined {
  return o.metadata.ownerReferences?.find((r) => r.controller === true);
}

export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

/**
 * A matcher for a LabelSelector object (matchLabels, matchExpressions). An empty or invalid selector matches
 * nothing: the API server refuses both for workloads, and a controller must never claim a whole namespace.
 */
export function selectorMatcher(selector: Json | undefined): LabelMatcher {
  const text = labelSelectorString(selector);
  if (text === '') return () => false;
  try {
    const parsed = parseLabelSelector(text);
    return (labels) => matchesLabels(parsed, labels);
  } catch {
    return () => false;
  }
}

export const isActive = (pod: KubeObject): boolean =>
  pod.metadata.deletionTimestamp === undefined && !isTerminal(pod);

function readyCondition(pod: KubeObject): JsonObject | undefined {
  const conditions = obj(pod.status).conditions;
  if (!Array.isArray(conditions)) return undefined;
  return conditions.map(obj).find((c) => c.type === 'Ready' && c.status === 'True');
}

export const isPodReady = (pod: KubeObject): boolean => readyCondition(pod) !== undefined;

/**
 * Ready for at least minReadySeconds (podutil.IsPodAvailable): 0 when available now, the ms until it will
 * be, or undefined when it is not Ready.
 */
export function availableInMs(pod: KubeObject, minReadySeconds: number, nowMs: number): number | undefined {
  const ready = readyCondition(pod);
  if (!ready) return undefined;
  if (minReadySeconds <= 0) return 0;
  const since = Date.parse(String(ready.lastTransitionTime ?? ''));
  if (!Number.isFinite(since)) return 0;
  return Math.max(0, since + minReadySeconds * 1000 - nowMs);
}

/** A pod of a template, owned by `owner` (the API server fills in the rest of the name). */
export function podFromTemplate(
  owner: Owner,
  template: JsonObject,
  extra: {
    generateName?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  } = {},
): KubeObject {
  const meta = obj(template.metadata);
  const labels = { ...(obj(meta.labels) as Record<string, string>), ...extra.labels };
  const annotations = { ...(obj(meta.annotations) as Record<string, string>), ...extra.annotations };
  const { namespace, name } = owner.object.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: extra.generateName ?? `${name ?? 'pod'}-`,
      namespace: namespace ?? 'default',
      labels,
      ...(Object.keys(annotations).length ? { annotations } : {}),
      ...(Array.isArray(meta.finalizers) ? { finalizers: meta.finalizers as string[] } : {}),
      ownerReferences: [controllerRef(owner)],
    },
    spec: obj(template.spec),
  };
}

/**
 * The pods `owner` controls after adopting matching orphans and releasing owned pods that no longer match
 * (controller.PodControllerRefManager.ClaimPods). Pods being deleted are neither adopted nor released.
 */
export function claimPods(
  cluster: ClusterAccess,
  owner: Owner,
  matches: LabelMatcher,
  pods: KubeObject[] = cluster.list('pods', owner.object.metadata.namespace),
): KubeObject[] {
  const uid = owner.object.metadata.uid;
  const ownerGoing = owner.object.metadata.deletionTimestamp !== undefined;
  const mine: KubeObject[] = [];
  for (const pod of pods) {
    const ref = controllerOf(pod);
    const deleting = pod.metadata.deletionTimestamp !== undefined;
    if (ref?.uid === uid) {
      if (matches(pod.metadata.labels) || deleting || ownerGoing) mine.push(pod);
      else setControllerRef(cluster, pod, undefined);
    } else if (!ref && !deleting && !ownerGoing && matches(pod.metadata.labels)) {
      const adopted = setControllerRef(cluster, pod, controllerRef(owner));
      if (adopted) mine.push(adopted);
    }
  }
  return mine;
}

function setControllerRef(
  cluster: ClusterAccess,
  pod: KubeObject,
  ref: OwnerReference | undefined,
): KubeObject | undefined {
  const { namespace, name, uid } = pod.metadata;
  return mutate(cluster, 'update', 'pods', namespace, name ?? '', uid, (p) => {
    const current = controllerOf(p);
    if (ref ? current !== undefined : current === undefined) return undefined;
    const others = (p.metadata.ownerReferences ?? []).filter((r) => r.controller !== true);
    const refs = ref ? [...others, ref] : others;
    if (refs.length) p.metadata.ownerReferences = refs;
    else delete p.metadata.ownerReferences;
    return p;
  });
}

/**
 * The order in which surplus pods go (controller.ActivePods, the less valuable first): unscheduled before
 * scheduled, Pending before Running, not ready before ready, then the youngest first.
 */
export function deletionOrder(a: KubeObject, b: KubeObject): number {
  const rank = (p: KubeObject): number[] => [
    obj(p.spec).nodeName ? 1 : 0,
    obj(p.status).phase === 'Running' ? 2 : obj(p.status).phase === 'Pending' ? 0 : 1,
    isPodReady(p) ? 1 : 0,
  ];
  const ra = rank(a);
  const rb = rank(b);
  for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
  return String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp));
}

export interface ReplicaCounts {
  replicas: number;
  fullyLabeledReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  /** When a Ready pod becomes available (minReadySeconds), in ms: sync again then. */
  recheckInMs: number | undefined;
  /** Why creating a pod failed in this sync, if it did. */
  failure?: string | undefined;
}

/** Counts the active pods as ReplicaSet and ReplicationController status does. */
export function countReplicas(
  active: KubeObject[],
  templateLabels: Record<string, string>,
  minReadySeconds: number,
  nowMs = Date.now(),
): ReplicaCounts {
  const counts: ReplicaCounts = {
    replicas: active.length,
    fullyLabeledReplicas: 0,
    readyReplicas: 0,
    availableReplicas: 0,
    recheckInMs: undefined,
  };
  const wanted = Object.entries(templateLabels);
  for (const p of active) {
    if (wanted.every(([k, v]) => p.metadata.labels?.[k] === v)) counts.fullyLabeledReplicas++;
    const inMs = availableInMs(p, minReadySeconds, nowMs);
    if (inMs === undefined) continue;
    counts.readyReplicas++;
    if (inMs === 0) counts.availableReplicas++;
    else counts.recheckInMs = Math.min(counts.recheckInMs ?? inMs, inMs);
  }
  return counts;
}

export interface ReplicateSpec {
  replicas: number;
  template: JsonObject;
  matches: LabelMatcher;
  minReadySeconds: number;
  /** Records SuccessfulCreate / SuccessfulDelete Events on the owner as this controller. */
  events: { component: string; report: ErrorReporter };
}

/**
 * One sync of a replicating controller: claims its pods, creates the missing ones or deletes the surplus,
 * and returns the counts of its active pods (those it just created or deleted are not among them, as the
 * real controllers report from their informer cache before their own writes come back).
 */
export function replicatePods(cluster: ClusterAccess, owner: Owner, spec: ReplicateSpec): ReplicaCounts {
  const mine = claimPods(cluster, owner, spec.matches);
  const active = mine.filter(isActive);
  const namespace = owner.object.metadata.namespace;
  let failure: string | undefined;
  if (owner.object.metadata.deletionTimestamp === undefined) {
    const event = (reason: string, message: string, type: 'Normal' | 'Warning' = 'Normal') =>
      recordEvent(cluster, spec.events.report, owner.object, {
        component: spec.events.component,
        reason,
        message,
        type,
      });
    if (active.length < spec.replicas) {
      for (let i = active.length; i < spec.replicas; i++) {
        let pod: KubeObject;
        try {
          pod = cluster.create('pods', podFromTemplate(owner, spec.template));
        } catch (err) {
          // Refused (quota, validation, a terminating namespace): reported, tried again later.
          if (!(err instanceof ApiError)) throw err;
          event('FailedCreate', `Error creating: ${err.message}`, 'Warning');
          failure = err.message;
          break;
        }
        event('SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
      }
    } else if (active.length > spec.replicas) {
      for (const p of [...active].sort(deletionOrder).slice(0, active.length - spec.replicas)) {
        try {
          cluster.delete('pods', namespace, p.metadata.name ?? '');
          event('SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
        } catch (err) {
          if (!isApiError(err, 404)) throw err;
        }
      }
    }
  }
  const templateLabels = obj(obj(spec.template.metadata).labels) as Record<string, string>;
  return { ...countReplicas(active, templateLabels, spec.minReadySeconds), failure };
}

/** How long a controller waits before trying a refused pod create again. */
export const FAILED_CREATE_RETRY_MS = 1000;

/**
 * The ReplicaFailure condition as the ReplicaSet and ReplicationController controllers keep it: set (with
 * the error) when creating pods failed, removed once a sync creates what it needs.
 */
export function withReplicaFailure(
  conditions: Json | undefined,
  failure: string | undefined,
  now: string,
): JsonObject[] {
  const list = Array.isArray(conditions) ? conditions.map(obj) : [];
  const current = list.find((c) => c.type === 'ReplicaFailure');
  if (failure === undefined) return list.filter((c) => c.type !== 'ReplicaFailure');
  if (current) return list;
  return [
    ...list,
    {
      type: 'ReplicaFailure',
      status: 'True',
      lastTransitionTime: now,
      reason: 'FailedCreate',
      message: failure,
    },
  ];
}
