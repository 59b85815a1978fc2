// Schema data: the top-level fields kube-sim publishes for the built-in kinds that have no spec/status
// (the rest are described as an open spec and status).
import type { JsonObject } from '../apimachinery/types.ts';
import { s, stringMap } from './schema-parts.ts';

/** Top-level fields of the built-in kinds beyond apiVersion/kind/metadata (default: spec and status). */
export const BUILTIN_FIELDS: Record<string, Record<string, JsonObject>> = {
  ConfigMap: {
    data: stringMap('Data contains the configuration data.'),
    binaryData: {
      type: 'object',
      description: 'BinaryData contains the binary data.',
      additionalProperties: { type: 'string', format: 'byte' },
    },
    immutable: s(
      'boolean',
      'Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated.',
    ),
  },
  Secret: {
    data: {
      type: 'object',
      description: 'Data contains the secret data, base64 encoded.',
      additionalProperties: { type: 'string', format: 'byte' },
    },
    stringData: stringMap('stringData allows specifying non-binary secret data in string form; write-only.'),
    type: s('string', 'Used to facilitate programmatic handling of secret data.'),
    immutable: s(
      'boolean',
      'Immutable, if set to true, ensures that data stored in the Secret cannot be updated.',
    ),
  },
  ServiceAccount: {
    secrets: {
      type: 'array',
      description:
        'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
    imagePullSecrets: {
      type: 'array',
      description: 'ImagePullSecrets is a list of references to secrets for pulling images.',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
    automountServiceAccountToken: s(
      'boolean',
      'Whether pods running as this service account should have an API token automatically mounted.',
    ),
  },
  Endpoints: {
    subsets: {
      type: 'array',
      description: 'The set of all endpoints is the union of all subsets.',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
  EndpointSlice: {
    addressType: s('string', 'addressType specifies the type of address carried by this EndpointSlice.'),
    endpoints: {
      type: 'array',
      description: 'endpoints is a list of unique endpoints in this slice.',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
    ports: {
      type: 'array',
      description: 'ports specifies the list of network ports exposed by each endpoint in this slice.',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
  Role: {
    rules: {
      type: 'array',
      description: 'Rules holds all the PolicyRules for this Role',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
  ClusterRole: {
    rules: {
      type: 'array',
      description: 'Rules holds all the PolicyRules for this ClusterRole',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
    aggregationRule: {
      type: 'object',
      description:
        'AggregationRule is an optional field that describes how to build the Rules for this ClusterRole.',
      'x-kubernetes-preserve-unknown-fields': true,
    },
  },
  RoleBinding: {
    subjects: {
      type: 'array',
      description: 'Subjects holds references to the objects the role applies to.',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
    roleRef: {
      type: 'object',
      description:
        'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.',
      'x-kubernetes-preserve-unknown-fields': true,
    },
  },
  ClusterRoleBinding: {
    subjects: {
      type: 'array',
      description: 'Subjects holds references to the objects the role applies to.',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
    roleRef: {
      type: 'object',
      description: 'RoleRef can only reference a ClusterRole in the global namespace.',
      'x-kubernetes-preserve-unknown-fields': true,
    },
  },
  PriorityClass: {
    value: s('integer', 'value represents the integer value of this priority class.', { format: 'int32' }),
    globalDefault: s(
      'boolean',
      'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class.',
    ),
    description: s(
      'string',
      'description is an arbitrary string that usually provides guidelines on when this priority class should be used.',
    ),
    preemptionPolicy: s('string', 'preemptionPolicy is the Policy for preempting pods with lower priority.'),
  },
  StorageClass: {
    provisioner: s('string', 'provisioner indicates the type of the provisioner.'),
    parameters: stringMap(
      'parameters holds the parameters for the provisioner that should create volumes of this storage class.',
    ),
    reclaimPolicy: s(
      'string',
      'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class.',
    ),
    volumeBindingMode: s(
      'string',
      'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.',
    ),
    allowVolumeExpansion: s(
      'boolean',
      'allowVolumeExpansion shows whether the storage class allow volume expand.',
    ),
    mountOptions: {
      type: 'array',
      description:
        'mountOptions controls the mountOptions for dynamically provisioned PersistentVolumes of this storage class.',
      items: { type: 'string' },
    },
  },
  IngressClass: {},
  ControllerRevision: {
    data: {
      type: 'object',
      description: 'Data is the serialized representation of the state.',
      'x-kubernetes-preserve-unknown-fields': true,
    },
    revision: s('integer', 'Revision indicates the revision of the state represented by Data.', {
      format: 'int64',
    }),
  },
};
