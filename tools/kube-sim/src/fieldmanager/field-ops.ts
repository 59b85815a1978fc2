// Server-side apply's operations on objects, by their type views: the field set an object (or an applied
// configuration) sets, what changed between two objects, the merge of a configuration into the live object,
// and the removal of fields. The semantics are structured-merge-diff's (typed ToFieldSet, Compare, Merge,
// RemoveItems), written for kube-sim's JSON objects.
import { FieldSet } from './fieldset.ts';
import type { ListType, TypeView } from './field-types.ts';
import { deepEqual } from '../apimachinery/json.ts';
import { ApiError, type Json, type JsonObject } from '../apimachinery/types.ts';

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isEmptyObject = (v: Json | undefined): boolean => isObject(v) && Object.keys(v).length === 0;

/** The path element of a list item: `k:{"name":"app"}` for a keyed list, `v:"x"` for a set. */
export function itemKey(lt: ListType, item: Json, index: number): string {
  if (lt.type === 'set') return `v:${JSON.stringify(item)}`;
  if (lt.type !== 'map') return `i:${index}`;
  if (!isObject(item)) throw listItemError(`expected map, got ${JSON.stringify(item)}`);
  let out = 'k:{';
  for (let i = 0; i < lt.keys.length; i++) {
    const k = lt.keys[i] as string;
    const v = item[k] ?? lt.defaults[k];
    if (v === undefined || v === null) {
      throw listItemError(`associative list with keys has an element that omits key field "${k}"`);
    }
    out += `${i ? ',' : ''}${JSON.stringify(k)}:${JSON.stringify(v)}`;
  }
  return `${out}}`;
}

function listItemError(detail: string): ApiError {
  return new ApiError(
    500,
    'InternalError',
    `Internal error occurred: failed to create typed patch object: ${detail}`,
  );
}

/** The fields a value sets (typed ToFieldSet): leaves, list items, empty objects, keys of maps. */
export function fieldSetOf(value: JsonObject, view: TypeView): FieldSet {
  const out = new FieldSet();
  walkObject(value, view, out);
  return out;
}

function walkValue(v: Json, view: TypeView, node: FieldSet): void {
  if (isObject(v)) {
    if (view.atomic()) node.member = true;
    else walkObject(v, view, node);
  } else if (Array.isArray(v)) {
    const lt = view.list();
    if (lt.type === 'atomic') {
      node.member = true;
      return;
    }
    const iv = view.item();
    for (let i = 0; i < v.length; i++) {
      const item = v[i] as Json;
      const child = node.at(itemKey(lt, item, i));
      child.member = true;
      if (lt.type === 'map') walkValue(item, iv, child);
    }
  } else {
    node.member = true;
  }
}

function walkObject(o: JsonObject, view: TypeView, node: FieldSet): void {
  for (const k of Object.keys(o)) {
    const v = o[k] as Json;
    const child = node.at(`f:${k}`);
    if (v === null || isEmptyObject(v) || !view.named(k)) child.member = true;
    if (v !== null) walkValue(v, view.field(k), child);
  }
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export const isSame = (c: Comparison): boolean =>
  c.added.isEmpty() && c.modified.isEmpty() && c.removed.isEmpty();

/** What changed from `lhs` to `rhs` (typed Compare); `lhs` undefined: everything in `rhs` is added. */
export function compare(lhs: JsonObject | undefined, rhs: JsonObject, view: TypeView): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareFields(lhs, rhs, view, [], c);
  return c;
}

function compareFields(
  l: JsonObject | undefined,
  r: JsonObject | undefined,
  view: TypeView,
  path: string[],
  c: Comparison,
): void {
  // managedFields are the bookkeeping of the fields, never one of them
  const meta = path.length === 1 && path[0] === 'f:metadata';
  if (l) {
    for (const k of Object.keys(l)) {
      if (meta && k === 'managedFields') continue;
      path.push(`f:${k}`);
      compareValue(l[k], r?.[k], view.field(k), path, c);
      path.pop();
    }
  }
  if (r) {
    for (const k of Object.keys(r)) {
      if ((l && Object.hasOwn(l, k)) || (meta && k === 'managedFields')) continue;
      path.push(`f:${k}`);
      compareValue(undefined, r[k], view.field(k), path, c);
      path.pop();
    }
  }
}

function compareValue(
  l: Json | undefined,
  r: Json | undefined,
  view: TypeView,
  path: string[],
  c: Comparison,
): void {
  if (l === r) return; // the same object, or the same scalar: nothing under it changed
  const lo = isObject(l);
  const ro = isObject(r);
  const la = Array.isArray(l);
  const ra = Array.isArray(r);
  let leaf = true;
  if ((lo || l === undefined) && (ro || r === undefined) && !view.atomic()) {
    if (!(isEmptyOrAbsent(l) && isEmptyOrAbsent(r))) {
      leaf = false;
      compareFields(lo ? l : undefined, ro ? r : undefined, view, path, c);
    }
  } else if ((la || l === undefined) && (ra || r === undefined)) {
    const lt = view.list();
    const empty =
      (l === undefined || (l as Json[]).length === 0) && (r === undefined || (r as Json[]).length === 0);
    if (lt.type !== 'atomic' && !empty) {
      leaf = false;
      compareItems(la ? l : [], ra ? r : [], lt, view.item(), path, c);
    }
  }
  if (leaf) {
    if (l === undefined) c.added.insert(path);
    else if (r === undefined) c.removed.insert(path);
    else if (!deepEqual(l, r)) c.modified.insert(path);
    return;
  }
  if (l === undefined && !view.inZeroValue()) c.added.insert(path);
  else if (r === undefined) c.removed.insert(path);
}

function isEmptyOrAbsent(v: Json | undefined): boolean {
  return v === undefined || isEmptyObject(v);
}

