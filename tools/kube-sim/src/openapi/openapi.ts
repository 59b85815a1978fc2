// OpenAPI documents, as kubectl 1.32 reads them:
// - `/openapi/v3` (index) and `/openapi/v3/<api/v1 | apis/g/v>`: kubectl apply's field-validation check
//   (cli-runtime's QueryParamVerifierV3) looks, in the group-version document, for the PATCH operation tagged with
//   the object's x-kubernetes-group-version-kind and a `fieldValidation` query parameter; when found, kubectl
//   leaves validation to the server instead of downloading /openapi/v2 as protobuf. `kubectl explain` finds the
//   schema in components.schemas by its x-kubernetes-group-version-kind.
// - CRD kinds carry their openAPIV3Schema (metadata as a $ref to ObjectMeta), as kube-apiserver publishes them.
// - Built-in kinds carry a short, honest schema: the top-level fields, each open below (we don't describe all of
//   Kubernetes). Their PATCH operations deliberately do not list application/strategic-merge-patch+json: with it,
//   kubectl apply would compute strategic merge patches from these schemas (which have no merge keys) and warn;
//   without it, kubectl computes them from its compiled-in types, which is what it does against a real cluster.
//   The server still accepts strategic merge patches.
// - `/openapi/v2`: a swagger 2.0 JSON rendering of the same, for tools that want it.
import { createHash } from 'node:crypto';
import { builtinTypes } from '../registry/resources.ts';
import type { Json, JsonObject, JSONSchemaProps, ResourceType } from '../apimachinery/types.ts';

const KUBE_VERSION = 'v1.32.0';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const REF_V3 = '#/components/schemas/';
const BUILTIN_KINDS = new Set(builtinTypes().map((t) => `${t.group}/${t.kind}`));

/** True for kinds the server has built in; the rest come from CRDs. */
export function isBuiltinType(rt: { group: string; kind: string }): boolean {
  return BUILTIN_KINDS.has(`${rt.group}/${rt.kind}`);
}

