// metadata.managedFields: who owns which fields of an object. Every write records ownership, as the API
// server's field manager does: a create, update or patch records the fields it changed as an Update by its
// field manager; an apply (apply.ts) records the fields of its configuration as an Apply, removes the ones
// its manager no longer applies, and fails with a conflict where it would change another manager's field.
import {
  difference,
  FieldSet,
  fromFieldsV1,
  intersection,
  pathString,
  toFieldsV1,
  union,
} from './fieldset.ts';
import type { TypeView } from './field-types.ts';
import { compare, isSame, itemKey } from './field-ops.ts';
import { deepEqual } from '../apimachinery/json.ts';
import { ApiError, type Json, type JsonObject, type KubeObject } from '../apimachinery/types.ts';

export type Operation = 'Apply' | 'Update';

export interface Manager {
  manager: string;
  operation: Operation;
  apiVersion: string;
  time: string | undefined;
  subresource: string;
  set: FieldSet;
  /** The entry as stored, while its fields are unchanged (so an unchanged entry is not encoded again). */
  entry: JsonObject | undefined;
}

/** The longest field manager name the API server keeps. */
const MAX_MANAGER_LENGTH = 128;

/**
 * The field manager of a write that names none: the User-Agent up to its first "/", printable characters
 * only, at most 128 bytes (`kubectl/v1.32.0 (linux/amd64)` → "kubectl").
 */
