// What the API server fills in on the built-in workload kinds and PVCs (pkg/apis/{apps,batch,core}/v1
// defaults.go, the Job strategy's generated selector) and the status it stores on create: the zero
// value of each kind's status struct, as Go's encoder writes it (fields without omitempty appear as 0).
// Defaults apply on every write, as decoding does on a real server; the Job selector only on create.
import { defaultPodSpec, defaultPodTemplate, defaultPodUpdate } from './pod-defaults.ts';
import { isObject } from '../../apimachinery/json.ts';
import type { Json, JsonObject, KubeObject } from '../../apimachinery/types.ts';

const obj = (v: Json | undefined): JsonObject => (isObject(v) ? v : {});

const INITIAL_STATUS: Record<string, JsonObject> = {
  'deployments.apps': {},
  'replicasets.apps': { replicas: 0 },
  'statefulsets.apps': { replicas: 0, availableReplicas: 0 },
  'daemonsets.apps': {
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    desiredNumberScheduled: 0,
    numberReady: 0,
  },
  replicationcontrollers: { replicas: 0 },
  'jobs.batch': {},
  'cronjobs.batch': {},
  persistentvolumeclaims: { phase: 'Pending' },
  'poddisruptionbudgets.policy': {
    disruptionsAllowed: 0,
    currentHealthy: 0,
    desiredHealthy: 0,
    expectedPods: 0,
  },
  'ingresses.networking.k8s.io': { loadBalancer: {} },
};

/** The status a new object of this resource is stored with, or undefined for kinds left as they were. */
export function initialStatus(resource: string): JsonObject | undefined {
  const s = INITIAL_STATUS[resource];
  return s ? structuredClone(s) : undefined;
}

function withTemplate(spec: JsonObject): JsonObject {
  return spec.template === undefined ? spec : { ...spec, template: defaultPodTemplate(spec.template) };
}

function deploymentSpec(input: JsonObject): JsonObject {
  const spec = withTemplate(input);
  spec.replicas ??= 1;
  const strategy = { ...obj(spec.strategy) };
  strategy.type ??= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    strategy.rollingUpdate = { maxUnavailable: '25%', maxSurge: '25%', ...obj(strategy.rollingUpdate) };
  }
  spec.strategy = strategy;
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  return spec;
}

function statefulSetSpec(input: JsonObject): JsonObject {
  const spec = withTemplate(input);
  spec.podManagementPolicy ??= 'OrderedReady';
  const strategy = { ...obj(spec.updateStrategy) };
  if (strategy.type === undefined) {
    strategy.type = 'RollingUpdate';
    strategy.rollingUpdate ??= {};
  }
  if (strategy.type === 'RollingUpdate' && isObject(strategy.rollingUpdate)) {
    strategy.rollingUpdate = { partition: 0, ...strategy.rollingUpdate };
  }
  spec.updateStrategy = strategy;
  spec.persistentVolumeClaimRetentionPolicy = {
    whenDeleted: 'Retain',
    whenScaled: 'Retain',
    ...obj(spec.persistentVolumeClaimRetentionPolicy),
  };
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  if (Array.isArray(spec.volumeClaimTemplates)) {
    spec.volumeClaimTemplates = spec.volumeClaimTemplates.map((c) =>
      isObject(c)
        ? {
            ...c,
            // The apps/v1 conversion sets these on every claim template, whatever was sent (kubernetes#87583).
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: { creationTimestamp: null, ...obj(c.metadata) },
            spec: pvcSpec(obj(c.spec)),
            status: { phase: 'Pending', ...obj(c.status) },
          }
        : c,
    );
  }
  return spec;
}

function daemonSetSpec(input: JsonObject): JsonObject {
  const spec = withTemplate(input);
  const strategy = { ...obj(spec.updateStrategy) };
  strategy.type ??= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    strategy.rollingUpdate = { maxUnavailable: 1, maxSurge: 0, ...obj(strategy.rollingUpdate) };
  }
  spec.updateStrategy = strategy;
  spec.revisionHistoryLimit ??= 10;
  return spec;
}