/** `api/v1` for the core group, `apis/<group>/<version>` otherwise. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** The components.schemas name of a kind, as kube-apiserver names them. */
export function definitionName(rt: { group: string; version: string; kind: string }): string {
  if (isBuiltinType(rt)) {
    if (rt.group === 'apiextensions.k8s.io') {
      return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${rt.version}.${rt.kind}`;
    }
    const pkg = rt.group === '' ? 'core' : (rt.group.split('.')[0] ?? rt.group);
    return `io.k8s.api.${pkg}.${rt.version}.${rt.kind}`;
  }
  const reversed = rt.group.split('.').reverse().join('.');
  return `${reversed}.${rt.version}.${rt.kind}`;
}

function gvk(group: string, version: string, kind: string): JsonObject {
  return { group, version, kind };
}

// ---------------------------------------------------------------------------------------------
// Shared meta/v1 schemas (the parts kubectl explain shows and our objects carry)

const s = (type: string, description: string, extra: JsonObject = {}): JsonObject => ({
  type,
  description,
  ...extra,
});
const ref = (name: string, description?: string): JsonObject =>
  description === undefined ? { $ref: REF_V3 + name } : { allOf: [{ $ref: REF_V3 + name }], description };
const stringMap = (description: string): JsonObject => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string', default: '' },
});

const API_VERSION_DESC =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DESC =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const METADATA_DESC =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

function metaSchemas(): Record<string, JsonObject> {
  return {
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
        uid: s(
          'string',
          'UID is the unique in time and space value for this object. Populated by the system.',
        ),
        resourceVersion: s(
          'string',
          'An opaque value that represents the internal version of this object, used for optimistic concurrency and watches. Populated by the system.',
        ),
        generation: s(
          'integer',
          'A sequence number representing a specific generation of the desired state.',
          {
            format: 'int64',
          },
        ),
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
        fieldsType: s(
          'string',
          'FieldsType is the discriminator for the different fields format and version.',
        ),
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
        remainingItemCount: s(
          'integer',
          'remainingItemCount is the number of subsequent items in the list.',
          {
            format: 'int64',
          },
        ),
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
        reason: s(
          'string',
          'A machine-readable description of why this operation is in the "Failure" status.',
        ),
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
}

const SCALE = 'io.k8s.api.autoscaling.v1.Scale';
function scaleSchema(): JsonObject {
  return {
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
          replicas: s(
            'integer',
            'replicas is the actual number of observed instances of the scaled object.',
            {
              format: 'int32',
              default: 0,
            },
          ),
          selector: s(
            'string',
            'selector is the label query over pods that should match the replicas count.',
          ),
        },
      },
    },
    'x-kubernetes-group-version-kind': [gvk('autoscaling', 'v1', 'Scale')],
  };
}

// ---------------------------------------------------------------------------------------------
// Kind schemas

/** Top-level fields of the built-in kinds beyond apiVersion/kind/metadata (default: spec and status). */
const BUILTIN_FIELDS: Record<string, Record<string, JsonObject>> = {
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

function openObject(description: string): JsonObject {
  return { type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true };
}

function builtinKindSchema(rt: ResourceType): JsonObject {
  const props: JsonObject = {
    apiVersion: s('string', API_VERSION_DESC),
    kind: s('string', KIND_DESC),
    metadata: { ...ref(`${META}.ObjectMeta`, METADATA_DESC), default: {} },
  };
  const special = BUILTIN_FIELDS[rt.kind];
  const isEvent = rt.kind === 'Event';
  if (special && !isEvent) Object.assign(props, special);
  else if (!isEvent) {
    props.spec = openObject(
      `Spec defines the desired state of the ${rt.kind}. (kube-sim describes only the top level.)`,
    );
    if (rt.subresources.status || rt.kind === 'Namespace') {
      props.status = openObject(
        `Status is the most recently observed state of the ${rt.kind}. Populated by the system.`,
      );
    }
  }
  const schema: JsonObject = {
    type: 'object',
    description: `${rt.kind} (${rt.group === '' ? 'core' : rt.group}/${rt.version}). kube-sim publishes the top-level fields; the server keeps every field it is given.`,
    properties: props,
    'x-kubernetes-group-version-kind': [gvk(rt.group, rt.version, rt.kind)],
  };
  // Kinds whose top-level fields we don't all list (events have many) stay open.
  if (isEvent || !special) schema['x-kubernetes-preserve-unknown-fields'] = true;
  return schema;
}

function customKindSchema(rt: ResourceType): JsonObject {
  const base = structuredClone(
    (rt.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }) as JSONSchemaProps,
  ) as unknown as JsonObject;
  const props: JsonObject = { ...((base.properties as JsonObject | undefined) ?? {}) };
  props.apiVersion = {
    ...s('string', API_VERSION_DESC),
    ...((props.apiVersion as JsonObject | undefined) ?? {}),
  };
  props.kind = { ...s('string', KIND_DESC), ...((props.kind as JsonObject | undefined) ?? {}) };
  props.metadata = ref(`${META}.ObjectMeta`, METADATA_DESC);
  return {
    ...base,
    type: 'object',
    properties: props,
    'x-kubernetes-group-version-kind': [gvk(rt.group, rt.version, rt.kind)],
  };
}

function listSchema(rt: ResourceType, itemName: string): JsonObject {
  return {
    type: 'object',
    description: `${rt.listKind} is a list of ${rt.kind}`,
    required: ['items'],
    properties: {
      apiVersion: s('string', API_VERSION_DESC),
      kind: s('string', KIND_DESC),
      items: {
        type: 'array',
        description: `List of ${rt.plural}.`,
        items: { $ref: REF_V3 + itemName },
      },
      metadata: ref(`${META}.ListMeta`, 'Standard list metadata.'),
    },
    'x-kubernetes-group-version-kind': [gvk(rt.group, rt.version, rt.listKind)],
  };
}

// ---------------------------------------------------------------------------------------------
// Paths

function q(name: string, description: string, type = 'string', extra: JsonObject = {}): JsonObject {
  return { name, in: 'query', description, schema: { type, uniqueItems: true, ...extra } };
}
const P = {
  pretty: q('pretty', "If 'true', then the output is pretty printed."),
  dryRun: q(
    'dryRun',
    'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed',
  ),
  fieldManager: q(
    'fieldManager',
    'fieldManager is a name associated with the actor or entity that is making these changes.',
  ),
  fieldValidation: q(
    'fieldValidation',
    'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict (the default).',
  ),
  force: q(
    'force',
    'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people.',
    'boolean',
  ),
  allowWatchBookmarks: q(
    'allowWatchBookmarks',
    'allowWatchBookmarks requests watch events with type "BOOKMARK".',
    'boolean',
  ),
  continue: q('continue', 'The continue option should be set when retrieving more results from the server.'),
  fieldSelector: q('fieldSelector', 'A selector to restrict the list of returned objects by their fields.'),
  labelSelector: q('labelSelector', 'A selector to restrict the list of returned objects by their labels.'),
  limit: q('limit', 'limit is a maximum number of responses to return for a list call.', 'integer'),
  resourceVersion: q(
    'resourceVersion',
    'resourceVersion sets a constraint on what resource versions a request may be served from.',
  ),
  resourceVersionMatch: q(
    'resourceVersionMatch',
    'resourceVersionMatch determines how resourceVersion is applied to list calls.',
  ),
  sendInitialEvents: q(
    'sendInitialEvents',
    'sendInitialEvents=true may be set together with watch=true.',
    'boolean',
  ),
  timeoutSeconds: q('timeoutSeconds', 'Timeout for the list/watch call.', 'integer'),
  watch: q(
    'watch',
    'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.',
    'boolean',
  ),
  gracePeriodSeconds: q(
    'gracePeriodSeconds',
    'The duration in seconds before the object should be deleted.',
    'integer',
  ),
  orphanDependents: q('orphanDependents', 'Deprecated: please use the PropagationPolicy.', 'boolean'),
  propagationPolicy: q(
    'propagationPolicy',
    "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.",
  ),
  name: (kind: string): JsonObject => ({
    name: 'name',
    in: 'path',
    description: `name of the ${kind}`,
    required: true,
    schema: { type: 'string', uniqueItems: true },
  }),
  namespace: {
    name: 'namespace',
    in: 'path',
    description: 'object name and auth scope, such as for teams and projects',
    required: true,
    schema: { type: 'string', uniqueItems: true },
  },
};
const LIST_PARAMS = [
  P.allowWatchBookmarks,
  P.continue,
  P.fieldSelector,
  P.labelSelector,
  P.limit,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
  P.watch,
];
const WRITE_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation];
const DELETE_PARAMS = [P.dryRun, P.gracePeriodSeconds, P.orphanDependents, P.propagationPolicy];

function content(schemaName: string, types = ['application/json', 'application/yaml']): JsonObject {
  const out: JsonObject = {};
  for (const t of types) out[t] = { schema: { $ref: REF_V3 + schemaName } };
  return out;
}
function ok(schemaName: string, code = '200', description = 'OK'): JsonObject {
  return { [code]: { description, content: content(schemaName) } };
}
const UNAUTHORIZED = { '401': { description: 'Unauthorized' } };

function camel(s: string): string {
  return s.replace(/[-.](\w)/g, (_m, c: string) => c.toUpperCase()).replace(/^\w/, (c) => c.toUpperCase());
}

interface OpContext {
  tag: string;
  idSuffix: string; // e.g. CoreV1NamespacedPod
  gvk: JsonObject;
  kindName: string;
  listName: string;
}

function op(
  ctx: OpContext,
  action: string,
  verbWord: string,
  description: string,
  parameters: JsonObject[],
  responses: JsonObject,
  extra: JsonObject = {},
): JsonObject {
  return {
    tags: [ctx.tag],
    description,
    operationId: `${verbWord}${ctx.idSuffix}`,
    ...(parameters.length ? { parameters } : {}),
    ...extra,
    responses: { ...responses, ...UNAUTHORIZED },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': ctx.gvk,
  };
}

/**
 * Never application/strategic-merge-patch+json, for built-ins either: see the header comment. No
 * application/apply-patch+yaml: the server does not do server-side apply.
 */
function patchBody(): JsonObject {
  const types = ['application/json-patch+json', 'application/merge-patch+json'];
  const c: JsonObject = {};
  for (const t of types) c[t] = { schema: { $ref: `${REF_V3}${META}.Patch` } };
  return { content: c, required: true };
}

function addResourcePaths(
  paths: JsonObject,
  rt: ResourceType,
  prefix: string,
  names: { kind: string; list: string },
): void {
  const verbs = new Set(rt.verbs);
  const groupPart = rt.group === '' ? 'Core' : camel(rt.group);
  const tag = `${rt.group === '' ? 'core' : camel(rt.group).replace(/^\w/, (c) => c.toLowerCase())}_${rt.version}`;
  const scope = rt.namespaced ? 'Namespaced' : '';
  const base: OpContext = {
    tag,
    idSuffix: `${groupPart}${camel(rt.version)}${scope}${rt.kind}`,
    gvk: gvk(rt.group, rt.version, rt.kind),
    kindName: names.kind,
    listName: names.list,
  };
  const nsPart = rt.namespaced ? '/namespaces/{namespace}' : '';
  const collection = `${prefix}${nsPart}/${rt.plural}`;
  const item = `${collection}/{name}`;
  const commonParams = rt.namespaced ? [P.namespace, P.pretty] : [P.pretty];
  const itemParams = [P.name(rt.kind), ...commonParams];
  const body = (name: string): JsonObject => ({
    requestBody: { content: content(name, ['*/*']), required: true },
  });
  const deleteBody: JsonObject = { requestBody: { content: content(`${META}.DeleteOptions`, ['*/*']) } };

  const col: JsonObject = { parameters: commonParams };
  if (verbs.has('list')) {
    col.get = op(
      base,
      'list',
      'list',
      `list or watch objects of kind ${rt.kind}`,
      LIST_PARAMS,
      ok(names.list),
    );
  }
  if (verbs.has('create')) {
    col.post = op(
      base,
      'post',
      'create',
      `create a ${rt.kind}`,
      WRITE_PARAMS,
      { ...ok(names.kind), ...ok(names.kind, '201', 'Created'), ...ok(names.kind, '202', 'Accepted') },
      body(names.kind),
    );
  }
  if (verbs.has('deletecollection')) {
    col.delete = op(
      base,
      'deletecollection',
      'deletecollection',
      `delete collection of ${rt.kind}`,
      [
        P.continue,
        P.dryRun,
        P.fieldSelector,
        P.gracePeriodSeconds,
        P.labelSelector,
        P.limit,
        P.orphanDependents,
        P.propagationPolicy,
        P.resourceVersion,
        P.resourceVersionMatch,
        P.sendInitialEvents,
        P.timeoutSeconds,
      ],
      ok(`${META}.Status`),
      deleteBody,
    );
  }
  if (Object.keys(col).length > 1) paths[`/${collection}`] = col;

  if (rt.namespaced && verbs.has('list')) {
    const allCtx = { ...base, idSuffix: `${groupPart}${camel(rt.version)}${rt.kind}ForAllNamespaces` };
    paths[`/${prefix}/${rt.plural}`] = {
      parameters: [P.pretty],
      get: op(
        allCtx,
        'list',
        'list',
        `list or watch objects of kind ${rt.kind}`,
        LIST_PARAMS,
        ok(names.list),
      ),
    };
  }

  const it: JsonObject = { parameters: itemParams };
  if (verbs.has('get')) it.get = op(base, 'get', 'read', `read the specified ${rt.kind}`, [], ok(names.kind));
  if (verbs.has('update')) {
    it.put = op(
      base,
      'put',
      'replace',
      `replace the specified ${rt.kind}`,
      WRITE_PARAMS,
      { ...ok(names.kind), ...ok(names.kind, '201', 'Created') },
      body(names.kind),
    );
  }
  if (verbs.has('patch')) {
    it.patch = op(
      base,
      'patch',
      'patch',
      `partially update the specified ${rt.kind}`,
      [...WRITE_PARAMS, P.force],
      { ...ok(names.kind), ...ok(names.kind, '201', 'Created') },
      { requestBody: patchBody() },
    );
  }
  if (verbs.has('delete')) {
    it.delete = op(
      base,
      'delete',
      'delete',
      `delete a ${rt.kind}`,
      DELETE_PARAMS,
      { ...ok(`${META}.Status`), ...ok(`${META}.Status`, '202', 'Accepted') },
      deleteBody,
    );
  }
  if (Object.keys(it).length > 1) paths[`/${item}`] = it;

  const sub = (suffix: string, ctx: OpContext, schemaName: string, what: string) => {
    const pi: JsonObject = { parameters: itemParams };
    pi.get = op(ctx, 'get', 'read', `read ${what} of the specified ${rt.kind}`, [], ok(schemaName));
    pi.put = op(
      ctx,
      'put',
      'replace',
      `replace ${what} of the specified ${rt.kind}`,
      WRITE_PARAMS,
      { ...ok(schemaName), ...ok(schemaName, '201', 'Created') },
      body(schemaName),
    );
    pi.patch = op(
      ctx,
      'patch',
      'patch',
      `partially update ${what} of the specified ${rt.kind}`,
      [...WRITE_PARAMS, P.force],
      { ...ok(schemaName), ...ok(schemaName, '201', 'Created') },
      { requestBody: patchBody() },
    );
    paths[`/${item}/${suffix}`] = pi;
  };
  if (rt.subresources.status)
    sub('status', { ...base, idSuffix: `${base.idSuffix}Status` }, names.kind, 'status');
  if (rt.subresources.scale) {
    sub(
      'scale',
      { ...base, idSuffix: `${base.idSuffix}Scale`, gvk: gvk('autoscaling', 'v1', 'Scale') },
      SCALE,
      'scale',
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Documents

function typesOf(types: ResourceType[], group: string, version: string): ResourceType[] {
  return types
    .filter((t) => t.group === group && t.version === version)
    .sort((a, b) => (a.plural < b.plural ? -1 : a.plural > b.plural ? 1 : 0));
}

function buildGroupVersion(types: ResourceType[], group: string, version: string): JsonObject | undefined {
  const rts = typesOf(types, group, version);
  if (rts.length === 0) return undefined;
  const prefix = groupVersionPath(group, version);
  const paths: JsonObject = {};
  const schemas: Record<string, Json> = { ...metaSchemas() };
  for (const rt of rts) {
    const kindName = definitionName(rt);
    const listName = definitionName({ ...rt, kind: rt.listKind });
    schemas[kindName] = isBuiltinType(rt) ? builtinKindSchema(rt) : customKindSchema(rt);
    schemas[listName] = listSchema(rt, kindName);
    if (rt.subresources.scale) schemas[SCALE] = scaleSchema();
    addResourcePaths(paths, rt, prefix, { kind: kindName, list: listName });
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBE_VERSION },
    paths,
    components: {
      schemas: schemas as JsonObject,
      securitySchemes: BEARER_TOKEN,
    },
    security: [{ BearerToken: [] }],
  };
}

/** The API server's one security scheme, in both OpenAPI v2 and v3 documents. */
const BEARER_TOKEN = {
  BearerToken: {
    type: 'apiKey',
    description: 'Bearer Token authentication',
    name: 'authorization',
    in: 'header',
  },
} as const;

function groupVersions(types: ResourceType[]): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const t of types)
    seen.set(groupVersionPath(t.group, t.version), { group: t.group, version: t.version });
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, gv]) => gv);
}

/** Hex SHA-512 of a document, as kube-apiserver puts it in `serverRelativeURL` (`?hash=`) and the ETag. */
export function documentHash(doc: JsonObject): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
}

// Documents are cached per types array: the registry hands out the same array until a type changes, and
// kubectl asks for the index several times per command. Callers must not modify the returned documents.
const docCache = new WeakMap<ResourceType[], Map<string, { doc: JsonObject; hash: string } | null>>();

function cachedGroupVersion(
  types: ResourceType[],
  group: string,
  version: string,
): { doc: JsonObject; hash: string } | undefined {
  let byPath = docCache.get(types);
  if (!byPath) docCache.set(types, (byPath = new Map()));
  const key = groupVersionPath(group, version);
  let entry = byPath.get(key);
  if (entry === undefined) {
    const doc = buildGroupVersion(types, group, version);
    entry = doc ? { doc, hash: documentHash(doc) } : null;
    byPath.set(key, entry);
  }
  return entry ?? undefined;
}

/** GET /openapi/v3: `{ paths: { "api/v1": { serverRelativeURL }, "apis/podset.io/v1": {...} } }`. */
export function openapiV3Index(types: ResourceType[]): JsonObject {
  const paths: JsonObject = {};
  for (const { group, version } of groupVersions(types)) {
    const entry = cachedGroupVersion(types, group, version);
    if (!entry) continue;
    const p = groupVersionPath(group, version);
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${entry.hash}` };
  }
  return { paths };
}

