// THE source of the PodSet API: the CRD's openAPIV3Schema, as a TypeScript value. crds/podset.yaml is
// generated from it (`node scripts/gen-crd.ts`) and the PodSet types are derived from it
// (types.ts), so the two cannot drift; tests check both.
import { MAX_NAME_LENGTH, MAX_REPLICAS, MIN_REPLICAS, NAME_LABEL, TEMPLATE_HASH_LABEL } from './api.ts';
import type { JSONSchemaProps } from './schema-types.ts';

/** DNS-1123 label: what container names must be. */
export const DNS1123_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
/** maxSurge / maxUnavailable as a string: a percent, without leading zeros (so "0%" is the only zero). */
export const INT_OR_PERCENT_PATTERN = '^(0|[1-9][0-9]*)%$';
export const ROLLING_UPDATE_BOTH_ZERO =
  'maxSurge and maxUnavailable may not both be 0: a rollout could never start';
export const RECREATE_WITH_ROLLING_UPDATE = 'rollingUpdate may not be set when type is Recreate';
/** A label value (may be empty). */
export const LABEL_VALUE_PATTERN = '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$';
export const RESERVED_NAME_LABEL =
  "podset.io/name is set by the operator to the PodSet's name on every pod (it finds its pods by it): a template may not set it";
export const RESERVED_TEMPLATE_HASH_LABEL =
  "podset.io/template-hash is set by the operator to the template's hash on every pod (a rollout tells old pods from new by it): a template may not set it";
export const PROGRESS_DEADLINE_NOT_AFTER_MIN_READY =
  'progressDeadlineSeconds must be greater than minReadySeconds: a pod could not become available before the deadline';

const stringMap = {
  type: 'object',
  additionalProperties: { type: 'string' },
} as const satisfies JSONSchemaProps;

// The operator stamps its own labels on every pod; a template's value for one would be overwritten
// without a word, so the API refuses it.
const templateLabels = {
  type: 'object',
  additionalProperties: { type: 'string', maxLength: 63, pattern: LABEL_VALUE_PATTERN },
  'x-kubernetes-validations': [
    { rule: `!('${NAME_LABEL}' in self)`, message: RESERVED_NAME_LABEL },
    { rule: `!('${TEMPLATE_HASH_LABEL}' in self)`, message: RESERVED_TEMPLATE_HASH_LABEL },
  ],
} as const satisfies JSONSchemaProps;

// The PodSet's own rules for a template. The CRD lays them over the full PodSpec of the pinned Kubernetes
// release (pod-template-schema.ts), which knows every other field; here the rest is only preserved, so the
// derived TypeScript types leave those fields open.
const container = {
  type: 'object',
  description: 'A container (core/v1 Container).',
  required: ['name', 'image'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 63, pattern: DNS1123_LABEL_PATTERN },
    image: { type: 'string', minLength: 1 },
  },
  'x-kubernetes-preserve-unknown-fields': true,
} as const satisfies JSONSchemaProps;

const defaultTemplate = {
  spec: {
    containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }],
  },
} as const;

const podTemplateSpec = {
  type: 'object',
  description: 'The pods to run (core/v1 PodTemplateSpec). Default: busybox running `sleep 3600`.',
  required: ['spec'],
  default: defaultTemplate,
  properties: {
    metadata: {
      type: 'object',
      properties: {
        labels: templateLabels,
        annotations: stringMap,
      },
    },
    spec: {
      type: 'object',
      description: 'A core/v1 PodSpec.',
      required: ['containers'],
      properties: {
        restartPolicy: {
          type: 'string',
          description:
            'Only Always (the default), as for ReplicaSets: a pod that may finish would be replaced for ever.',
          enum: ['Always'],
        },
        containers: {
          type: 'array',
          minItems: 1,
          items: container,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
        },
      },
      'x-kubernetes-preserve-unknown-fields': true,
    },
  },
} as const satisfies JSONSchemaProps;

const condition = {
  type: 'object',
  required: ['type', 'status'],
  properties: {
    type: { type: 'string', enum: ['Available', 'Progressing', 'ReplicaFailure'] },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    reason: { type: 'string' },
    message: { type: 'string' },
    lastTransitionTime: { type: 'string', format: 'date-time' },
    lastUpdateTime: {
      type: 'string',
      format: 'date-time',
      description:
        'Progressing only: when progress was last seen (the progress deadline counts from it), as in Deployments.',
    },
  },
} as const satisfies JSONSchemaProps;

/** An int or a percent of spec.replicas, as Deployments' maxSurge / maxUnavailable. */
const intOrPercent = (description: string) =>
  ({
    'x-kubernetes-int-or-string': true,
    description,
    default: '25%',
    // Each applies only to its own type: minimum to an int, pattern to a string.
    minimum: 0,
    pattern: INT_OR_PERCENT_PATTERN,
  }) as const satisfies JSONSchemaProps;

const rollingUpdate = {
  type: 'object',
  description: 'How far a rollout may go beyond and below spec.replicas (as in Deployments).',
  properties: {
    maxSurge: intOrPercent(
      'Active pods may exceed spec.replicas by this many during a rollout (a percent rounds up). Default 25%.',
    ),
    maxUnavailable: intOrPercent(
      'Available pods may fall below spec.replicas by this many during a rollout (a percent rounds down). Default 25%.',
    ),
  },
  'x-kubernetes-validations': [
    {
      rule:
        "!((type(self.maxSurge) == int ? self.maxSurge == 0 : self.maxSurge == '0%') && " +
        "(type(self.maxUnavailable) == int ? self.maxUnavailable == 0 : self.maxUnavailable == '0%'))",
      message: ROLLING_UPDATE_BOTH_ZERO,
    },
  ],
} as const satisfies JSONSchemaProps;

