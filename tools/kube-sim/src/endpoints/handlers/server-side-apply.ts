// Server-side apply (PATCH with application/apply-patch+yaml): the configuration is merged into the live
// object; fields its manager applied before and applies no more are removed unless another manager owns
// them; changing a field another manager owns is a conflict (409) unless forced, which takes it over.
// A create by apply records an Apply entry for the configuration's fields.
import type { Api, WriteOptions } from '../../registry/api.ts';
import { notFound, timestamp } from '../../registry/rest/errors.ts';
import { difference, type FieldSet, intersection, union } from '../../fieldmanager/fieldset.ts';
import {
  compare,
  fieldSetOf,
  mergeApplied,
  removeFields,
  withNamedParents,
} from '../../fieldmanager/field-ops.ts';
import { type TypeView, typeViewOf } from '../../fieldmanager/field-types.ts';
import {
  type Conflict,
  conflictError,
  decodeManagedFields,
  encodeManagedFields,
  identity,
  type Manager,
  type Part,
  scopeFieldSet,
} from '../../fieldmanager/managed-fields.ts';
import { apiVersionOf, resourceId } from '../../apimachinery/resource-ids.ts';
import {
  ApiError,
  type Json,
  type JsonObject,
  type KubeObject,
  type ResourceType,
} from '../../apimachinery/types.ts';

export interface ApplyRequest {
  t: ResourceType;
  namespace: string | undefined;
  name: string;
  config: JsonObject;
  manager: string;
  force: boolean;
  /** The status subresource is applied to. */
  status: boolean;
}

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Applies a configuration; returns the object as written and whether the apply created it. */
export function serverSideApply(
  api: Api,
  r: ApplyRequest,
  opts: WriteOptions,
): { object: KubeObject; created: boolean } {
  const { t, name } = r;
  const config = checkedConfig(t, r.config, name);
  const view = typeViewOf(t, api.registry.isCrdType(t));
  const part: Part = r.status ? 'status' : t.subresources.status ? 'main-without-status' : 'main';
  const applied = scopeFieldSet(fieldSetOf(config, view), part);
  const now = timestamp(api.now());
  const self = (set: FieldSet): Manager => ({
    manager: r.manager,
    operation: 'Apply',
    apiVersion: apiVersionOf(t),
    time: now,
    subresource: r.status ? 'status' : '',
    set,
    entry: undefined,
  });
  const rec = api.store.get(resourceId(t), t.namespaced ? r.namespace : undefined, name);
  if (!rec) {
    if (r.status) throw notFound(t, name);
    const managedFields = encodeManagedFields([self(applied)]);
    return { object: api.create(t, r.namespace, config, { ...opts, managedFields }), created: true };
  }
  const live = api.present(t, rec.obj) as unknown as JsonObject;
  const managers = decodeManagedFields(rec.obj.metadata.managedFields) ?? [];
  const selfId = identity(self(applied));
  const previous = managers.find((m) => identity(m) === selfId);
  const others = managers.filter((m) => m !== previous);

  let merged = mergeApplied(live, partOf(config, part), view);
  if (previous) merged = withoutDropped(merged, previous.set, applied, others, view);

  const c = compare(live, merged, view);
  const changed = scopeFieldSet(union(c.added, c.modified), part);
  const removed = scopeFieldSet(c.removed, part);
  if (!r.force) checkConflicts(r.manager, others, changed, live, view);

  const next: Manager[] = others.map((m) => {
    const lost = union(intersection(m.set, changed), intersection(m.set, removed));
    return lost.isEmpty() ? m : { ...m, set: difference(m.set, lost), entry: undefined };
  });
  const unchanged = changed.isEmpty() && removed.isEmpty();
  next.push({ ...self(applied), time: unchanged && previous ? previous.time : now });
  const managedFields = encodeManagedFields(next);
  if (r.manager === 'kubectl') merged = withLastApplied(merged, r.config);
  const object = api.writeUpdate(
    t,
    rec.obj,
    merged as unknown as KubeObject,
    { ...opts, managedFields },
    r.status ? 'status' : 'main',
  );
  return { object, created: false };
}

/**
 * What this manager applied before and no manager (itself included, now) owns goes from the merged object
 * (`before`: the fields it applied last time).
 */
function withoutDropped(
  merged: JsonObject,
  before: FieldSet,
  applied: FieldSet,
  others: Manager[],
  view: TypeView,
): JsonObject {
  let owned = applied;
  for (const m of others) owned = union(owned, m.set);
  const mergedSet = withNamedParents(fieldSetOf(merged, view), view);
  const gone = scopeFieldSet(
    difference(intersection(mergedSet, withNamedParents(before, view)), withNamedParents(owned, view)),
    'main',
  );
  return gone.isEmpty() ? merged : removeFields(merged, gone, view);
}

