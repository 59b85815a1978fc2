// The arithmetic of kube-controller-manager's Deployment controller (pkg/controller/deployment/util), as
// pure functions of Deployments and ReplicaSets: absent fields read as the API server's defaults, so the
// controller works whether or not the server defaulted them.
import type { Json, JsonObject, KubeObject } from '../apimachinery/types.ts';
import { canonicalJson, pruneEmpty } from './pod-template-hash.ts';
import { controllerRef, num, obj } from './pod-replicas.ts';

export const REVISION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
export const HASH_LABEL = 'pod-template-hash';
/** kube-controller-manager's --deployment-controller-max-rev-history-length-in-chars default... its constant. */
const MAX_REVISION_HISTORY_CHARS = 2000;

/** Annotations a Deployment does not pass on to its ReplicaSets (annotationsToSkip). */
const NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION,
  REVISION_HISTORY,
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  'deployment.kubernetes.io/error-selector-overlapping-with',
  'deployment.kubernetes.io/selector-updated-at',
]);

export interface DeploymentSpec {
  replicas: number;
  recreate: boolean;
  maxSurge: Json;
  maxUnavailable: Json;
  minReadySeconds: number;
  revisionHistoryLimit: number;
  /** undefined: no deadline (the field set to null is not possible in JSON merge, but kept for parity). */
  progressDeadlineSeconds: number | undefined;
  paused: boolean;
}

/** The spec with the API server's defaults for absent fields (apps/v1 SetDefaults_Deployment). */
export function deploymentSpec(d: KubeObject): DeploymentSpec {
  const spec = obj(d.spec);
  const strategy = obj(spec.strategy);
  const rolling = obj(strategy.rollingUpdate);
  return {
    replicas: num(spec.replicas, 1),
    recreate: strategy.type === 'Recreate',
    maxSurge: rolling.maxSurge ?? '25%',
    maxUnavailable: rolling.maxUnavailable ?? '25%',
    minReadySeconds: num(spec.minReadySeconds, 0),
    revisionHistoryLimit: num(spec.revisionHistoryLimit, 10),
    progressDeadlineSeconds:
      spec.progressDeadlineSeconds === null ? undefined : num(spec.progressDeadlineSeconds, 600),
    paused: spec.paused === true,
  };
}

/** intstr.GetScaledValueFromIntOrPercent: an int as is, `N%` of total rounded up or down. */
export function scaledValue(v: Json, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return v;
  const m = typeof v === 'string' ? /^(\d+)%$/.exec(v) : null;
  if (!m) return 0;
  const exact = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** ResolveFenceposts: surge rounds up, unavailable down; both 0 would deadlock, so unavailable is then 1. */
export function resolveFenceposts(s: DeploymentSpec): { surge: number; unavailable: number } {
  const surge = scaledValue(s.maxSurge, s.replicas, true);
  const unavailable = scaledValue(s.maxUnavailable, s.replicas, false);
  return surge === 0 && unavailable === 0 ? { surge, unavailable: 1 } : { surge, unavailable };
}

export function maxSurge(s: DeploymentSpec): number {
  return s.recreate ? 0 : resolveFenceposts(s).surge;
}

export function maxUnavailable(s: DeploymentSpec): number {
  if (s.recreate || s.replicas === 0) return 0;
  return Math.min(resolveFenceposts(s).unavailable, s.replicas);
}

export const specReplicas = (rs: KubeObject | undefined): number => (rs ? num(obj(rs.spec).replicas, 1) : 0);
const statusCount = (rs: KubeObject | undefined, key: string): number =>
  rs ? num(obj(rs.status)[key], 0) : 0;
export const statusReplicas = (rs: KubeObject | undefined): number => statusCount(rs, 'replicas');
export const availableReplicas = (rs: KubeObject | undefined): number => statusCount(rs, 'availableReplicas');
export const readyReplicas = (rs: KubeObject | undefined): number => statusCount(rs, 'readyReplicas');

export const sum = (rss: (KubeObject | undefined)[], f: (rs: KubeObject | undefined) => number): number =>
  rss.reduce((n, rs) => n + f(rs), 0);

/** A pod template without the pod-template-hash label, for EqualIgnoreHash. */
function templateKey(template: Json | undefined): string {
  const t = obj(template);
  const meta = obj(t.metadata);
  const labels = { ...obj(meta.labels) };
  delete labels[HASH_LABEL];
  const normal: JsonObject = { ...t, metadata: { ...meta, labels } };
  if (Object.keys(labels).length === 0) delete (normal.metadata as JsonObject).labels;
  return canonicalJson(pruneEmpty(normal));
}

export function equalIgnoreHash(a: Json | undefined, b: Json | undefined): boolean {
  return templateKey(a) === templateKey(b);
}

export const byCreation = (a: KubeObject, b: KubeObject): number =>
  String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)) ||
  String(a.metadata.name).localeCompare(String(b.metadata.name));