const strategy = {
  type: 'object',
  description: 'How pods of an old template are replaced by pods of the new one.',
  default: {},
  properties: {
    type: {
      type: 'string',
      description:
        'RollingUpdate (default): replace a few at a time within maxSurge / maxUnavailable. Recreate: delete every old pod before creating new ones.',
      enum: ['RollingUpdate', 'Recreate'],
      default: 'RollingUpdate',
    },
    rollingUpdate,
  },
  'x-kubernetes-validations': [
    { rule: "self.type != 'Recreate' || !has(self.rollingUpdate)", message: RECREATE_WITH_ROLLING_UPDATE },
  ],
} as const satisfies JSONSchemaProps;

const spec = {
  type: 'object',
  description: 'Keep `replicas` pods of `template` running.',
  default: {},
  'x-kubernetes-validations': [
    {
      // Deployments validate the same: with the deadline at or below minReadySeconds, no pod could ever
      // become available in time. (Both are defaulted first; has() keeps the rule total all the same.)
      rule:
        '!has(self.progressDeadlineSeconds) || ' +
        'self.progressDeadlineSeconds > (has(self.minReadySeconds) ? self.minReadySeconds : 0)',
      message: PROGRESS_DEADLINE_NOT_AFTER_MIN_READY,
    },
  ],
  properties: {
    replicas: {
      type: 'integer',
      format: 'int32',
      description: 'How many pods to keep running.',
      default: 1,
      minimum: MIN_REPLICAS,
      maximum: MAX_REPLICAS,
    },
    minReadySeconds: {
      type: 'integer',
      format: 'int32',
      description: 'A pod counts as available once it has been Ready for this long. Default 0.',
      default: 0,
      minimum: 0,
    },
    progressDeadlineSeconds: {
      type: 'integer',
      format: 'int32',
      description:
        'A rollout or scale-up that makes no progress for this long is reported as Progressing=False, reason ProgressDeadlineExceeded (it is not rolled back). Default 600.',
      default: 600,
      minimum: 1,
    },
    paused: {
      type: 'boolean',
      description:
        'Paused: a changed template is not rolled out (no revision is recorded for it) until this is false again; replicas still scale, with the template of the current revision (as a paused Deployment). Default false.',
      default: false,
    },
    revisionHistoryLimit: {
      type: 'integer',
      format: 'int32',
      description:
        'How many old revisions (ControllerRevisions) to keep for `kubectl podset rollout undo`, besides the current one. Default 10.',
      default: 10,
      minimum: 0,
    },
    strategy,
    template: podTemplateSpec,
  },
} as const satisfies JSONSchemaProps;

const status = {
  type: 'object',
  properties: {
    replicas: {
      type: 'integer',
      format: 'int32',
      minimum: 0,
      description: 'Active pods: not terminating, not Succeeded or Failed.',
    },
    readyReplicas: {
      type: 'integer',
      format: 'int32',
      minimum: 0,
      description: 'Active pods whose Ready condition is True.',
    },
    podNames: {
      type: 'array',
      description: 'Names of the active pods, sorted.',
      items: { type: 'string' },
      'x-kubernetes-list-type': 'atomic',
    },
    observedGeneration: {
      type: 'integer',
      format: 'int64',
      description: 'The metadata.generation this status was computed for.',
    },
    updatedReplicas: {
      type: 'integer',
      format: 'int32',
      minimum: 0,
      description: 'Active pods of the current template (labelled with templateHash).',
    },
    availableReplicas: {
      type: 'integer',
      format: 'int32',
      minimum: 0,
      description: 'Active pods that have been Ready for at least spec.minReadySeconds.',
    },
    templateHash: {
      type: 'string',
      description: 'Hash of the current template: the podset.io/template-hash label of its up-to-date pods.',
    },
    selector: {
      type: 'string',
      description: 'Label selector of the pods, for the scale subresource (HPA).',
    },
    conditions: {
      type: 'array',
      items: condition,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    },
  },
} as const satisfies JSONSchemaProps;

/** The openAPIV3Schema of podset.io/v1 PodSet. */
export const podSetSchema = {
  type: 'object',
  description: 'PodSet keeps N pods of a template running and reports how many are.',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: {
      // At the root only name and generateName may be restricted. The name is the value of the
      // podset.io/name label on the pods, hence at most 63 characters.
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: MAX_NAME_LENGTH },
      },
    },
    spec,
    status,
  },
} as const satisfies JSONSchemaProps;

/** The defaults, read from the schema so the planner defaults exactly as the API server does. */
export const DEFAULT_REPLICAS: number = podSetSchema.properties.spec.properties.replicas.default;
export const DEFAULT_TEMPLATE = podSetSchema.properties.spec.properties.template.default;
export const DEFAULT_MIN_READY_SECONDS: number =
  podSetSchema.properties.spec.properties.minReadySeconds.default;
export const DEFAULT_PROGRESS_DEADLINE_SECONDS: number =
  podSetSchema.properties.spec.properties.progressDeadlineSeconds.default;
export const DEFAULT_STRATEGY_TYPE = podSetSchema.properties.spec.properties.strategy.properties.type.default;
export const DEFAULT_MAX_SURGE: string = rollingUpdate.properties.maxSurge.default;
export const DEFAULT_MAX_UNAVAILABLE: string = rollingUpdate.properties.maxUnavailable.default;
