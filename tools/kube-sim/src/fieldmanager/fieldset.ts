// Sets of field paths, as server-side apply records them in metadata.managedFields (fieldsType FieldsV1).
// A path element is kept in its serialized form: `f:<field>`, `k:<json of the key fields>` (an item of a
// list keyed by fields), `v:<json value>` (an item of a set), `i:<index>`. A node is a member when the path
// up to it is in the set; it may also have children (FieldsV1 writes that as a "." entry).
import type { Json, JsonObject } from '../apimachinery/types.ts';

export class FieldSet {
  member = false;
  children: Map<string, FieldSet> | undefined = undefined;

  child(key: string): FieldSet | undefined {
    return this.children?.get(key);
  }

  /** The child at `key`, created when absent. */
  at(key: string): FieldSet {
    this.children ??= new Map();
    let c = this.children.get(key);
    if (!c) this.children.set(key, (c = new FieldSet()));
    return c;
  }

  setChild(key: string, c: FieldSet): void {
    (this.children ??= new Map()).set(key, c);
  }

  insert(path: readonly string[], from = 0): void {
    if (from === path.length) this.member = true;
    else this.at(path[from] as string).insert(path, from + 1);
  }

  has(path: readonly string[], from = 0): boolean {
    if (from === path.length) return this.member;
    return this.child(path[from] as string)?.has(path, from + 1) ?? false;
  }

  isEmpty(): boolean {
    if (this.member) return false;
    if (this.children) for (const c of this.children.values()) if (!c.isEmpty()) return false;
    return true;
  }

  /** Every member path, members of a node before its children (the order conflicts are reported in). */
  paths(prefix: string[] = [], out: string[][] = []): string[][] {
    if (!this.children) return out;
    const keys = sortedKeys(this.children);
    for (const k of keys) if (this.children.get(k)!.member) out.push([...prefix, k]);
    for (const k of keys) this.children.get(k)!.paths([...prefix, k], out);
    return out;
  }

  equals(o: FieldSet): boolean {
    return JSON.stringify(toFieldsV1(this)) === JSON.stringify(toFieldsV1(o));
  }
}

/** Sets are never changed once built, so a union with an empty set may share the other. */
export function union(a: FieldSet, b: FieldSet): FieldSet {
  if (b.isEmpty()) return a;
  if (a.isEmpty()) return b;
  const out = new FieldSet();
  out.member = a.member || b.member;
  for (const s of [a, b]) {
    if (!s.children) continue;
    for (const [k, c] of s.children) {
      const prev = out.child(k);
      out.setChild(k, prev ? union(prev, c) : c);
    }
  }
  return out;
}

/** `a` without `b`; the parts of `a` that `b` does not touch are shared, not copied. */
export function difference(a: FieldSet, b: FieldSet | undefined): FieldSet {
  if (!b || b.isEmpty()) return a;
  const out = new FieldSet();
  out.member = a.member && !b.member;
  let changed = out.member !== a.member;
  if (a.children) {
    for (const [k, c] of a.children) {
      const bc = b.child(k);
      const d = bc ? difference(c, bc) : c;
      if (d !== c) changed = true;
      if (!d.isEmpty()) out.setChild(k, d);
    }
  }
  return changed ? out : a;
}

export function intersection(a: FieldSet, b: FieldSet): FieldSet {
  const out = new FieldSet();
  out.member = a.member && b.member;
  if (a.children && b.children) {
    const [small, large] = a.children.size <= b.children.size ? [a, b] : [b, a];
    for (const [k, c] of small.children!) {
      const o = large.children!.get(k);
      if (!o) continue;
      const i = intersection(c, o);
      if (!i.isEmpty()) out.setChild(k, i);
    }
  }
  return out;
}

/** Reads FieldsV1 (`{"f:spec":{"f:replicas":{}}}`); throws on a malformed document. */
export function fromFieldsV1(doc: Json): FieldSet {
  const out = new FieldSet();
  read(doc, out);
  return out;
}