function indexItems(list: Json[], lt: ListType): Map<string, Json> {
  const m = new Map<string, Json>();
  for (let i = 0; i < list.length; i++) {
    const item = list[i] as Json;
    const k = itemKey(lt, item, i);
    if (!m.has(k)) m.set(k, item);
  }
  return m;
}

function compareItems(l: Json[], r: Json[], lt: ListType, iv: TypeView, path: string[], c: Comparison): void {
  const li = indexItems(l, lt);
  const ri = indexItems(r, lt);
  for (const [k, lv] of li) {
    path.push(k);
    compareValue(lv, ri.get(k), iv, path, c);
    path.pop();
  }
  for (const [k, rv] of ri) {
    if (li.has(k)) continue;
    path.push(k);
    compareValue(undefined, rv, iv, path, c);
    path.pop();
  }
}

/**
 * The applied configuration merged into the live object (typed Merge): objects field by field, keyed lists
 * and sets item by item (the configuration's order for the items it names, the live order for the others),
 * atomic values replaced. A null in the configuration removes the field.
 */
export function mergeApplied(live: JsonObject, config: JsonObject, view: TypeView): JsonObject {
  return mergeObject(live, config, view);
}

function mergeObject(l: JsonObject, r: JsonObject, view: TypeView): JsonObject {
  const out: JsonObject = { ...l };
  for (const k of Object.keys(r)) {
    const rv = r[k] as Json;
    if (rv === null) {
      delete out[k];
      continue;
    }
    const lv = out[k];
    out[k] = lv === undefined ? rv : mergeValue(lv, rv, view.field(k));
  }
  return out;
}

function mergeValue(l: Json, r: Json, view: TypeView): Json {
  if (isObject(l) && isObject(r) && !view.atomic()) return mergeObject(l, r, view);
  if (Array.isArray(l) && Array.isArray(r)) {
    const lt = view.list();
    if (lt.type !== 'atomic') return mergeItems(l, r, lt, view.item());
  }
  return r;
}

/**
 * Keyed items merged as structured-merge-diff orders them: two cursors, one per list; an item only the live
 * list has is kept where it is, the configuration's items come in its order, and an item both have waits
 * in the live list until the configuration reaches it.
 */
function mergeItems(l: Json[], r: Json[], lt: ListType, iv: TypeView): Json[] {
  const lKeys = l.map((x, i) => itemKey(lt, x, i));
  const rKeys = r.map((x, i) => itemKey(lt, x, i));
  const lByKey = new Map<string, Json>();
  lKeys.forEach((k, i) => lByKey.has(k) || lByKey.set(k, l[i] as Json));
  const inR = new Set(rKeys);
  const shared = rKeys.filter((k) => lByKey.has(k));
  let nextShared = 0;
  const merged = new Set<string>();
  const out: Json[] = [];
  const take = (k: string, rv: Json): void => {
    merged.add(k);
    const lv = lByKey.get(k);
    out.push(lv === undefined || lt.type === 'set' ? rv : mergeValue(lv, rv, iv));
    if (shared[nextShared] === k) nextShared++;
  };
  let li = 0;
  let ri = 0;
  while (li < l.length || ri < r.length) {
    if (li < l.length && ri < r.length) {
      const k = lKeys[li] as string;
      if (k === rKeys[ri]) {
        take(k, r[ri] as Json);
        li++;
        ri++;
        continue;
      }
      if (inR.has(k) && nextShared < shared.length && shared[nextShared] !== k) {
        li++; // an item both have, but not the one the configuration reaches next
        continue;
      }
    }
    if (li < l.length) {
      const k = lKeys[li] as string;
      if (!inR.has(k)) {
        out.push(l[li] as Json);
        li++;
        continue;
      }
      if (merged.has(k)) {
        li++;
        continue;
      }
    }
    if (ri < r.length) {
      const k = rKeys[ri] as string;
      if (!merged.has(k)) take(k, r[ri] as Json);
      ri++;
    }
  }
  return out;
}

/** `obj` without the fields (and list items) that are members of `set` (typed RemoveItems). */
export function removeFields(obj: JsonObject, set: FieldSet, view: TypeView): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(obj)) {
    const v = obj[k] as Json;
    const s = set.child(`f:${k}`);
    if (!s) out[k] = v;
    else if (!s.member) out[k] = removeIn(v, s, view.field(k));
  }
  return out;
}

function removeIn(v: Json, set: FieldSet, view: TypeView): Json {
  if (!set.children) return v;
  if (isObject(v)) return view.atomic() ? v : removeFields(v, set, view);
  if (Array.isArray(v)) {
    const lt = view.list();
    if (lt.type === 'atomic') return v;
    const iv = view.item();
    const out: Json[] = [];
    v.forEach((item, i) => {
      const s = set.child(itemKey(lt, item, i));
      if (!s) out.push(item);
      else if (!s.member) out.push(lt.type === 'map' ? removeIn(item, s, iv) : item);
    });
    return out;
  }
  return v;
}

/**
 * `set` with every declared field that has something under it a member too (EnsureNamedFieldsAreMembers):
 * so that a struct whose fields all go goes as well.
 */
export function withNamedParents(set: FieldSet, view: TypeView): FieldSet {
  const out = new FieldSet();
  out.member = set.member;
  if (!set.children) return out;
  for (const [k, c] of set.children) {
    let cv: TypeView;
    let named = false;
    if (k.startsWith('f:')) {
      const name = k.slice(2);
      cv = view.field(name);
      named = view.named(name);
    } else {
      cv = view.item();
    }
    const x = withNamedParents(c, cv);
    if (named && c.children && c.children.size > 0) x.member = true;
    out.setChild(k, x);
  }
  return out;
}
