// The API server's defaulting of a pod spec (pkg/apis/core/v1 SetDefaults_PodSpec, _Container, _Probe,
// _Volume and friends), shared by pods and by the pod templates of workloads, plus what only a pod gets
// on create: admission's service account, priority and default tolerations, and its first status.
import { isObject } from '../../apimachinery/json.ts';
import type { Json, JsonObject, KubeObject } from '../../apimachinery/types.ts';

/** Always for `:latest` or no tag (a digest counts as a tag), else IfNotPresent. */
function pullPolicy(image: Json | undefined): string {
  const ref = typeof image === 'string' ? image : '';
  const tag = ref.includes('@') ? 'digest' : (/:([^/:]+)$/.exec(ref)?.[1] ?? 'latest');
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(p: Json | undefined): Json | undefined {
  if (!isObject(p)) return p;
  const out: JsonObject = {
    ...p,
    timeoutSeconds: p.timeoutSeconds ?? 1,
    periodSeconds: p.periodSeconds ?? 10,
    successThreshold: p.successThreshold ?? 1,
    failureThreshold: p.failureThreshold ?? 3,
  };
  if (isObject(p.httpGet)) out.httpGet = { path: '/', scheme: 'HTTP', ...p.httpGet };
  return out;
}

function defaultEnv(env: Json | undefined): Json | undefined {
  if (!Array.isArray(env)) return env;
  return env.map((e) => {
    if (!isObject(e) || !isObject(e.valueFrom) || !isObject(e.valueFrom.fieldRef)) return e;
    return { ...e, valueFrom: { ...e.valueFrom, fieldRef: { apiVersion: 'v1', ...e.valueFrom.fieldRef } } };
  });
}

function defaultContainer(c: Json): Json {
  if (!isObject(c)) return c;
  const out: JsonObject = {
    ...c,
    imagePullPolicy: c.imagePullPolicy ?? pullPolicy(c.image),
    terminationMessagePath: c.terminationMessagePath ?? '/dev/termination-log',
    terminationMessagePolicy: c.terminationMessagePolicy ?? 'File',
    resources: c.resources ?? {},
  };
  if (Array.isArray(c.ports))
    out.ports = c.ports.map((p) => (isObject(p) ? { ...p, protocol: p.protocol ?? 'TCP' } : p));
  if (c.env !== undefined) out.env = defaultEnv(c.env) ?? null;
  for (const k of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const)
    if (c[k] !== undefined) out[k] = defaultProbe(c[k]) ?? null;
  return out;
}

const MODE_420_SOURCES = ['secret', 'configMap', 'projected', 'downwardAPI'] as const;
const VOLUME_SOURCES = new Set([
  ...MODE_420_SOURCES,
  'emptyDir',
  'hostPath',
  'persistentVolumeClaim',
  'nfs',
  'csi',
  'ephemeral',
  'iscsi',
  'gitRepo',
  'rbd',
  'cephfs',
  'fc',
  'azureDisk',
  'azureFile',
  'awsElasticBlockStore',
  'gcePersistentDisk',
  'cinder',
  'flexVolume',
  'flocker',
  'vsphereVolume',
  'quobyte',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'storageos',
  'glusterfs',
  'image',
]);

/** A volume with no source is an emptyDir; file-projecting sources get mode 0644 (420). */
function defaultVolume(v: Json): Json {
  if (!isObject(v)) return v;
  const out: JsonObject = { ...v };
  if (!Object.keys(v).some((k) => VOLUME_SOURCES.has(k))) out.emptyDir = {};
  for (const k of MODE_420_SOURCES) {
    const src = v[k];
    if (isObject(src)) out[k] = { ...src, defaultMode: src.defaultMode ?? 420 };
  }
  if (isObject(v.hostPath)) out.hostPath = { ...v.hostPath, type: v.hostPath.type ?? '' };
  return out;
}

/** SetDefaults_PodSpec and everything under it: what a pod template stores. */
export function defaultPodSpec(input: Json | undefined): JsonObject {
  const spec: JsonObject = isObject(input) ? { ...input } : {};
  if (Array.isArray(spec.containers)) spec.containers = spec.containers.map(defaultContainer);
  if (Array.isArray(spec.initContainers)) spec.initContainers = spec.initContainers.map(defaultContainer);
  if (Array.isArray(spec.volumes)) spec.volumes = spec.volumes.map(defaultVolume);
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.securityContext ??= {};
  return spec;
}

/**
 * A PodTemplateSpec as stored: the spec defaulted, and `metadata.creationTimestamp: null`, which a
 * v1.32 server writes for the zero time of an embedded ObjectMeta.
 */
export function defaultPodTemplate(input: Json | undefined): JsonObject {
  const t: JsonObject = isObject(input) ? { ...input } : {};
  t.metadata = { creationTimestamp: null, ...(isObject(t.metadata) ? t.metadata : {}) };
  t.spec = defaultPodSpec(t.spec);
  return t;
}

/**
 * A pod on update: SetDefaults_Pod's enableServiceLinks, and the priority the Priority admission plugin
 * keeps from the stored pod when an update leaves it out.
 */
export function defaultPodUpdate(obj: KubeObject, old: KubeObject): KubeObject {
  const spec = defaultPodSpec(obj.spec as Json | undefined);
  const was = isObject(old.spec as Json | undefined) ? (old.spec as JsonObject) : {};
  spec.enableServiceLinks ??= true;
  if (spec.priority === undefined && was.priority !== undefined) spec.priority = was.priority;
  if (spec.preemptionPolicy === undefined && was.preemptionPolicy !== undefined)
    spec.preemptionPolicy = was.preemptionPolicy;
  return { ...obj, spec };
}

const DEFAULT_TOLERATIONS: JsonObject[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

/** A pod on create: its spec defaulted, what admission adds to pods only, and the initial status. */
export function preparePod(obj: KubeObject): KubeObject {
  const spec = defaultPodSpec(obj.spec as Json | undefined);
  spec.serviceAccountName ??= 'default';
  spec.enableServiceLinks ??= true;
  spec.priority ??= 0;
  spec.preemptionPolicy ??= 'PreemptLowerPriority';
  spec.tolerations ??= DEFAULT_TOLERATIONS;
  return { ...obj, spec, status: { phase: 'Pending', qosClass: 'BestEffort' } };
}
