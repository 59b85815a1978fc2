// What the API server checks of the workload kinds (pkg/apis/apps/validation, pkg/apis/batch/validation,
// the ReplicationController part of pkg/apis/core/validation), on defaulted objects, worded as it words
// it: the selector present, non-empty and matching the template's labels, the pod template validated as
// a pod's spec, the restartPolicy each kind allows, non-negative counts; and on update the selector
// immutable and a StatefulSet's spec frozen but for the fields it may change.
import { validatePodSpec } from './pod-validation.ts';
import { deepEqual, isObject } from '../../apimachinery/json.ts';
import { forbidden, invalid, notSupported, required } from '../../apimachinery/field-errors.ts';
import type { FieldCause, Json, JsonObject, KubeObject } from '../../apimachinery/types.ts';

const obj = (v: Json | undefined): JsonObject => (isObject(v) ? v : {});
const str = (v: Json | undefined): string => (typeof v === 'string' ? v : '');

/** Go's `%#v` of a map[string]string (keys sorted, as fmt prints maps). */
export function goStringMap(m: Json | undefined): string {
  if (!isObject(m)) return 'map[string]string(nil)';
  const keys = Object.keys(m).sort();
  return `map[string]string{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(str(m[k]))}`).join(', ')}}`;
}

function goStrings(v: Json | undefined): string {
  if (!Array.isArray(v)) return '[]string(nil)';
  return `[]string{${v.map((s) => JSON.stringify(str(s))).join(', ')}}`;
}

/** Go's `%#v` of a metav1.LabelSelector, as field errors print a selector. */
export function goLabelSelector(sel: Json | undefined): string {
  const s = obj(sel);
  const exprs = Array.isArray(s.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${s.matchExpressions
        .map((e) => {
          const r = obj(e);
          return `v1.LabelSelectorRequirement{Key:${JSON.stringify(str(r.key))}, Operator:${JSON.stringify(str(r.operator))}, Values:${goStrings(r.values)}}`;
        })
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMap(s.matchLabels)}, MatchExpressions:${exprs}}`;
}

/** A cause whose bad value is already rendered the Go way. */
function invalidGo(field: string, rendered: string, detail: string): FieldCause {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${rendered}: ${detail}` };
}

/** Whether a metav1.LabelSelector selects these labels; a nil selector selects nothing. */
export function selectorMatches(sel: Json | undefined, labels: Json | undefined): boolean {
  if (!isObject(sel)) return false;
  const l = obj(labels);
  const has = (k: string) => Object.hasOwn(l, k);
  for (const [k, v] of Object.entries(obj(sel.matchLabels))) if (!has(k) || l[k] !== v) return false;
  for (const e of Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []) {
    const r = obj(e);
    const key = str(r.key);
    const values = Array.isArray(r.values) ? r.values : [];
    const ok =
      r.operator === 'In'
        ? has(key) && values.includes(l[key] ?? null)
        : r.operator === 'NotIn'
          ? !has(key) || !values.includes(l[key] ?? null)
          : r.operator === 'Exists'
            ? has(key)
            : r.operator === 'DoesNotExist'
              ? !has(key)
              : false;
    if (!ok) return false;
  }
  return true;
}

const selectorSize = (sel: JsonObject) =>
  Object.keys(obj(sel.matchLabels)).length +
  (Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0);

function nonNegative(field: string, v: Json | undefined): FieldCause[] {
  return typeof v === 'number' && v < 0 ? [invalid(field, v, 'must be greater than or equal to 0')] : [];
}

const templateLabels = (spec: JsonObject) => obj(obj(spec.template).metadata).labels;

function labelsMismatch(spec: JsonObject, path = 'spec.template.metadata.labels'): FieldCause {
  return invalidGo(path, goStringMap(templateLabels(spec)), '`selector` does not match template `labels`');
}

/** The template's spec checked as a pod's, with the kind's restartPolicy and activeDeadlineSeconds rules. */
function templateSpec(
  spec: JsonObject,
  kind: string,
  policies: string[],
  deadline: 'forbidden' | 'allowed',
  deadlineKind = kind,
): FieldCause[] {
  const podSpec = obj(obj(spec.template).spec);
  const causes = validatePodSpec(podSpec, 'spec.template.spec', kind);
  causes.push(...restartAndDeadline(podSpec, deadlineKind, policies, deadline));
  return causes;
}