/**
 * The document for `api/v1` / `apis/<g>/<v>` and its hash (as in the index's `?hash=`; usable as an ETag),
 * or undefined when that group-version is not served.
 */
export function openapiV3Document(
  types: ResourceType[],
  groupVersionPath: string,
): { doc: JsonObject; hash: string } | undefined {
  const p = groupVersionPath
    .replace(/^\/+/, '')
    .replace(/^openapi\/v3\//, '')
    .replace(/\?.*$/, '')
    .replace(/\/+$/, '');
  const parts = p.split('/');
  if (parts[0] === 'api' && parts.length === 2) return cachedGroupVersion(types, '', parts[1] ?? '');
  if (parts[0] === 'apis' && parts.length === 3)
    return cachedGroupVersion(types, parts[1] ?? '', parts[2] ?? '');
  return undefined;
}

/** GET /openapi/v3/<groupVersionPath> (`api/v1`, `apis/podset.io/v1`); undefined when not served. */
export function openapiV3GroupVersion(
  types: ResourceType[],
  groupVersionPath: string,
): JsonObject | undefined {
  return openapiV3Document(types, groupVersionPath)?.doc;
}

/** Rewrites v3 into v2 shapes: `#/components/schemas/` → `#/definitions/`. */
function toV2Refs(v: Json): Json {
  if (Array.isArray(v)) return v.map(toV2Refs);
  if (v !== null && typeof v === 'object') {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') out[k] = x.replace(REF_V3, '#/definitions/');
      else out[k] = toV2Refs(x);
    }
    return out;
  }
  return v;
}