function read(doc: Json, into: FieldSet): void {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new Error('FieldsV1 must be an object');
  for (const k of Object.keys(doc)) {
    if (k === '.') {
      into.member = true;
      continue;
    }
    if (!/^[fkvi]:/.test(k)) throw new Error(`invalid path element ${JSON.stringify(k)}`);
    const c = into.at(k);
    const v = doc[k] as Json;
    const empty = typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
    if (empty) c.member = true;
    else read(v, c);
  }
}

const written = new WeakMap<FieldSet, JsonObject>();

/**
 * Writes FieldsV1: path elements in the API server's order, "." first where a node is also a member. Sets
 * never change once built and a union shares the parts it did not change, so each part is written once.
 */
export function toFieldsV1(s: FieldSet): JsonObject {
  let out = written.get(s);
  if (!out) written.set(s, (out = writeFieldsV1(s)));
  return out;
}

function writeFieldsV1(s: FieldSet): JsonObject {
  const out: JsonObject = {};
  if (!s.children) return out;
  for (const k of sortedKeys(s.children)) {
    const c = s.children.get(k)!;
    const body = toFieldsV1(c);
    let hasChildren = false;
    for (const _ in body) {
      hasChildren = true;
      break;
    }
    if (c.member) out[k] = hasChildren ? { '.': {}, ...body } : body;
    else if (hasChildren) out[k] = body;
  }
  return out;
}

const KIND_ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function sortedKeys(m: Map<string, FieldSet>): string[] {
  const keys = [...m.keys()];
  return keys.length < 2 ? keys : keys.sort(comparePathElements);
}

/** Field names sort before keys, keys before values, values before indexes (fieldpath.PathElement.Compare). */
export function comparePathElements(a: string, b: string): number {
  if (a[0] === 'f' && b[0] === 'f') return a < b ? -1 : a > b ? 1 : 0;
  const ka = KIND_ORDER[a[0] as string] ?? 4;
  const kb = KIND_ORDER[b[0] as string] ?? 4;
  if (ka !== kb) return ka - kb;
  const ra = a.slice(2);
  const rb = b.slice(2);
  if (a[0] === 'i') return Number(ra) - Number(rb);
  if (a[0] === 'f') return ra < rb ? -1 : ra > rb ? 1 : 0;
  return compareJson(JSON.parse(ra) as Json, JSON.parse(rb) as Json);
}

const TYPE_ORDER = ['null', 'boolean', 'number', 'string', 'array', 'object'];

function typeIndex(v: Json): number {
  return TYPE_ORDER.indexOf(v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
}

function compareJson(a: Json, b: Json): number {
  const ta = typeIndex(a);
  const tb = typeIndex(b);
  if (ta !== tb) return ta - tb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    // key fields, sorted by name: name, then value, then length
    const ea = Object.entries(a);
    const eb = Object.entries(b);
    for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
      const [na, va] = ea[i]!;
      const [nb, vb] = eb[i]!;
      if (na !== nb) return na < nb ? -1 : 1;
      const c = compareJson(va, vb);
      if (c !== 0) return c;
    }
    return ea.length - eb.length;
  }
  const sa = JSON.stringify(a);
  const sb = JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** A path as the API server prints one in conflicts: `.spec.containers[name="app"].image`. */
export function pathString(path: readonly string[]): string {
  let out = '';
  for (const pe of path) {
    const rest = pe.slice(2);
    switch (pe[0]) {
      case 'f':
        out += `.${rest}`;
        break;
      case 'i':
        out += `[${rest}]`;
        break;
      case 'v':
        out += `[=${valueString(JSON.parse(rest) as Json)}]`;
        break;
      case 'k': {
        const key = JSON.parse(rest) as JsonObject;
        out += `[${Object.keys(key)
          .map((n) => `${n}=${valueString(key[n] as Json)}`)
          .join(',')}]`;
        break;
      }
    }
  }
  return out;
}

/** Key and set values print as JSON: strings quoted, numbers and booleans bare. */
function valueString(v: Json): string {
  return JSON.stringify(v);
}

export const fieldKey = (name: string): string => `f:${name}`;