function restartAndDeadline(
  podSpec: JsonObject,
  kind: string,
  policies: string[],
  deadline: 'forbidden' | 'allowed',
): FieldCause[] {
  const causes: FieldCause[] = [];
  if (!policies.includes(str(podSpec.restartPolicy)))
    causes.push(notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy ?? '', policies));
  if (deadline === 'forbidden' && podSpec.activeDeadlineSeconds !== undefined)
    causes.push(
      forbidden(
        'spec.template.spec.activeDeadlineSeconds',
        `activeDeadlineSeconds in ${kind} is not Supported`,
      ),
    );
  return causes;
}

/** Go's `%#v` of an intstr.IntOrString (a number is Type 0, a string Type 1). */
function goIntOrString(v: Json | undefined): string {
  return typeof v === 'string'
    ? `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(v)}}`
    : `intstr.IntOrString{Type:0, IntVal:${typeof v === 'number' ? v : 0}, StrVal:""}`;
}

const isZero = (v: Json | undefined) => v === 0 || v === '0%' || v === undefined || v === null;

/** ValidateDeploymentStrategy: a Recreate strategy has no rollingUpdate; a rolling one moves pods. */
function deploymentStrategy(strategy: Json | undefined): FieldCause[] {
  const s = obj(strategy);
  const at = 'spec.strategy.rollingUpdate';
  if (s.type === 'Recreate')
    return s.rollingUpdate === undefined || s.rollingUpdate === null
      ? []
      : [forbidden(at, "may not be specified when strategy `type` is 'Recreate'")];
  if (s.type !== 'RollingUpdate') {
    // The whole strategy is the bad value; a real server prints a set rollingUpdate as a pointer address.
    const ru = isObject(s.rollingUpdate) ? '(0xc000000000)' : '(nil)';
    const value = `apps.DeploymentStrategy{Type:${JSON.stringify(str(s.type))}, RollingUpdate:(*apps.RollingUpdateDeployment)${ru}}`;
    return [
      {
        reason: 'FieldValueNotSupported',
        field: 'spec.strategy',
        message: `Unsupported value: ${value}: supported values: "Recreate", "RollingUpdate"`,
      },
    ];
  }
  const ru = obj(s.rollingUpdate);
  if (isZero(ru.maxUnavailable) && isZero(ru.maxSurge))
    return [
      invalidGo(
        `${at}.maxUnavailable`,
        goIntOrString(ru.maxUnavailable),
        'may not be 0 when `maxSurge` is 0',
      ),
    ];
  return [];
}

/** Deployments and ReplicaSets (ValidateDeploymentSpec, ValidateReplicaSetSpec). */
function replicaSetLike(spec: JsonObject, kind: 'Deployment' | 'ReplicaSet'): FieldCause[] {
  const causes = nonNegative('spec.replicas', spec.replicas);
  const sel = spec.selector;
  if (!isObject(sel)) causes.push(required('spec.selector'));
  else if (selectorSize(sel) === 0)
    causes.push(invalidGo('spec.selector', goLabelSelector(sel), 'empty selector is invalid for deployment'));
  const empty = isObject(sel) && selectorSize(sel) === 0;
  if (!empty && !selectorMatches(sel, templateLabels(spec))) causes.push(labelsMismatch(spec));
  // Deployments share the ReplicaSet template check, and its wording.
  causes.push(...templateSpec(spec, kind, ['Always'], 'forbidden', 'ReplicaSet'));
  if (kind === 'Deployment') causes.push(...deploymentStrategy(spec.strategy));
  causes.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds));
  causes.push(...nonNegative('spec.revisionHistoryLimit', spec.revisionHistoryLimit));
  return causes;
}

function statefulSet(spec: JsonObject): FieldCause[] {
  const causes: FieldCause[] = [];
  const policy = spec.podManagementPolicy;
  if (policy !== 'OrderedReady' && policy !== 'Parallel')
    causes.push(invalid('spec.podManagementPolicy', policy ?? '', "must be 'OrderedReady' or 'Parallel'"));
  causes.push(...nonNegative('spec.replicas', spec.replicas));
  causes.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds));
  const sel = spec.selector;
  if (!isObject(sel)) causes.push(required('spec.selector'));
  else if (selectorSize(sel) === 0)
    causes.push(
      invalidGo('spec.selector', goLabelSelector(sel), 'empty selector is invalid for statefulset'),
    );
  const empty = isObject(sel) && selectorSize(sel) === 0;
  if (!empty && !selectorMatches(sel, templateLabels(spec))) causes.push(labelsMismatch(spec));
  // A real server leaves a StatefulSet's pod spec to the pods it creates: only the template's labels,
  // restartPolicy and activeDeadlineSeconds are checked here.
  causes.push(...restartAndDeadline(obj(obj(spec.template).spec), 'StatefulSet', ['Always'], 'forbidden'));
  return causes;
}