function v2Operation(o: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === 'requestBody' || k === 'responses' || k === 'parameters') continue;
    out[k] = v;
  }
  const params: JsonObject[] = [];
  for (const p of (o.parameters as JsonObject[] | undefined) ?? []) {
    const schema = (p.schema as JsonObject | undefined) ?? {};
    params.push({
      name: p.name ?? '',
      in: p.in ?? 'query',
      description: p.description ?? '',
      type: schema.type ?? 'string',
      uniqueItems: true,
      ...(p.required ? { required: true } : {}),
    });
  }
  const body = o.requestBody as JsonObject | undefined;
  if (body) {
    const c = (body.content as JsonObject | undefined) ?? {};
    const first = Object.values(c)[0] as JsonObject | undefined;
    params.push({
      name: 'body',
      in: 'body',
      required: body.required === true,
      schema: toV2Refs(first?.schema ?? {}),
    });
    out.consumes = Object.keys(c);
  }
  if (params.length) out.parameters = params;
  const responses: JsonObject = {};
  for (const [code, r] of Object.entries((o.responses as JsonObject | undefined) ?? {})) {
    const rr = r as JsonObject;
    const c = (rr.content as JsonObject | undefined) ?? {};
    const first = Object.values(c)[0] as JsonObject | undefined;
    responses[code] = {
      description: rr.description ?? '',
      ...(first?.schema ? { schema: toV2Refs(first.schema) } : {}),
    };
  }
  out.responses = responses;
  out.produces = ['application/json', 'application/yaml'];
  out.schemes = ['https'];
  return out;
}