/** FindNewReplicaSet: the oldest ReplicaSet whose template is the Deployment's. */
export function findNewReplicaSet(d: KubeObject, rss: KubeObject[]): KubeObject | undefined {
  const template = obj(d.spec).template;
  return [...rss].sort(byCreation).find((rs) => equalIgnoreHash(obj(rs.spec).template, template));
}

export function revisionOf(o: KubeObject | undefined): number {
  const v = o?.metadata.annotations?.[REVISION];
  const n = v === undefined ? 0 : Number(v);
  return Number.isInteger(n) ? n : 0;
}

/**
 * SetNewReplicaSetAnnotations on a copy of the new ReplicaSet's annotations: the Deployment's own
 * annotations copied, the revision raised to `newRevision` (remembering the one it had in
 * revision-history, as on a rollback), and for a ReplicaSet about to be created the replica annotations.
 */
export function newReplicaSetAnnotations(
  d: KubeObject,
  current: Record<string, string> | undefined,
  newRevision: number,
  creating: boolean,
): Record<string, string> {
  const out: Record<string, string> = { ...current };
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) if (!NOT_COPIED.has(k)) out[k] = v;
  const old = current?.[REVISION];
  const oldRevision = old === undefined ? 0 : Number(old);
  if (Number.isInteger(oldRevision) && oldRevision < newRevision) {
    out[REVISION] = String(newRevision);
    if (old !== undefined) {
      const history = out[REVISION_HISTORY];
      if (!history) out[REVISION_HISTORY] = old;
      else {
        const parts = history.split(',');
        let length = history.length + old.length + 1;
        while (length > MAX_REVISION_HISTORY_CHARS && parts.length > 0) length -= parts.shift()!.length + 1;
        if (length <= MAX_REVISION_HISTORY_CHARS) out[REVISION_HISTORY] = [...parts, old].join(',');
      }
    }
  }
  if (creating) {
    const s = deploymentSpec(d);
    out[DESIRED_REPLICAS] = String(s.replicas);
    out[MAX_REPLICAS] = String(s.replicas + maxSurge(s));
  }
  return out;
}

/** The annotations of a ReplicaSet after SetReplicasAnnotations; undefined when they need no change. */
export function replicasAnnotations(d: KubeObject, rs: KubeObject): Record<string, string> | undefined {
  const s = deploymentSpec(d);
  const desired = String(s.replicas);
  const max = String(s.replicas + maxSurge(s));
  const a = rs.metadata.annotations ?? {};
  if (a[DESIRED_REPLICAS] === desired && a[MAX_REPLICAS] === max) return undefined;
  return { ...a, [DESIRED_REPLICAS]: desired, [MAX_REPLICAS]: max };
}

/** NewRSNewReplicas: the size the new ReplicaSet may have now. */
export function newRSNewReplicas(d: KubeObject, all: KubeObject[], newRS: KubeObject | undefined): number {
  const s = deploymentSpec(d);
  if (s.recreate) return s.replicas;
  const current = specReplicas(newRS);
  const total = sum(all, specReplicas);
  const maxTotal = s.replicas + maxSurge(s);
  if (total >= maxTotal) return current;
  return current + Math.min(maxTotal - total, s.replicas - current);
}

/** DeploymentComplete: every replica updated and available, and the newest spec observed. */
export function deploymentComplete(d: KubeObject, status: JsonObject): boolean {
  const want = deploymentSpec(d).replicas;
  return (
    num(status.updatedReplicas, 0) === want &&
    num(status.replicas, 0) === want &&
    num(status.availableReplicas, 0) === want &&
    num(status.observedGeneration, 0) >= (d.metadata.generation ?? 1)
  );
}

/** DeploymentProgressing: more updated, fewer old, more ready or more available pods than last seen. */
export function deploymentProgressing(d: KubeObject, status: JsonObject): boolean {
  const old = obj(d.status);
  const n = (o: JsonObject, k: string) => num(o[k], 0);
  return (
    n(status, 'updatedReplicas') > n(old, 'updatedReplicas') ||
    n(status, 'replicas') - n(status, 'updatedReplicas') < n(old, 'replicas') - n(old, 'updatedReplicas') ||
    n(status, 'readyReplicas') > n(old, 'readyReplicas') ||
    n(status, 'availableReplicas') > n(old, 'availableReplicas')
  );
}

export function getCondition(status: JsonObject, type: string): JsonObject | undefined {
  const list = status.conditions;
  return Array.isArray(list) ? list.map(obj).find((c) => c.type === type) : undefined;
}

/**
 * SetDeploymentCondition: nothing changes when a condition of that type has the same status and reason;
 * lastTransitionTime stays when only the reason changes. The condition goes last.
 */
export function setCondition(status: JsonObject, condition: JsonObject): JsonObject {
  const current = getCondition(status, String(condition.type));
  if (current && current.status === condition.status && current.reason === condition.reason) return status;
  const kept = current && current.status === condition.status ? current.lastTransitionTime : undefined;
  const next: JsonObject = kept !== undefined ? { ...condition, lastTransitionTime: kept } : condition;
  return { ...status, conditions: [...otherConditions(status, String(condition.type)), next] };
}