function daemonSet(spec: JsonObject): FieldCause[] {
  const causes: FieldCause[] = [];
  const sel = spec.selector;
  const empty = isObject(sel) && selectorSize(sel) === 0;
  if (!empty && !selectorMatches(sel, templateLabels(spec))) causes.push(labelsMismatch(spec));
  if (empty)
    causes.push(invalidGo('spec.selector', goLabelSelector(sel), 'empty selector is invalid for daemonset'));
  causes.push(...templateSpec(spec, 'DaemonSet', ['Always'], 'forbidden'));
  causes.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds));
  causes.push(...nonNegative('spec.revisionHistoryLimit', spec.revisionHistoryLimit));
  return causes;
}

function replicationController(spec: JsonObject): FieldCause[] {
  const causes = nonNegative('spec.replicas', spec.replicas);
  const sel = obj(spec.selector);
  if (Object.keys(sel).length === 0) causes.push(required('spec.selector'));
  if (spec.template === undefined || spec.template === null) {
    causes.push(required('spec.template'));
    return causes;
  }
  const labels = obj(templateLabels(spec));
  if (Object.keys(sel).length > 0 && !Object.entries(sel).every(([k, v]) => labels[k] === v))
    causes.push(labelsMismatch(spec));
  causes.push(...templateSpec(spec, 'ReplicationController', ['Always'], 'forbidden'));
  return causes;
}

const JOB_LABELS = [
  ['controller-uid', 'uid'],
  ['job-name', 'name'],
  ['batch.kubernetes.io/controller-uid', 'uid'],
  ['batch.kubernetes.io/job-name', 'name'],
] as const;

/**
 * ValidateGeneratedSelector: unless `manualSelector`, the template carries the job labels of this Job
 * and the selector selects them, so a Job copied from another (its selector and labels naming the old
 * uid) is refused.
 */
function generatedSelector(o: KubeObject, spec: JsonObject): FieldCause[] {
  if (spec.manualSelector === true || !isObject(spec.selector)) return [];
  const causes: FieldCause[] = [];
  const labels = templateLabels(spec);
  const l = obj(labels);
  const expected: JsonObject = {};
  for (const [key, from] of JOB_LABELS) {
    const want = str(from === 'uid' ? o.metadata.uid : o.metadata.name);
    expected[key] = want;
    const at = `spec.template.metadata.labels[${key}]`;
    if (!Object.hasOwn(l, key)) causes.push(required(at, `must be '${want}'`));
    else if (l[key] !== want) causes.push(invalidGo(at, goStringMap(labels), `must be '${want}'`));
  }
  if (!selectorMatches(spec.selector, expected))
    causes.push(invalidGo('spec.selector', goLabelSelector(spec.selector), '`selector` not auto-generated'));
  return causes;
}

function job(o: KubeObject, spec: JsonObject): FieldCause[] {
  const causes = generatedSelector(o, spec);
  causes.push(...nonNegative('spec.parallelism', spec.parallelism));
  causes.push(...nonNegative('spec.completions', spec.completions));
  causes.push(...nonNegative('spec.backoffLimit', spec.backoffLimit));
  if (!isObject(spec.selector)) causes.push(required('spec.selector'));
  else if (!selectorMatches(spec.selector, templateLabels(spec))) causes.push(labelsMismatch(spec));
  causes.push(...templateSpec(spec, 'Job', ['OnFailure', 'Never'], 'allowed'));
  return causes;
}

function cronJob(spec: JsonObject): FieldCause[] {
  const causes: FieldCause[] = [];
  if (typeof spec.schedule !== 'string' || spec.schedule === '') causes.push(required('spec.schedule'));
  const jobSpec = obj(obj(spec.jobTemplate).spec);
  const podSpec = obj(obj(jobSpec.template).spec);
  const at = 'spec.jobTemplate.spec.template.spec';
  causes.push(...validatePodSpec(podSpec, at, 'CronJob'));
  const policies = ['OnFailure', 'Never'];
  if (!policies.includes(str(podSpec.restartPolicy)))
    causes.push(notSupported(`${at}.restartPolicy`, podSpec.restartPolicy ?? '', policies));
  return causes;
}