/** GET /openapi/v2 as JSON (swagger 2.0). */
export function openapiV2(types: ResourceType[]): JsonObject {
  const paths: JsonObject = {};
  const definitions: JsonObject = {};
  for (const { group, version } of groupVersions(types)) {
    const doc = cachedGroupVersion(types, group, version)?.doc;
    if (!doc) continue;
    const schemas = ((doc.components as JsonObject).schemas as JsonObject) ?? {};
    for (const [name, sch] of Object.entries(schemas)) definitions[name] = toV2Refs(sch);
    for (const [path, item] of Object.entries(doc.paths as JsonObject)) {
      const pi: JsonObject = {};
      for (const [k, v] of Object.entries(item as JsonObject)) {
        if (k === 'parameters') {
          pi.parameters = (v as JsonObject[]).map((p) => {
            const schema = (p.schema as JsonObject | undefined) ?? {};
            return {
              name: p.name ?? '',
              in: p.in ?? 'query',
              description: p.description ?? '',
              type: schema.type ?? 'string',
              uniqueItems: true,
              ...(p.required ? { required: true } : {}),
            };
          });
        } else pi[k] = v2Operation(v as JsonObject);
      }
      paths[path] = pi;
    }
  }
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: KUBE_VERSION },
    paths,
    definitions,
    securityDefinitions: BEARER_TOKEN,
    security: [{ BearerToken: [] }],
  };
}