export function otherConditions(status: JsonObject, type: string): JsonObject[] {
  const list = status.conditions;
  return Array.isArray(list) ? list.map(obj).filter((c) => c.type !== type) : [];
}

export function condition(
  type: string,
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message: string,
  now: string,
): JsonObject {
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

/** calculateStatus: the Deployment's counts from its ReplicaSets, and its Available condition. */
export function calculateStatus(
  d: KubeObject,
  all: KubeObject[],
  newRS: KubeObject | undefined,
  now: string,
): JsonObject {
  const s = deploymentSpec(d);
  const available = sum(all, availableReplicas);
  const total = sum(all, specReplicas);
  const old = obj(d.status);
  let status: JsonObject = {
    observedGeneration: d.metadata.generation ?? 1,
    replicas: sum(all, statusReplicas),
    updatedReplicas: statusReplicas(newRS),
    readyReplicas: sum(all, readyReplicas),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, total - available),
    ...(old.collisionCount !== undefined ? { collisionCount: old.collisionCount } : {}),
    ...(Array.isArray(old.conditions) ? { conditions: old.conditions } : {}),
  };
  status =
    available >= s.replicas - maxUnavailable(s)
      ? setCondition(
          status,
          condition(
            'Available',
            'True',
            'MinimumReplicasAvailable',
            'Deployment has minimum availability.',
            now,
          ),
        )
      : setCondition(
          status,
          condition(
            'Available',
            'False',
            'MinimumReplicasUnavailable',
            'Deployment does not have minimum availability.',
            now,
          ),
        );
  return status;
}

/** The status as the API serves it: zero counts and empty lists left out (omitempty). */
export function omitEmpty(status: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(status)) {
    if (v === 0 && k !== 'observedGeneration') continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out;
}

/**
 * getReplicaSetFraction: how many replicas a ReplicaSet gains (or loses) when a Deployment in the middle
 * of a rollout is scaled, in proportion to its size and the max-replicas it was sized for.
 */
export function replicaSetFraction(rs: KubeObject, d: KubeObject): number {
  const s = deploymentSpec(d);
  if (s.replicas === 0) return -specReplicas(rs);
  const deploymentReplicas = s.replicas + maxSurge(s);
  const annotated = Number(rs.metadata.annotations?.[MAX_REPLICAS]);
  const sizedFor = Number.isInteger(annotated) ? annotated : num(obj(d.status).replicas, 0);
  if (sizedFor === 0) return 0;
  // integer.RoundToInt32 rounds half away from zero.
  const exact = (specReplicas(rs) * deploymentReplicas) / sizedFor;
  return Math.sign(exact) * Math.round(Math.abs(exact)) - specReplicas(rs);
}

/** GetProportion: a ReplicaSet's share of `toAdd`, bounded by what is left to add. */
export function proportion(rs: KubeObject, d: KubeObject, toAdd: number, added: number): number {
  if (specReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/**
 * The sizes of scale's proportional part: `toAdd` replicas (negative: fewer) spread over the active
 * ReplicaSets in proportion, largest first (newest first on the way up, oldest on the way down); the
 * leftover goes to the largest. In the order they are to be scaled.
 */
export function proportionalSizes(
  d: KubeObject,
  active: KubeObject[],
  toAdd: number,
): [KubeObject, number][] {
  const newer = (a: KubeObject, b: KubeObject) => -byCreation(a, b);
  const ordered = [...active].sort((a, b) => {
    const bySize = specReplicas(b) - specReplicas(a);
    if (bySize !== 0) return bySize;
    return toAdd > 0 ? newer(a, b) : byCreation(a, b);
  });
  const sizes = new Map<KubeObject, number>();
  let added = 0;
  for (const rs of ordered) {
    const share = toAdd !== 0 ? proportion(rs, d, toAdd, added) : 0;
    sizes.set(rs, specReplicas(rs) + share);
    added += share;
  }
  return ordered.map((rs, i) => {
    const size = sizes.get(rs) ?? specReplicas(rs);
    return [rs, i === 0 && toAdd !== 0 ? Math.max(0, size + toAdd - added) : size];
  });
}

/**
 * The new ReplicaSet of a Deployment's template, before its size and annotations: `<deployment>-<hash>`,
 * the hash label added to its labels, selector and template, controlled by the Deployment.
 */
export function replicaSetDraft(d: KubeObject, hash: string): KubeObject {
  const spec = obj(d.spec);
  const template = obj(spec.template);
  const meta = obj(template.metadata);
  const labels = { ...(obj(meta.labels) as Record<string, string>), [HASH_LABEL]: hash };
  const selector = obj(spec.selector);
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata.name ?? ''}-${hash}`,
      namespace: d.metadata.namespace ?? 'default',
      labels,
      ownerReferences: [controllerRef({ apiVersion: 'apps/v1', kind: 'Deployment', object: d })],
    },
    spec: {
      replicas: 0,
      minReadySeconds: deploymentSpec(d).minReadySeconds,
      selector: { ...selector, matchLabels: { ...obj(selector.matchLabels), [HASH_LABEL]: hash } },
      template: { ...template, metadata: { ...meta, labels } },
    },
  };
}
