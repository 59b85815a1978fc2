// ResourceQuota admission, as kube-apiserver's ResourceQuota plugin decides: a create (and an update of a
// Service or PersistentVolumeClaim, whose type or size may change) is refused with 403 when it would take
// some quota of its namespace over spec.hard, or when a quota tracks cpu/memory a container doesn't set.
//
// The real plugin compares against status.used and charges it in the same step; kube-sim instead sums the
// namespace's live objects. kube-sim is single-threaded, so this check and the store write that follows it
// are atomic: usage counted this way is what status.used converges to, without the window in which a
// quota just created has no status yet ("status unknown for quota"), and a dry run charges nothing since
// nothing is stored. The quota controller (controllers/resourcequota.ts) reports the same sums.
import {
  formatQuantity,
  type Quantity,
  compareQuantity,
  subtractQuantity,
  ZERO,
} from '../apimachinery/quantity.ts';
import {
  IGNORED_RESOURCES,
  matchesScopes,
  matchingResources,
  type NamespaceReader,
  namespaceUsage,
  podConstraintError,
  type QuotaSpec,
  quotaSpecOf,
  type ResourceList,
  usageOf,
} from './quota-evaluators.ts';
import type { Store } from '../storage/store.ts';
import { ApiError, type KubeObject, type ResourceType } from '../apimachinery/types.ts';
import type { AdmissionPlugin } from './attributes.ts';

export interface QuotaRequest {
  /** Resource id (`pods`, `podsets.podset.io`). */
  resource: string;
  group: string;
  plural: string;
  namespace: string;
  /** The object as it would be stored (its generated name filled in). */
  object: KubeObject;
  /** For an update: the stored object it replaces. */
  old?: KubeObject;
  nowMs: number;
}

/** `pods=2,requests.cpu=500m`: a resource list as the plugin prints it (names sorted). */
function prettyPrint(list: ResourceList): string {
  return [...list.keys()]
    .sort()
    .map((k) => `${k}=${formatQuantity(list.get(k) as Quantity)}`)
    .join(',');
}

function forbidden(r: QuotaRequest, why: string): ApiError {
  const name = r.object.metadata.name ?? '';
  return new ApiError(403, 'Forbidden', `${r.resource} "${name}" is forbidden: ${why}`, {
    details: { name, group: r.group, kind: r.plural },
  });
}

function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = new Map();
  for (const n of names) {
    const v = list.get(n);
    if (v) out.set(n, v);
  }
  return out;
}

/** Updates are checked for the kinds whose usage an update can change (pods' resources are immutable). */
const UPDATE_CHECKED = new Set(['services', 'persistentvolumeclaims']);

/** Throws the 403 the API server answers when the write would exceed a quota; returns otherwise. */
export function admitQuota(reader: NamespaceReader, r: QuotaRequest): void {
  if (IGNORED_RESOURCES.has(r.resource)) return;
  if (r.old && !UPDATE_CHECKED.has(r.resource)) return;
  const quotaObjects = reader.list('resourcequotas', r.namespace);
  if (quotaObjects.length === 0) return;
  const quotas = quotaObjects
    .map(quotaSpecOf)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const interesting: { quota: QuotaSpec; names: string[] }[] = [];
  for (const quota of quotas) {
    const names = matchingResources(r.resource, quota.hard.keys());
    if (names.length === 0 || !matchesScopes(r.resource, quota, r.object)) continue;
    if (r.resource === 'pods') {
      const missing = podConstraintError(names, r.object);
      if (missing) throw forbidden(r, `failed quota: ${quota.name}: ${missing}`);
    }
    interesting.push({ quota, names });
  }
  if (interesting.length === 0) return;
  const input = usageOf(r.resource, r.object, r.nowMs);
  const negative = [...input].filter(([, v]) => v.nanos < 0n).map(([k]) => k);
  if (negative.length) {
    throw forbidden(r, `quota usage is negative for resource(s): ${negative.sort().join(',')}`);
  }
  const previous = r.old ? usageOf(r.resource, r.old, r.nowMs) : undefined;
  for (const { quota, names } of interesting) {
    let delta = input;
    if (r.old && previous && matchesScopes(r.resource, quota, r.old)) {
      // An update is charged what it adds, never less than nothing.
      delta = new Map();
      for (const [k, v] of input) {
        const d = subtractQuantity(v, previous.get(k) ?? ZERO);
        delta.set(k, d.nanos > 0n ? d : ZERO);
      }
    }
    const requested = mask(new Map([...delta].filter(([, v]) => v.nanos !== 0n)), names);
    if (requested.size === 0) continue;
    const used = namespaceUsage(reader, r.resource, r.namespace, quota, [...requested.keys()], r.nowMs);
    const exceeded: string[] = [];
    for (const [k, v] of requested) {
      const total = { ...v, nanos: (used.get(k) ?? ZERO).nanos + v.nanos };
      if (compareQuantity(total, quota.hard.get(k) as Quantity) > 0) exceeded.push(k);
    }
    if (exceeded.length) {
      throw forbidden(
        r,
        `exceeded quota: ${quota.name}, requested: ${prettyPrint(mask(requested, exceeded))}, used: ${prettyPrint(
          mask(used, exceeded),
        )}, limited: ${prettyPrint(mask(quota.hard, exceeded))}`,
      );
    }
  }
}

/** The store as a NamespaceReader. */
export function storeReader(store: Store): NamespaceReader {
  return {
    list: (resource, namespace) => store.list(resource, namespace).map((rec) => rec.obj),
    count: (resource, namespace) => store.count(resource, namespace),
  };
}

/** Quota admission of a namespaced object about to be stored (`old`: for an update). */
function checkQuota(
  store: Store,
  t: ResourceType,
  object: KubeObject,
  old: KubeObject | undefined,
  nowMs: number,
): void {
  const namespace = object.metadata.namespace;
  if (!t.namespaced || !namespace) return;
  admitQuota(storeReader(store), {
    resource: t.group ? `${t.plural}.${t.group}` : t.plural,
    group: t.group,
    plural: t.plural,
    namespace,
    object,
    ...(old ? { old } : {}),
    nowMs,
  });
}

/** The plugin: every write, whoever makes it (kube-sim's controllers too), is charged to its namespace. */
export function resourceQuotaPlugin(store: Store): AdmissionPlugin {
  return {
    name: 'ResourceQuota',
    validate: (a) => checkQuota(store, a.resource, a.object, a.oldObject, a.nowMs),
  };
}