/** The causes a create or update of this defaulted workload gets, empty for other resources. */
export function validateWorkload(resource: string, o: KubeObject): FieldCause[] {
  const spec = obj(o.spec as Json | undefined);
  switch (resource) {
    case 'deployments.apps':
      return replicaSetLike(spec, 'Deployment');
    case 'replicasets.apps':
      return replicaSetLike(spec, 'ReplicaSet');
    case 'statefulsets.apps':
      return statefulSet(spec);
    case 'daemonsets.apps':
      return daemonSet(spec);
    case 'replicationcontrollers':
      return replicationController(spec);
    case 'jobs.batch':
      return job(o, spec);
    case 'cronjobs.batch':
      return cronJob(spec);
    default:
      return [];
  }
}

const IMMUTABLE_SELECTOR = new Set([
  'deployments.apps',
  'replicasets.apps',
  'statefulsets.apps',
  'daemonsets.apps',
  'jobs.batch',
]);

// What ValidateStatefulSetUpdate lets change; any other spec field is frozen.
const STATEFULSET_MUTABLE = [
  'replicas',
  'ordinals',
  'template',
  'updateStrategy',
  'persistentVolumeClaimRetentionPolicy',
  'minReadySeconds',
];

// What a suspended Job's template may change: the scheduling directives, labels and annotations.
const SCHEDULING_SPEC = ['nodeSelector', 'tolerations', 'schedulingGates', 'affinity'];

/**
 * A Job's completions (unless an Indexed Job keeps completions equal to parallelism) and its template
 * are immutable. A real server prints the whole template as its internal Go struct; kube-sim elides it.
 */
function jobUpdate(os: JsonObject, ns: JsonObject): FieldCause[] {
  const causes: FieldCause[] = [];
  if (!deepEqual(os.completions, ns.completions)) {
    if (ns.completionMode !== 'Indexed')
      causes.push(invalid('spec.completions', ns.completions ?? null, 'field is immutable'));
    else if (typeof ns.completions === 'number' && ns.completions !== ns.parallelism)
      causes.push(
        invalid('spec.completions', ns.completions, 'can only be modified in tandem with spec.parallelism'),
      );
  }
  const comparable = (t: JsonObject, from: JsonObject): JsonObject => {
    if (os.suspend !== true) return t;
    const meta = obj(t.metadata);
    const fromMeta = obj(from.metadata);
    const spec: JsonObject = { ...obj(t.spec) };
    for (const k of SCHEDULING_SPEC) {
      const v = obj(from.spec)[k];
      if (v === undefined) delete spec[k];
      else spec[k] = v;
    }
    const { labels: _l, annotations: _a, ...rest } = meta;
    return {
      ...t,
      metadata: { ...rest, labels: fromMeta.labels ?? null, annotations: fromMeta.annotations ?? null },
      spec,
    };
  };
  const oldT = obj(os.template);
  const newT = obj(ns.template);
  if (!deepEqual(comparable(oldT, newT), comparable(newT, newT)))
    causes.push(invalidGo('spec.template', 'core.PodTemplateSpec{...}', 'field is immutable'));
  return causes;
}

/** The causes only an update can get: immutable fields changed. */
export function validateWorkloadUpdate(resource: string, old: KubeObject, next: KubeObject): FieldCause[] {
  const os = obj(old.spec as Json | undefined);
  const ns = obj(next.spec as Json | undefined);
  const causes: FieldCause[] = [];
  if (IMMUTABLE_SELECTOR.has(resource) && !deepEqual(os.selector, ns.selector))
    causes.push(invalidGo('spec.selector', goLabelSelector(ns.selector), 'field is immutable'));
  if (resource === 'jobs.batch') causes.push(...jobUpdate(os, ns));
  if (resource === 'statefulsets.apps') {
    const frozen = (s: JsonObject) =>
      Object.fromEntries(Object.entries(s).filter(([k]) => !STATEFULSET_MUTABLE.includes(k)));
    if (!deepEqual(frozen(os), frozen(ns)))
      causes.push(
        forbidden(
          'spec',
          "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        ),
      );
  }
  return causes;
}