/**
 * kubectl asks /openapi/v2 in gnostic's protobuf form (and only that) when OpenAPI v3 lacks a kind. It asks
 * with the deprecated `@` spelling; the API server answers with the `.` one (a valid media type).
 */
export const OPENAPI_V2_PROTOBUF_ASKED =
  /application\/com\.github\.proto-openapi\.spec\.v2[@.]v1\.0\+protobuf/;
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/**
 * The protobuf /openapi/v2 document kube-sim serves: an openapi_v2.Document with `swagger: "2.0"` (field
 * 1) and `info` {title, version} (field 2) and no definitions. kubectl reads OpenAPI v3 for every kind
 * kube-sim serves; it falls back to v2 only for a kind no server knows (a CRD not installed), and with
 * no schema there it goes on to the API's own answer: "no matches for kind … ensure CRDs are installed
 * first", as against a cluster.
 */
export const OPENAPI_V2_PROTOBUF_DOCUMENT: Buffer = (() => {
  const field = (n: number, bytes: Buffer): Buffer =>
    Buffer.concat([Buffer.from([(n << 3) | 2, bytes.length]), bytes]);
  const info = Buffer.concat([field(1, Buffer.from('Kubernetes')), field(2, Buffer.from(KUBE_VERSION))]);
  return Buffer.concat([field(1, Buffer.from('2.0')), field(2, info)]);
})();