function jobSpec(input: JsonObject): JsonObject {
  const spec = withTemplate(input);
  if (spec.completions === undefined && spec.parallelism === undefined) spec.completions = 1;
  spec.parallelism ??= 1;
  // A per-index backoff limit leaves the global one unbounded.
  spec.backoffLimit ??= spec.backoffLimitPerIndex === undefined ? 6 : 2147483647;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy === undefined ? 'TerminatingOrFailed' : 'Failed';
  return spec;
}

function cronJobSpec(input: JsonObject): JsonObject {
  const spec: JsonObject = { ...input };
  spec.concurrencyPolicy ??= 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  if (isObject(spec.jobTemplate)) {
    const jt = spec.jobTemplate;
    spec.jobTemplate = {
      ...jt,
      metadata: { creationTimestamp: null, ...obj(jt.metadata) },
      spec: withTemplate(obj(jt.spec)),
    };
  }
  return spec;
}

function pvcSpec(input: JsonObject): JsonObject {
  return { ...input, volumeMode: input.volumeMode ?? 'Filesystem' };
}

/** The labels a ReplicationController or Job copies from its template when it has none of its own. */
function labelsFromTemplate(o: KubeObject, spec: JsonObject): KubeObject {
  const labels = obj(obj(spec.template).metadata).labels;
  if (!isObject(labels) || Object.keys(o.metadata.labels ?? {}).length > 0) return o;
  return { ...o, metadata: { ...o.metadata, labels: { ...(labels as Record<string, string>) } } };
}

/**
 * The built-in defaults of `resource` applied to `o` (unchanged for kinds without any); `old` is the
 * stored object when `o` updates it.
 */
export function defaultBuiltin(resource: string, o: KubeObject, old?: KubeObject): KubeObject {
  const spec = obj(o.spec as Json | undefined);
  switch (resource) {
    case 'pods':
      if (o.spec === undefined) return o;
      return old ? defaultPodUpdate(o, old) : { ...o, spec: defaultPodSpec(o.spec as Json | undefined) };
    case 'deployments.apps':
      return { ...o, spec: deploymentSpec(spec) };
    case 'statefulsets.apps':
      return { ...o, spec: statefulSetSpec(spec) };
    case 'daemonsets.apps':
      return { ...o, spec: daemonSetSpec(spec) };
    case 'replicasets.apps':
      return { ...o, spec: { ...withTemplate(spec), replicas: spec.replicas ?? 1 } };
    case 'replicationcontrollers': {
      const next = withTemplate(spec);
      const labels = obj(obj(next.template).metadata).labels;
      if (isObject(labels) && Object.keys(obj(next.selector)).length === 0) next.selector = { ...labels };
      next.replicas ??= 1;
      return labelsFromTemplate({ ...o, spec: next }, next);
    }
    case 'jobs.batch': {
      const next = jobSpec(spec);
      return labelsFromTemplate({ ...o, spec: next }, next);
    }
    case 'cronjobs.batch':
      return { ...o, spec: cronJobSpec(spec) };
    case 'persistentvolumeclaims':
      return { ...o, spec: pvcSpec(spec) };
    default:
      return o;
  }
}

/**
 * A new Job's generated selector (unless `manualSelector`): the legacy and the prefixed job-name and
 * controller-uid labels added to the template, and a selector on the prefixed controller-uid. The Job
 * takes its labels from the template after that (a real server re-applies defaults when it reads).
 */
export function generateJobSelector(o: KubeObject, uid: string): KubeObject {
  const spec = obj(o.spec as Json | undefined);
  if (spec.manualSelector === true) return o;
  const template = obj(spec.template);
  const meta = obj(template.metadata);
  const name = o.metadata.name ?? '';
  const labels: JsonObject = { ...obj(meta.labels) };
  labels['batch.kubernetes.io/controller-uid'] ??= uid;
  labels['batch.kubernetes.io/job-name'] ??= name;
  labels['controller-uid'] ??= uid;
  labels['job-name'] ??= name;
  const selector = obj(spec.selector);
  const matchLabels: JsonObject = { ...obj(selector.matchLabels) };
  matchLabels['batch.kubernetes.io/controller-uid'] ??= uid;
  const next: JsonObject = {
    ...spec,
    selector: { ...selector, matchLabels },
    template: { ...template, metadata: { ...meta, labels } },
  };
  return labelsFromTemplate({ ...o, spec: next }, next);
}
