// Schema data: the meta/v1 schemas every group-version document carries (the parts kubectl explain shows
// and kube-sim's objects carry) and autoscaling/v1 Scale, as kube-apiserver 1.32 publishes them, trimmed.
import type { JsonObject } from '../apimachinery/types.ts';
import { gvk, META, REF_V3 } from './names.ts';
import { API_VERSION_DESC, KIND_DESC, METADATA_DESC, ref, s, stringMap } from './schema-parts.ts';

export const META_SCHEMAS: Readonly<Record<string, JsonObject>> = {
  [`${META}.ObjectMeta`]: {
    type: 'object',
    description:
      'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
    properties: {
      name: s('string', 'Name must be unique within a namespace. Cannot be updated.'),
      generateName: s(
        'string',
        'GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.',
      ),
      namespace: s('string', 'Namespace defines the space within which each name must be unique.'),
      uid: s('string', 'UID is the unique in time and space value for this object. Populated by the system.'),
      resourceVersion: s(
        'string',
        'An opaque value that represents the internal version of this object, used for optimistic concurrency and watches. Populated by the system.',
      ),
      generation: s('integer', 'A sequence number representing a specific generation of the desired state.', {
        format: 'int64',
      }),
      creationTimestamp: ref(
        `${META}.Time`,
        'CreationTimestamp is a timestamp representing the server time when this object was created. Populated by the system.',
      ),
      deletionTimestamp: ref(
        `${META}.Time`,
        'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted. Set by the server when a graceful deletion is requested.',
      ),
      deletionGracePeriodSeconds: s(
        'integer',
        'Number of seconds allowed for this object to gracefully terminate before it will be removed from the system.',
        { format: 'int64' },
      ),
      labels: stringMap(
        'Map of string keys and values that can be used to organize and categorize (scope and select) objects.',
      ),
      annotations: stringMap(
        'Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.',
      ),
      ownerReferences: {
        type: 'array',
        description:
          'List of objects depended by this object. If ALL objects in the list have been deleted, this object will be garbage collected.',
        items: { default: {}, allOf: [{ $ref: `${REF_V3}${META}.OwnerReference` }] },
        'x-kubernetes-list-map-keys': ['uid'],
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-patch-merge-key': 'uid',
        'x-kubernetes-patch-strategy': 'merge',
      },
      finalizers: {
        type: 'array',
        description:
          'Must be empty before the object is deleted from the registry. Each entry is an identifier for the responsible component that will remove the entry from the list.',
        items: { type: 'string', default: '' },
        'x-kubernetes-list-type': 'set',
        'x-kubernetes-patch-strategy': 'merge',
      },
      managedFields: {
        type: 'array',
        description:
          'ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.',
        items: { default: {}, allOf: [{ $ref: `${REF_V3}${META}.ManagedFieldsEntry` }] },
        'x-kubernetes-list-type': 'atomic',
      },
    },
  },
  [`${META}.OwnerReference`]: {
    type: 'object',
    description: 'OwnerReference contains enough information to let you identify an owning object.',
    required: ['apiVersion', 'kind', 'name', 'uid'],
    properties: {
      apiVersion: s('string', 'API version of the referent.', { default: '' }),
      kind: s('string', 'Kind of the referent.', { default: '' }),
      name: s('string', 'Name of the referent.', { default: '' }),
      uid: s('string', 'UID of the referent.', { default: '' }),
      controller: s('boolean', 'If true, this reference points to the managing controller.'),
      blockOwnerDeletion: s(
        'boolean',
        'If true, AND if the owner has the "foregroundDeletion" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed.',
      ),
    },
    'x-kubernetes-map-type': 'atomic',
  },
  [`${META}.ManagedFieldsEntry`]: {
    type: 'object',
    description:
      'ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.',
    properties: {
      apiVersion: s(
        'string',
        'APIVersion defines the version of this resource that this field set applies to.',
      ),
      fieldsType: s('string', 'FieldsType is the discriminator for the different fields format and version.'),
      fieldsV1: { type: 'object', description: 'FieldsV1 holds the first JSON version format.' },
      manager: s('string', 'Manager is an identifier of the workflow managing these fields.'),
      operation: s(
        'string',
        'Operation is the type of operation which lead to this ManagedFieldsEntry being created.',
      ),
      subresource: s('string', 'Subresource is the name of the subresource used to update that object.'),
      time: ref(`${META}.Time`, 'Time is the timestamp of when the ManagedFields entry was added.'),
    },
  },
  [`${META}.Time`]: {
    type: 'string',
    format: 'date-time',
    description:
      'Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON. Wrappers are provided for many of the factory methods that the time package offers.',
  },
  [`${META}.ListMeta`]: {
    type: 'object',
    description:
      'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.',
    properties: {
      continue: s('string', 'continue may be set if the user set a limit on the number of items returned.'),
      remainingItemCount: s('integer', 'remainingItemCount is the number of subsequent items in the list.', {
        format: 'int64',
      }),
      resourceVersion: s('string', "String that identifies the server's internal version of this object."),
    },
  },
  [`${META}.Status`]: {
    type: 'object',
    description: "Status is a return value for calls that don't return other objects.",
    properties: {
      apiVersion: s('string', API_VERSION_DESC),
      kind: s('string', KIND_DESC),
      metadata: ref(`${META}.ListMeta`, METADATA_DESC),
      code: s('integer', 'Suggested HTTP return code for this status, 0 if not set.', { format: 'int32' }),
      details: {
        type: 'object',
        description: 'Extended data associated with the reason.',
        'x-kubernetes-preserve-unknown-fields': true,
      },
      message: s('string', 'A human-readable description of the status of this operation.'),
      reason: s('string', 'A machine-readable description of why this operation is in the "Failure" status.'),
      status: s('string', 'Status of the operation. One of: "Success" or "Failure".'),
    },
    'x-kubernetes-group-version-kind': [gvk('', 'v1', 'Status')],
  },
  [`${META}.DeleteOptions`]: {
    type: 'object',
    description: 'DeleteOptions may be provided when deleting an API object.',
    properties: {
      apiVersion: s('string', API_VERSION_DESC),
      kind: s('string', KIND_DESC),
      dryRun: {
        type: 'array',
        description: 'When present, indicates that modifications should not be persisted.',
        items: { type: 'string', default: '' },
        'x-kubernetes-list-type': 'atomic',
      },
      gracePeriodSeconds: s('integer', 'The duration in seconds before the object should be deleted.', {
        format: 'int64',
      }),
      preconditions: {
        type: 'object',
        description: 'Must be fulfilled before a deletion is carried out.',
        properties: {
          resourceVersion: s('string', 'Specifies the target ResourceVersion'),
          uid: s('string', 'Specifies the target UID.'),
        },
      },
      propagationPolicy: s(
        'string',
        "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.",
      ),
    },
  },
  [`${META}.Patch`]: {
    type: 'object',
    description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
  },
};

export const SCALE = 'io.k8s.api.autoscaling.v1.Scale';
export const SCALE_SCHEMA: JsonObject = {
  type: 'object',
  description: 'Scale represents a scaling request for a resource.',
  properties: {
    apiVersion: s('string', API_VERSION_DESC),
    kind: s('string', KIND_DESC),
    metadata: { ...ref(`${META}.ObjectMeta`, METADATA_DESC), default: {} },
    spec: {
      type: 'object',
      description: 'spec defines the behavior of the scale.',
      properties: {
        replicas: s('integer', 'replicas is the desired number of instances for the scaled object.', {
          format: 'int32',
        }),
      },
    },
    status: {
      type: 'object',
      description: 'status is the current status of the scale.',
      required: ['replicas'],
      properties: {
        replicas: s('integer', 'replicas is the actual number of observed instances of the scaled object.', {
          format: 'int32',
          default: 0,
        }),
        selector: s('string', 'selector is the label query over pods that should match the replicas count.'),
      },
    },
  },
  'x-kubernetes-group-version-kind': [gvk('autoscaling', 'v1', 'Scale')],
};
