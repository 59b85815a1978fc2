// The contract shared by kube-sim's pieces (store, server, selectors, patches, schemas, OpenAPI).
// Keep it small: each piece owns its own details, this file only names what crosses between them.

/** A JSON value as it travels over the wire. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** metav1.OwnerReference. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/**
 * metav1.ObjectMeta as the store keeps it: JSON only (timestamps are RFC 3339 strings), with managedFields.
 * kube-sim defines its own rather than borrowing the operator's, so that the simulator never depends on
 * the code it is used to test.
 */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: Json[];
}

/** Any stored Kubernetes object. Fields besides apiVersion/kind/metadata are free-form JSON. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: Json | ObjectMeta | undefined;
}

/** OpenAPI v3 schema as used by CRDs (apiextensions.k8s.io/v1 JSONSchemaProps), the subset we honour. */
export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  pattern?: string;
  enum?: Json[];
  default?: Json;
  nullable?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
}

/** One `x-kubernetes-validations` item: a CEL rule checked with `self` (and `oldSelf` on updates) at its node. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface PrinterColumn {
  name: string;
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

export interface ScaleSubresource {
  specReplicasPath: string; // e.g. ".spec.replicas"
  statusReplicasPath: string; // e.g. ".status.replicas"
  labelSelectorPath?: string; // e.g. ".status.selector"
}

/** One served resource (a group/version/plural), built-in or from a CRD. */
export interface ResourceType {
  group: string; // '' for the core group
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  subresources: { status?: boolean; scale?: ScaleSubresource };
  /** Present for CRDs (and any built-in we choose to validate): the structural schema of the whole object. */
  schema?: JSONSchemaProps;
  printerColumns?: PrinterColumn[];
  /** For a CRD version that is served but is not the storage version. */
  storage?: boolean;
  /**
   * The store resource id when it is another API's (events.k8s.io/v1 events are core events): objects are
   * stored once, in that resource's shape, and converted on the way in and out.
   */
  storageResource?: string;
}

/** A field-level error, as carried in Status.details.causes. `field` is a path like `spec.replicas`. */
export interface FieldCause {
  reason:
    | 'FieldValueInvalid'
    | 'FieldValueRequired'
    | 'FieldValueNotSupported'
    | 'FieldValueTooLong'
    | 'FieldValueTypeInvalid'
    | 'FieldValueDuplicate'
    | 'FieldValueForbidden'
    | 'FieldValueNotFound'
    | 'FieldManagerConflict'
    | 'ResourceVersionTooLarge'
    | 'NamespaceTerminating';
  message: string;
  field: string;
}

/** Thrown by any piece; the server turns it into a metav1.Status response with this code and reason. */
export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly causes: FieldCause[];
  readonly retryAfterSeconds: number | undefined;
  readonly details: { name?: string; group?: string; kind?: string } | undefined;
  constructor(
    code: number,
    reason: string,
    message: string,
    opts: {
      causes?: FieldCause[];
      retryAfterSeconds?: number;
      details?: { name?: string; group?: string; kind?: string };
    } = {},
  ) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.causes = opts.causes ?? [];
    this.retryAfterSeconds = opts.retryAfterSeconds;
    this.details = opts.details;
  }
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** A change committed to the store; `object` carries the new resourceVersion (the last state for DELETED). */
export interface StoreEvent {
  type: WatchEventType;
  /** Resource id: the plural for the core group (`pods`), `plural.group` otherwise (`podsets.podset.io`). */
  resource: string;
  object: KubeObject;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
}

/**
 * What in-process controllers (pod lifecycle, garbage collector, CRD establishment) use. Writes go through
 * the same code as API writes: resourceVersion bump, generation, watch events, admission of finalizers.
 * Every method throws ApiError as the HTTP API would (404, 409, 422).
 */
export interface ClusterAccess {
  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined;
  list(resource: string, namespace?: string): KubeObject[];
  create(resource: string, object: KubeObject): KubeObject;
  /** Optimistic concurrency: a set metadata.resourceVersion that is stale gives 409. */
  update(resource: string, object: KubeObject): KubeObject;
  updateStatus(resource: string, object: KubeObject): KubeObject;
  /** pods/binding: sets a pod's spec.nodeName, which no update may (409 if it has a node or is being deleted). */
  bind(namespace: string, name: string, nodeName: string): KubeObject;
  /** Graceful where the resource has it (pods), finalizers honoured; returns the object as left (or undefined if gone). */
  delete(
    resource: string,
    namespace: string | undefined,
    name: string,
    options?: DeleteOptions,
  ): KubeObject | undefined;
  /** Removes the object now, ignoring grace periods: for controllers ending a pod's termination. Finalizers still block. */
  forceRemove(resource: string, namespace: string | undefined, name: string): void;
  subscribe(listener: (event: StoreEvent) => void): () => void;
  resourceTypes(): ResourceType[];
}
