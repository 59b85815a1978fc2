// Wire types: objects as JSON carries them, only the fields the operator reads or writes. Callers may use
// richer types; every client method is generic. Object metadata and the PodSet come from the PodSet API
// (@podset/reconcile), where the PodSet type is derived from the schema the CRD is generated from.
import type { ObjectMeta, OwnerReference, Pod as ReconcilePod, PodSet } from '@podset/reconcile';

// The one PodSet type is the PodSet API's (derived from the CRD's schema); the client serves it as it is.
export type { ObjectMeta, OwnerReference, PodSet };

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface KubeList<T> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

/** metav1.Status, as returned with every error. */
export interface Status {
  apiVersion?: string;
  kind?: 'Status';
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    retryAfterSeconds?: number;
    causes?: { reason?: string; message?: string; field?: string }[];
  };
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

/** A pod as the API returns it: the planner's Pod, whose metadata a read object always has. */
export type Pod = ReconcilePod & KubeObject;

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** core/v1 Event (the fields we write). */
export interface CoreEvent extends KubeObject {
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  type?: 'Normal' | 'Warning';
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string | null;
  source?: { component?: string; host?: string };
  reportingComponent?: string;
  reportingInstance?: string;
  action?: string;
}

/** coordination.k8s.io/v1 Lease. */
export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number;
  };
}

/** apps/v1 ControllerRevision: one revision of a PodSet's template (`data`: `{ spec: { template } }`). */
export interface ControllerRevision extends KubeObject {
  revision: number;
  data?: unknown;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T> {
  type: WatchEventType;
  /** The object; for ERROR, a Status. */
  object: T;
}
