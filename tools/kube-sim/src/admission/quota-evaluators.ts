// What a ResourceQuota counts, as kube-apiserver's quota evaluators measure it (pkg/quota/v1/evaluator/core
// and the generic object-count evaluator): which quota resource names each kind answers to, the usage of
// one object, the pod scopes, and the sum over a namespace. Shared by quota admission and the quota
// controller so that what is admitted and what status.used reports agree.
import {
  addQuantity,
  compareQuantity,
  type Quantity,
  type QuantityFormat,
  quantityOfInt,
  tryParseQuantity,
  ZERO,
} from '../apimachinery/quantity.ts';
import type { Json, JsonObject, KubeObject } from '../apimachinery/types.ts';

export type ResourceList = Map<string, Quantity>;

export interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values: string[];
}

/** A ResourceQuota's spec, parsed (hard values that are not quantities are left out). */
export interface QuotaSpec {
  name: string;
  hard: ResourceList;
  scopes: ScopeRequirement[];
}

/** Reads of the objects of one namespace (the store, or a controller's ClusterAccess). */
export interface NamespaceReader {
  list(resource: string, namespace: string): readonly KubeObject[];
  count(resource: string, namespace: string): number;
}

const obj = (v: unknown): JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};
const arr = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);

/**
 * Resources never charged to a quota: core Events (kube-apiserver's default ignored resources), and their
 * events.k8s.io view, which kube-sim stores as the same objects.
 */
export const IGNORED_RESOURCES = new Set(['events', 'events.events.k8s.io']);

/** The names the object-count evaluators answered to before `count/…` existed. */
const LEGACY_COUNT_NAMES: Record<string, string> = {
  configmaps: 'configmaps',
  secrets: 'secrets',
  replicationcontrollers: 'replicationcontrollers',
  resourcequotas: 'resourcequotas',
};

const POD_RESOURCES = new Set([
  'count/pods',
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
]);
const SERVICE_RESOURCES = new Set([
  'count/services',
  'services',
  'services.loadbalancers',
  'services.nodeports',
]);
const PVC_RESOURCES = new Set(['count/persistentvolumeclaims', 'persistentvolumeclaims', 'requests.storage']);
const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';

/** `count/pods`, `count/deployments.apps`: the object-count name of a resource id. */
export const countName = (resource: string): string => `count/${resource}`;

const isNative = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');

/** An extended resource a pod may request (`example.com/gpu`): quota names it `requests.example.com/gpu`. */
const isExtended = (name: string): boolean => !isNative(name) && !name.startsWith('requests.');

/** Of the quota resource names given, those the evaluator of `resource` measures. */
export function matchingResources(resource: string, names: Iterable<string>): string[] {
  const out: string[] = [];
  for (const n of names) {
    let match: boolean;
    if (resource === 'pods') {
      match =
        POD_RESOURCES.has(n) ||
        n.startsWith('hugepages-') ||
        n.startsWith('requests.hugepages-') ||
        (!isNative(n) && n.startsWith('requests.'));
    } else if (resource === 'services') match = SERVICE_RESOURCES.has(n);
    else if (resource === 'persistentvolumeclaims') {
      match =
        PVC_RESOURCES.has(n) ||
        n.endsWith(`${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`) ||
        n.endsWith(`${STORAGE_CLASS_SUFFIX}requests.storage`);
    } else match = n === countName(resource) || n === LEGACY_COUNT_NAMES[resource];
    if (match) out.push(n);
  }
  return out;
}

export function quotaSpecOf(quota: KubeObject): QuotaSpec {
  const spec = obj(quota.spec);
  const hard: ResourceList = new Map();
  for (const [k, v] of Object.entries(obj(spec.hard))) {
    const q = tryParseQuantity(v);
    if (q) hard.set(k, q);
  }
  const scopes: ScopeRequirement[] = arr(spec.scopes).map((s) => ({
    scopeName: String(s),
    operator: 'Exists',
    values: [],
  }));
  for (const e of arr(obj(spec.scopeSelector).matchExpressions)) {
    const x = obj(e);
    scopes.push({
      scopeName: String(x.scopeName ?? ''),
      operator: String(x.operator ?? ''),
      values: arr(x.values).map(String),
    });
  }
  return { name: quota.metadata.name ?? '', hard, scopes };
}

// ---------------------------------------------------------------- pods

function resourceList(v: Json | undefined): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, x] of Object.entries(obj(v))) {
    const q = tryParseQuantity(x);
    if (q) out.set(k, q);
  }
  return out;
}

/** A container's requests and limits; requests missing where limits are set default to them, as on create. */
function containerResources(c: Json): { requests: ResourceList; limits: ResourceList } {
  const r = obj(obj(c).resources);
  const limits = resourceList(r.limits);
  const requests = resourceList(r.requests);
  for (const [k, v] of limits) if (!requests.has(k)) requests.set(k, v);
  return { requests, limits };
}