/** A 409 when the apply changes fields other managers own (unless forced, which the caller decides). */
function checkConflicts(
  manager: string,
  others: Manager[],
  changed: FieldSet,
  live: JsonObject,
  view: TypeView,
): void {
  const conflicts: Conflict[] = [];
  for (const m of others) {
    for (const path of intersection(m.set, changed).paths()) conflicts.push({ manager: m, path });
  }
  if (conflicts.length === 0) return;
  // kubectl's own server-side apply takes over what its client-side apply last applied, unchanged since.
  const allowed = manager === 'kubectl' ? lastAppliedFields(live, view) : undefined;
  const left = allowed ? conflicts.filter((c) => !allowed.has(c.path)) : conflicts;
  if (left.length > 0) throw conflictError(left);
}

/** The configuration as an object of the resource: no managedFields, its kind and version, the URL's name. */
function checkedConfig(t: ResourceType, given: JsonObject, name: string): JsonObject {
  const meta = isObject(given.metadata) ? given.metadata : {};
  if (meta.managedFields !== undefined && meta.managedFields !== null) {
    throw new ApiError(400, 'BadRequest', 'metadata.managedFields must be nil');
  }
  checkKind(t, given);
  return { ...given, apiVersion: apiVersionOf(t), kind: t.kind, metadata: { ...meta, name } };
}

/** A configuration is of the resource's kind and version, as a body of an update must be. */
function checkKind(t: ResourceType, config: JsonObject): void {
  if (config.kind !== undefined && config.kind !== t.kind) {
    throw new ApiError(
      400,
      'BadRequest',
      `the kind in the body (${String(config.kind)}) does not match the expected kind (${t.kind})`,
    );
  }
  const av = apiVersionOf(t);
  if (config.apiVersion !== undefined && config.apiVersion !== av) {
    throw new ApiError(
      400,
      'BadRequest',
      `the API version in the data (${String(config.apiVersion)}) does not match the expected API version (${av})`,
    );
  }
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** The fields of the live object's last client-side-applied configuration that still hold its values. */
function lastAppliedFields(live: JsonObject, view: TypeView): FieldSet | undefined {
  const meta = isObject(live.metadata) ? live.metadata : {};
  const annotations = isObject(meta.annotations) ? meta.annotations : {};
  const text = annotations[LAST_APPLIED];
  if (typeof text !== 'string') return undefined;
  try {
    const last = JSON.parse(text) as Json;
    if (!isObject(last)) return undefined;
    return difference(fieldSetOf(last, view), compare(last, live, view).modified);
  } catch {
    return undefined;
  }
}

/**
 * kubectl's server-side apply keeps a client-side apply's annotation up to date, so that going back to
 * client-side apply sees what was applied last: the configuration, without the annotation, as Go encodes it.
 */
function withLastApplied(obj: JsonObject, config: JsonObject): JsonObject {
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const annotations = isObject(meta.annotations) ? meta.annotations : {};
  if (typeof annotations[LAST_APPLIED] !== 'string' || annotations[LAST_APPLIED] === '') return obj;
  const cm = isObject(config.metadata) ? config.metadata : undefined;
  let applied = config;
  if (cm && isObject(cm.annotations)) {
    const { [LAST_APPLIED]: _drop, ...rest } = cm.annotations;
    applied = { ...config, metadata: { ...cm, annotations: rest } };
  }
  const text = `${goJson(applied)}\n`;
  return { ...obj, metadata: { ...meta, annotations: { ...annotations, [LAST_APPLIED]: text } } };
}

/** JSON as Go's encoder writes a map: keys sorted, <, > and & escaped. */
function goJson(v: Json): string {
  const sorted = (x: Json): Json => {
    if (Array.isArray(x)) return x.map(sorted);
    if (!isObject(x)) return x;
    const out: JsonObject = {};
    for (const k of Object.keys(x).sort()) out[k] = sorted(x[k] as Json);
    return out;
  };
  return JSON.stringify(sorted(v)).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The part of a configuration a write may change: the status for the status subresource, else the rest. */
function partOf(config: JsonObject, part: Part): JsonObject {
  if (part === 'main') return config;
  if (part === 'status') {
    const { status } = config;
    return status === undefined ? {} : { status };
  }
  const { status: _s, ...rest } = config;
  return rest;
}