export function managerFromUserAgent(userAgent: string): string {
  let out = '';
  let bytes = 0;
  for (const ch of userAgent.split('/')[0] ?? '') {
    if (ch !== ' ' && /[\p{C}\p{Z}]/u.test(ch)) continue; // Go's unicode.IsPrint
    const n = Buffer.byteLength(ch);
    if (bytes + n > MAX_MANAGER_LENGTH) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/** Two entries are the same manager when these agree (an Update's apiVersion too: it is per version). */
export function identity(m: Pick<Manager, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return JSON.stringify([
    m.manager,
    m.operation,
    m.operation === 'Update' ? m.apiVersion : '',
    m.subresource,
  ]);
}

const decoded = new WeakMap<object, Manager[]>();

/** The entries of a managedFields list, or undefined when one is malformed (then the list is not used). */
export function decodeManagedFields(list: readonly Json[] | undefined): Manager[] | undefined {
  if (!list) return [];
  const cached = decoded.get(list);
  if (cached) return cached;
  const out: Manager[] = [];
  for (const e of list) {
    if (typeof e !== 'object' || e === null || Array.isArray(e)) return undefined;
    const op = e.operation;
    if (op !== 'Apply' && op !== 'Update') return undefined;
    if (e.fieldsType !== 'FieldsV1') return undefined;
    let set: FieldSet;
    try {
      set = fromFieldsV1(e.fieldsV1 ?? {});
    } catch {
      return undefined;
    }
    out.push({
      manager: typeof e.manager === 'string' ? e.manager : '',
      operation: op,
      apiVersion: typeof e.apiVersion === 'string' ? e.apiVersion : '',
      time: typeof e.time === 'string' ? e.time : undefined,
      subresource: typeof e.subresource === 'string' ? e.subresource : '',
      set,
      entry: e,
    });
  }
  // Entries of one manager are merged, as decoding them into the API server's map does.
  const byId = new Map<string, Manager>();
  for (const m of out) {
    const prev = byId.get(identity(m));
    if (prev) {
      prev.set = union(prev.set, m.set);
      prev.entry = undefined;
    } else {
      byId.set(identity(m), m);
    }
  }
  const merged = [...byId.values()];
  decoded.set(list, merged);
  return merged;
}

/** At most this many Update entries are kept: older ones fold into `ancient-changes`, one per version. */
const MAX_UPDATE_MANAGERS = 10;
const ANCIENT = 'ancient-changes';

function capUpdateManagers(managers: readonly Manager[]): readonly Manager[] {
  const updaters = managers.filter((m) => m.operation === 'Update');
  if (updaters.length <= MAX_UPDATE_MANAGERS) return managers;
  updaters.sort((a, b) => cmp(a.time ?? '', b.time ?? '') || cmp(identity(a), identity(b)));
  const out = new Set(managers);
  const firstOfVersion = new Map<string, Manager>();
  let count = updaters.length;
  for (const m of updaters) {
    if (count <= MAX_UPDATE_MANAGERS) break;
    const first = firstOfVersion.get(m.apiVersion);
    if (!first) {
      firstOfVersion.set(m.apiVersion, m);
      continue;
    }
    // The bucket takes the fields of both, and the time of the newer.
    const bucket: Manager = {
      manager: ANCIENT,
      operation: 'Update',
      apiVersion: m.apiVersion,
      time: m.time,
      subresource: '',
      set: union(first.set, m.set),
      entry: undefined,
    };
    out.delete(first);
    out.delete(m);
    out.add(bucket);
    firstOfVersion.set(m.apiVersion, bucket);
    count--;
  }
  return [...out];
}

/** Writes the entries in the API server's order: Apply before Update, then oldest first, then by name. */
export function encodeManagedFields(all: readonly Manager[]): Json[] {
  const managers = capUpdateManagers(all);
  const sorted = managers
    .filter((m) => !m.set.isEmpty())
    .sort(
      (a, b) =>
        cmp(a.operation, b.operation) ||
        cmp(a.time ?? '', b.time ?? '') ||
        cmp(a.manager, b.manager) ||
        cmp(a.apiVersion, b.apiVersion) ||
        cmp(a.subresource, b.subresource),
    );
  const out = sorted.map((m): Json => {
    if (m.entry) return m.entry;
    const e: JsonObject = (m.entry = {
      manager: m.manager,
      operation: m.operation,
      apiVersion: m.apiVersion,
      ...(m.time !== undefined ? { time: m.time } : {}),
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(m.set),
      ...(m.subresource ? { subresource: m.subresource } : {}),
    });
    return e;
  });
  decoded.set(out, sorted);
  return out;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The fields no manager owns: the object's identity and bookkeeping (the API server strips them). */
const STRIPPED_META = [
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'selfLink',
];

/** `set` without what managedFields never records, and only the part (`status` or the rest) written. */
export function scopeFieldSet(set: FieldSet, part: Part): FieldSet {
  const out = new FieldSet();
  if (!set.children) return out;
  for (const [k, c] of set.children) {
    if (k === 'f:apiVersion' || k === 'f:kind') continue;
    if (part === 'status' && k !== 'f:status') continue;
    if (part === 'main-without-status' && k === 'f:status') continue;
    if (k === 'f:metadata') {
      const meta = new FieldSet();
      if (c.children)
        for (const [mk, mc] of c.children) if (!STRIPPED_META.includes(mk.slice(2))) meta.setChild(mk, mc);
      if (!meta.isEmpty()) out.setChild(k, meta);
      continue;
    }
    out.setChild(k, c);
  }
  return out;
}

/** Which part of the object a write may change: all of it, all but status (a status subresource), status. */
export type Part = 'main' | 'main-without-status' | 'status';

export interface RecordUpdate {
  live: KubeObject | undefined;
  next: KubeObject;
  /** The managedFields the request carried (undefined: none). */
  requested: Json[] | undefined;
  manager: string;
  apiVersion: string;
  subresource: string;
  part: Part;
  view: TypeView;
  time: string;
}

/**
 * The managedFields after a create, update or patch: the fields the write added or changed become its
 * manager's (an Update entry), and no other manager's; fields it removed are no one's.
 */
export function recordUpdate(w: RecordUpdate): {
  managedFields: Json[] | undefined;
  same: boolean;
} {
  const liveList = w.live?.metadata.managedFields;
  const requested = w.subresource === '' && !sameList(w.requested, liveList) ? w.requested : undefined;
  let managers: Manager[] | undefined;
  let fromLive = false;
  if (requested && isReset(requested)) managers = [];
  else if (requested && requested.length > 0) managers = decodeManagedFields(requested);
  if (!managers) {
    managers = decodeManagedFields(liveList) ?? [];
    fromLive = true;
  }
  let same = false;
  let changed: FieldSet;
  let removed: FieldSet;
  if (!w.live) {
    changed = createdFieldSet(w.next as unknown as JsonObject, w.view, w.part);
    removed = EMPTY;
  } else {
    const c = compare(w.live as unknown as JsonObject, w.next as unknown as JsonObject, w.view);
    same = isSame(c);
    changed = scopeFieldSet(union(c.added, c.modified), w.part);
    removed = scopeFieldSet(c.removed, w.part);
  }
  let out = managers.map((m) => withoutFields(m, changed, removed));
  if (!changed.isEmpty()) {
    const self = identity({
      manager: w.manager,
      operation: 'Update',
      apiVersion: w.apiVersion,
      subresource: w.subresource,
    });
    const prev = out.find((m) => identity(m) === self);
    out = out.filter((m) => m !== prev);
    out.push({
      manager: w.manager,
      operation: 'Update',
      apiVersion: w.apiVersion,
      time: w.time,
      subresource: w.subresource,
      set: prev ? union(prev.set, changed) : changed,
      entry: undefined,
    });
  } else if (fromLive && out.every((m, i) => m === managers[i])) {
    return { managedFields: liveList, same };
  }
  return { managedFields: encodeManagedFields(out), same: false };
}

/** A client that sends back the managedFields it read (a GET, then a PUT) leaves them as they are. */
function sameList(a: Json[] | undefined, b: Json[] | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  return deepEqual(a, b);
}

const EMPTY = new FieldSet();
const CREATED_CACHE_LIMIT = 1000;
const created = new WeakMap<TypeView, Map<string, FieldSet>>();

/**
 * The fields a create sets. Objects created alike (a controller's pods) set the same fields, so the set is
 * kept by the object's shape: its keys, and the keys of its keyed lists, without the values.
 */
function createdFieldSet(obj: JsonObject, view: TypeView, part: Part): FieldSet {
  const out: string[] = [part];
  shapeOf(obj, view, out);
  const key = out.join('');
  let byShape = created.get(view);
  if (!byShape) created.set(view, (byShape = new Map()));
  let set = byShape.get(key);
  if (!set) {
    set = scopeFieldSet(compare(undefined, obj, view).added, part);
    if (byShape.size >= CREATED_CACHE_LIMIT) byShape.clear();
    byShape.set(key, set);
  }
  return set;
}

function shapeOf(v: Json, view: TypeView, out: string[]): void {
  if (v === null) out.push('n');
  else if (Array.isArray(v)) {
    const lt = view.list();
    if (lt.type === 'atomic') {
      out.push(v.length ? 'a' : 'e');
      return;
    }
    out.push('[');
    const iv = view.item();
    for (let i = 0; i < v.length; i++) {
      const item = v[i] as Json;
      out.push(itemKey(lt, item, i), '\u0001');
      if (lt.type === 'map') shapeOf(item, iv, out);
    }
    out.push(']');
  } else if (typeof v === 'object') {
    if (view.atomic()) {
      out.push('.');
      return;
    }
    out.push('{');
    for (const k in v) {
      out.push(k, '\u0001');
      shapeOf(v[k] as Json, view.field(k), out);
    }
    out.push('}');
  } else out.push('.');
}

function withoutFields(m: Manager, changed: FieldSet, removed: FieldSet): Manager {
  const lost = union(intersection(m.set, changed), intersection(m.set, removed));
  if (lost.isEmpty()) return m;
  return { ...m, set: difference(m.set, lost), entry: undefined };
}

/** `[]` and `[{}]` ask for the managedFields to be reset. */
function isReset(list: readonly Json[]): boolean {
  if (list.length === 0) return true;
  const only = list[0];
  return (
    list.length === 1 &&
    typeof only === 'object' &&
    only !== null &&
    !Array.isArray(only) &&
    Object.keys(only).length === 0
  );
}

/** How the API server names a manager in a conflict. */
export function describeManager(m: Manager): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') s += ` using ${m.apiVersion}`;
  return s;
}

export interface Conflict {
  manager: Manager;
  path: string[];
}

/** 409 for an apply that would change other managers' fields, worded as the API server words it. */
export function conflictError(conflicts: readonly Conflict[]): ApiError {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict' as const,
    message: `conflict with ${describeManager(c.manager)}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    const c = conflicts[0] as Conflict;
    message = `Apply failed with 1 conflict: conflict with ${describeManager(c.manager)}: ${pathString(c.path)}`;
  } else {
    const byManager = new Map<string, Conflict[]>();
    for (const c of conflicts) {
      const id = identity(c.manager);
      byManager.set(id, [...(byManager.get(id) ?? []), c]);
    }
    const lines: string[] = [];
    for (const id of [...byManager.keys()].sort()) {
      const cs = byManager.get(id) as Conflict[];
      lines.push(`conflicts with ${describeManager((cs[0] as Conflict).manager)}:`);
      for (const c of cs) lines.push(`- ${pathString(c.path)}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes });
}