function addInto(into: ResourceList, from: ResourceList): void {
  for (const [k, v] of from) into.set(k, addQuantity(into.get(k) ?? ZERO, v));
}

function maxInto(into: ResourceList, from: ResourceList): void {
  for (const [k, v] of from) {
    const cur = into.get(k);
    if (!cur || compareQuantity(v, cur) > 0) into.set(k, v);
  }
}

/**
 * The pod's effective requests or limits (resourcehelper.PodRequests / PodLimits): the sum over its
 * containers and sidecars (init containers with restartPolicy Always), or the largest init container plus
 * the sidecars started before it if that is more, plus the pod overhead.
 */
function podTotals(pod: KubeObject, which: 'requests' | 'limits'): ResourceList {
  const spec = obj(pod.spec);
  const total: ResourceList = new Map();
  for (const c of arr(spec.containers)) addInto(total, containerResources(c)[which]);
  const sidecars: ResourceList = new Map();
  const initMax: ResourceList = new Map();
  for (const c of arr(spec.initContainers)) {
    const own = containerResources(c)[which];
    if (obj(c).restartPolicy === 'Always') {
      addInto(total, own);
      addInto(sidecars, own);
      maxInto(initMax, sidecars);
    } else {
      const tmp: ResourceList = new Map();
      addInto(tmp, own);
      addInto(tmp, sidecars);
      maxInto(initMax, tmp);
    }
  }
  maxInto(total, initMax);
  const overhead = resourceList(spec.overhead);
  if (which === 'requests') addInto(total, overhead);
  else
    for (const [k, v] of overhead) if (total.has(k)) total.set(k, addQuantity(total.get(k) as Quantity, v));
  return total;
}

/** The quota names a set of requests and limits fills (podComputeUsageHelper). */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([['pods', quantityOfInt(1)]]);
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    const req = requests.get(r);
    if (req) {
      out.set(r, req);
      out.set(`requests.${r}`, req);
    }
    const lim = limits.get(r);
    if (lim) out.set(`limits.${r}`, lim);
  }
  for (const [k, v] of requests) {
    if (k.startsWith('hugepages-')) {
      out.set(k, v);
      out.set(`requests.${k}`, v);
    } else if (isExtended(k)) out.set(`requests.${k}`, v);
  }
  return out;
}

const isTerminalPhase = (pod: KubeObject): boolean => {
  const phase = obj(pod.status).phase;
  return phase === 'Succeeded' || phase === 'Failed';
};

/**
 * Whether a pod's compute resources (and `pods`) are charged: not in a terminal phase, and not deleted
 * with its grace period over twice (deletionTimestamp is already now + grace): a pod stuck terminating on
 * a lost node must not block new ones.
 */
export function podCharged(pod: KubeObject, nowMs: number): boolean {
  if (isTerminalPhase(pod)) return false;
  const m = pod.metadata;
  if (m.deletionTimestamp && m.deletionGracePeriodSeconds !== undefined) {
    if (nowMs > Date.parse(m.deletionTimestamp) + m.deletionGracePeriodSeconds * 1000) return false;
  }
  return true;
}

/** When a terminating pod stops being charged (undefined when that is not a matter of time). */
export function podChargeEnds(pod: KubeObject): number | undefined {
  const m = pod.metadata;
  if (isTerminalPhase(pod) || !m.deletionTimestamp || m.deletionGracePeriodSeconds === undefined)
    return undefined;
  return Date.parse(m.deletionTimestamp) + m.deletionGracePeriodSeconds * 1000;
}

// A stored object is never changed in place (every write stores a new one), so what its spec says about
// usage is worked out once per object: admission sums a namespace's pods on every create.
const chargedUsage = new WeakMap<KubeObject, ResourceList>();
const bestEffort = new WeakMap<KubeObject, boolean>();

/** What a live pod is charged: `pods` and its compute resources. */
function podComputeUsage(pod: KubeObject): ResourceList {
  let u = chargedUsage.get(pod);
  if (!u) {
    u = computeUsage(podTotals(pod, 'requests'), podTotals(pod, 'limits'));
    chargedUsage.set(pod, u);
  }
  return u;
}

function podUsage(pod: KubeObject, nowMs: number): ResourceList {
  // count/pods tracks every pod in storage; `pods` and compute resources only the live ones.
  const out: ResourceList = new Map([[countName('pods'), quantityOfInt(1)]]);
  if (!podCharged(pod, nowMs)) return out;
  addInto(out, podComputeUsage(pod));
  return out;
}

/** The scope-checked container resources: a quota on these makes every container name them. */
const MUST_SPECIFY = new Set([
  'cpu',
  'memory',
  'requests.cpu',
  'requests.memory',
  'limits.cpu',
  'limits.memory',
]);

