// The PodSet API's data types, and the planner's. PodSet types are derived from the CRD schema
// (podset-schema.ts); object metadata is defined here once for every package (libs/kube re-exports it);
// Pod is the one pod type of every package: the fields the operator reads, structural, so that a pod from
// the API's JSON, a client-node V1Pod and a test's literal all pass. Timestamps may be strings (JSON from
// the API) or Dates (@kubernetes/client-node objects).
import type { podSetSchema } from './podset-schema.ts';
import type { FromSchema } from './schema-types.ts';

type Schema = typeof podSetSchema;
type SpecSchema = Schema['properties']['spec'];
type StatusSchema = Schema['properties']['status'];

/** An RFC 3339 string as on the wire, or a Date as client-node deserializes it. */
export type Timestamp = string | Date;

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Object metadata. `Time` is `string` where only JSON is handled (the wire, kube-sim's store). */
export interface ObjectMeta<Time extends Timestamp = Timestamp> {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: Time;
  deletionTimestamp?: Time;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
}

// ---- PodSet: derived from the schema ----

export type PodSetSpec = FromSchema<SpecSchema>;
export type PodTemplateSpec = FromSchema<SpecSchema['properties']['template']>;
export type PodTemplatePodSpec = FromSchema<SpecSchema['properties']['template']['properties']['spec']>;
export type Container = FromSchema<
  SpecSchema['properties']['template']['properties']['spec']['properties']['containers']['items']
>;
export type PodSetStatus = FromSchema<StatusSchema>;
export type PodSetCondition = FromSchema<StatusSchema['properties']['conditions']['items']>;
export type ConditionType = PodSetCondition['type'];
export type ConditionStatus = PodSetCondition['status'];

type Derived = FromSchema<Schema>;

/** A PodSet as read from the API: the schema's type, with the API server's metadata. */
export type PodSet = { [K in keyof Omit<Derived, 'metadata'>]: Derived[K] } & { metadata: ObjectMeta };

// ---- Pod: only what the operator reads (libs/kube's Pod is this one with the metadata a read object has) ----

export interface PodCondition {
  type: string;
  status: string;
  lastTransitionTime?: Timestamp;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { nodeName?: string; containers?: unknown[] };
  /** startTime: set by the kubelet when it accepts the pod (the node agent reads it to resume). */
  status?: { phase?: string; conditions?: PodCondition[]; startTime?: Timestamp };
}

/** A pod to create, ready to POST to /api/v1/namespaces/{namespace}/pods. */
export interface PodManifest {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: {
    generateName: string;
    namespace: string;
    labels: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences: OwnerReference[];
  };
  spec: PodTemplatePodSpec;
}

// ---- Plan ----

export type DeleteReason =
  /** More active pods than spec.replicas. */
  | 'Surplus'
  /** An active pod of another template than the current one (a rollout). */
  | 'Outdated'
  /** A Succeeded/Failed pod beyond the retention bound. */
  | 'Finished'
  /** The PodSet is being deleted. */
  | 'Cleanup';

/** A pod to delete, with a UID precondition (`preconditions: { uid }`). */
export interface PodDeletion {
  namespace: string;
  name: string;
  uid: string;
  reason: DeleteReason;
  /**
   * Also a resourceVersion precondition: the pod is deleted only as it was planned from. Set for a pod a
   * rollout deletes because it is not available, so that one that became ready meanwhile is not taken
   * (the API answers 409; the next pass sees it ready).
   */
  resourceVersion?: string;
}

/** An active pod a plan deletes, as the status counted it before it went. */
export interface CountedDeletion {
  name: string;
  ready: boolean;
  available: boolean;
  /** Of the current template. */
  updated: boolean;
}

export interface PlannedEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export type RequeueReason =
  /** Pods exist (or are about to be created) that are not ready yet. */
  | 'PodsNotReady'
  /** The pass was capped (maxCreatesPerPass / maxDeletesPerPass): more to do at once. */
  | 'MoreWork'
  /** Pods were asked to go (or, for Recreate, old ones are still terminating); look again to confirm. */
  | 'PodsDeleting'
  /** Pods are Ready but not for minReadySeconds yet: look again when the first one will be. */
  | 'PodsNotAvailable'
  /** Work is under way and its progress deadline falls before any other look: look again then. */
  | 'ProgressDeadline';

export interface Requeue {
  afterMs: number;
  reason: RequeueReason;
}

export interface Plan {
  /** 'sync': the normal pass. 'cleanup': the PodSet is being deleted. */
  mode: 'sync' | 'cleanup';
  /**
   * Pods to create, all identical (generateName): one deep-frozen manifest, repeated (send it, never change
   * it). Execute them in `slowStartBatches(creates.length, burst)` and stop at the first batch with a
   * failure; then record it with `withFailure`.
   */
  creates: PodManifest[];
  /**
   * Pods to delete, in order: outdated pods (worst first), ranked surplus, then finished pods beyond
   * retention. Creates and deletes of one plan keep the strategy's bounds in either order.
   */
  deletes: PodDeletion[];
  /**
   * The status to write (for cleanup: the current one, unchanged), counting the pods as the API holds them
   * once every create and delete of the plan went through: a ReplicaSet's status after its sync. `settle`
   * corrects it for the writes that did not (and adds the created pods' names).
   */
  status: PodSetStatus;
  /** The active pods `deletes` takes out of `status`'s counts, for `settle` to count back a failed delete. */
  countedOut?: CountedDeletion[];
  /** `status` differs from the PodSet's current status: write it (status subresource). */
  statusChanged: boolean;
  /** Events to record on the PodSet, besides the executor's own SuccessfulCreate/FailedCreate/…. */
  events: PlannedEvent[];
  /** Look again after a delay; null: settled, watch events and resync suffice. */
  requeue: Requeue | null;
  /** Finalizer podset.io/cleanup: add it, remove it (after all deletes succeeded), or leave it. */
  finalizer: 'add' | 'remove' | null;
}

export interface ReconcileOptions {
  /** Succeeded/Failed pods to keep for inspection (the youngest); older ones are deleted. Default 3. */
  finishedPodsToKeep?: number;
  /** Requeue delay while pods are not ready (the watch brings their changes; this is the net). Default 30 s. */
  notReadyRequeueMs?: number;
  /** At most this many creates planned per pass (client-go's burstReplicas). Default 500. */
  maxCreatesPerPass?: number;
  /** At most this many deletes planned per pass. Default 500. */
  maxDeletesPerPass?: number;
}