/**
 * For a quota that tracks cpu or memory, each container must set them (the evaluator's Constraints):
 * `must specify limits.cpu for: a,b; limits.memory for: a`, or undefined when nothing is missing.
 */
export function podConstraintError(required: string[], pod: KubeObject): string | undefined {
  const wanted = required.filter((r) => MUST_SPECIFY.has(r));
  if (wanted.length === 0) return undefined;
  const missing = new Map<string, Set<string>>();
  const spec = obj(pod.spec);
  for (const c of [...arr(spec.containers), ...arr(spec.initContainers)]) {
    const { requests, limits } = containerResources(c);
    const has = computeUsage(requests, limits);
    for (const r of wanted) {
      if (has.has(r)) continue;
      const names = missing.get(r) ?? new Set<string>();
      names.add(String(obj(c).name ?? ''));
      missing.set(r, names);
    }
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()]
    .sort()
    .map((r) => `${r} for: ${[...(missing.get(r) as Set<string>)].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}

const CPU_MEMORY = ['cpu', 'memory'];

/** QoS class BestEffort: no container asks for or is limited in cpu or memory. */
function isBestEffort(pod: KubeObject): boolean {
  let b = bestEffort.get(pod);
  if (b === undefined) {
    b = computeBestEffort(pod);
    bestEffort.set(pod, b);
  }
  return b;
}

function computeBestEffort(pod: KubeObject): boolean {
  const spec = obj(pod.spec);
  for (const c of [...arr(spec.containers), ...arr(spec.initContainers)]) {
    const { requests, limits } = containerResources(c);
    for (const r of CPU_MEMORY) {
      if ((requests.get(r)?.nanos ?? 0n) > 0n || (limits.get(r)?.nanos ?? 0n) > 0n) return false;
    }
  }
  return true;
}

const isTerminating = (pod: KubeObject): boolean => {
  const d = obj(pod.spec).activeDeadlineSeconds;
  return typeof d === 'number' && d >= 0;
};

function crossNamespaceAffinity(pod: KubeObject): boolean {
  const affinity = obj(obj(pod.spec).affinity);
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = obj(affinity[kind]);
    const terms = [
      ...arr(a.requiredDuringSchedulingIgnoredDuringExecution),
      ...arr(a.preferredDuringSchedulingIgnoredDuringExecution).map((w) => obj(w).podAffinityTerm ?? null),
    ];
    for (const t of terms) {
      const term = obj(t);
      if (arr(term.namespaces).length > 0 || term.namespaceSelector !== undefined) return true;
    }
  }
  return false;
}

function podMatchesScope(s: ScopeRequirement, pod: KubeObject): boolean {
  switch (s.scopeName) {
    case 'Terminating':
      return isTerminating(pod);
    case 'NotTerminating':
      return !isTerminating(pod);
    case 'BestEffort':
      return isBestEffort(pod);
    case 'NotBestEffort':
      return !isBestEffort(pod);
    case 'CrossNamespacePodAffinity':
      return crossNamespaceAffinity(pod);
    case 'PriorityClass': {
      const pc = obj(pod.spec).priorityClassName;
      const name = typeof pc === 'string' && pc !== '' ? pc : undefined;
      switch (s.operator) {
        case 'Exists':
          return name !== undefined;
        case 'DoesNotExist':
          return name === undefined;
        case 'In':
          return name !== undefined && s.values.includes(name);
        case 'NotIn':
          return name === undefined || !s.values.includes(name);
        default:
          return false;
      }
    }
    default:
      return false;
  }
}

// ---------------------------------------------------------------- services, claims, counts

function serviceUsage(svc: KubeObject): ResourceList {
  const spec = obj(svc.spec);
  const ports = arr(spec.ports);
  let nodePorts = 0;
  let balancers = 0;
  if (spec.type === 'NodePort') nodePorts = ports.length;
  else if (spec.type === 'LoadBalancer') {
    balancers = 1;
    // Without node ports allocated, only those given explicitly count.
    nodePorts =
      spec.allocateLoadBalancerNodePorts === false
        ? ports.filter((p) => typeof obj(p).nodePort === 'number' && obj(p).nodePort !== 0).length
        : ports.length;
  }
  return new Map([
    [countName('services'), quantityOfInt(1)],
    ['services', quantityOfInt(1)],
    ['services.loadbalancers', quantityOfInt(balancers)],
    ['services.nodeports', quantityOfInt(nodePorts)],
  ]);
}

/** Storage is charged in whole bytes (rounded up), the larger of the request and what was allocated. */
function claimUsage(pvc: KubeObject): ResourceList {
  const spec = obj(pvc.spec);
  const out: ResourceList = new Map([
    [countName('persistentvolumeclaims'), quantityOfInt(1)],
    ['persistentvolumeclaims', quantityOfInt(1)],
  ]);
  const annotated = pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'];
  const cls = annotated ?? (typeof spec.storageClassName === 'string' ? spec.storageClassName : '');
  if (cls) out.set(`${cls}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`, quantityOfInt(1));
  const wholeBytes = (q: Quantity): Quantity => {
    const rem = q.nanos % 1_000_000_000n;
    return rem === 0n ? q : { ...q, nanos: q.nanos - rem + (q.nanos > 0n ? 1_000_000_000n : 0n) };
  };
  let storage = tryParseQuantity(obj(obj(spec.resources).requests).storage);
  if (storage) {
    storage = wholeBytes(storage);
    const allocated = tryParseQuantity(obj(obj(pvc.status).allocatedResources).storage);
    if (allocated && compareQuantity(allocated, storage) > 0) storage = wholeBytes(allocated);
    out.set('requests.storage', storage);
    if (cls) out.set(`${cls}${STORAGE_CLASS_SUFFIX}requests.storage`, storage);
  }
  return out;
}

/** The usage one object of `resource` adds to a quota that matches it. */
export function usageOf(resource: string, o: KubeObject, nowMs: number): ResourceList {
  if (resource === 'pods') return podUsage(o, nowMs);
  if (resource === 'services') return serviceUsage(o);
  if (resource === 'persistentvolumeclaims') return claimUsage(o);
  const out: ResourceList = new Map([[countName(resource), quantityOfInt(1)]]);
  const legacy = LEGACY_COUNT_NAMES[resource];
  if (legacy) out.set(legacy, quantityOfInt(1));
  return out;
}

/** Whether an object falls under a quota's scopes. Only pods have scopes: a scoped quota counts no other kind. */
export function matchesScopes(resource: string, quota: QuotaSpec, o: KubeObject): boolean {
  if (quota.scopes.length === 0) return true;
  if (resource !== 'pods') return false;
  return quota.scopes.every((s) => podMatchesScope(s, o));
}

/**
 * The usage, in `namespace`, of the quota names given (all measured by the evaluator of `resource`),
 * each starting from 0 (so it is present even when nothing is counted), summed in the store's order.
 */
export function namespaceUsage(
  reader: NamespaceReader,
  resource: string,
  namespace: string,
  quota: QuotaSpec,
  names: string[],
  nowMs: number,
): ResourceList {
  const used: ResourceList = new Map(names.map((n) => [n, ZERO]));
  if (names.length === 0) return used;
  const plainCount = !['pods', 'services', 'persistentvolumeclaims'].includes(resource);
  if (plainCount) {
    // One per object, and no scopes apply: the store's count is the sum.
    const n = quota.scopes.length === 0 ? reader.count(resource, namespace) : 0;
    for (const name of names) used.set(name, quantityOfInt(n));
    return used;
  }
  if (resource === 'pods') return podNamespaceUsage(reader, namespace, quota, names, nowMs, used);
  const objects = reader.list(resource, namespace);
  for (const o of objects) {
    if (!matchesScopes(resource, quota, o)) continue;
    const u = usageOf(resource, o, nowMs);
    for (const name of names) {
      const v = u.get(name);
      if (v) used.set(name, addQuantity(used.get(name) as Quantity, v));
    }
  }
  return used;
}

/** namespaceUsage for pods, on the hot path of every pod create in a namespace with a quota. */
function podNamespaceUsage(
  reader: NamespaceReader,
  namespace: string,
  quota: QuotaSpec,
  names: string[],
  nowMs: number,
  used: ResourceList,
): ResourceList {
  const count = countName('pods');
  const charged = names.filter((n) => n !== count);
  if (charged.length === 0 && quota.scopes.length === 0) {
    used.set(count, quantityOfInt(reader.count('pods', namespace)));
    return used;
  }
  const sums = charged.map(() => 0n);
  const formats = charged.map((): QuantityFormat => 'DecimalSI');
  let all = 0;
  for (const o of reader.list('pods', namespace)) {
    if (!matchesScopes('pods', quota, o)) continue;
    all++;
    if (charged.length === 0 || !podCharged(o, nowMs)) continue;
    const u = podComputeUsage(o);
    for (let i = 0; i < charged.length; i++) {
      const v = u.get(charged[i] as string);
      if (!v) continue;
      // As Quantity.Add: a sum still at zero takes the format of what is added.
      if (sums[i] === 0n) formats[i] = v.format;
      sums[i] = (sums[i] as bigint) + v.nanos;
    }
  }
  charged.forEach((n, i) => used.set(n, { nanos: sums[i] as bigint, format: formats[i] as QuantityFormat }));
  if (used.has(count)) used.set(count, quantityOfInt(all));
  return used;
}
