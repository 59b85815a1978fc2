// JSON values as the API server handles them: deep copy, equality, own-property access and the JSON type of a value (patches, schemas, the registry).
import type { Json, JsonObject } from './types.ts';

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep copy of a JSON value (plain objects, arrays, scalars). */
export function cloneJson<T extends Json>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const out: Json[] = new Array<Json>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneJson(v[i]!);
    return out as T;
  }
  const out: JsonObject = {};
  for (const k of Object.keys(v)) {
    const x = v[k];
    if (x !== undefined) setOwn(out, k, cloneJson(x));
  }
  return out as T;
}

/** Freezes a value and everything in it (stored objects, served schemas: shared, never written). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

/** Sets a property even when the key is `__proto__` (JSON keys are data, never prototypes). */
export function setOwn(o: JsonObject, key: string, value: Json): void {
  if (key === '__proto__') {
    Object.defineProperty(o, key, { value, enumerable: true, configurable: true, writable: true });
  } else {
    o[key] = value;
  }
}

export function hasOwn(o: JsonObject, key: string): boolean {
  return Object.hasOwn(o, key);
}

/** Structural equality of JSON values (object key order ignored). */
export function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!hasOwn(b, k) || !deepEqual(a[k], b[k])) return false;
  }
  return true;
}

/** The JSON type of a value, as Go's reflect.TypeOf would tell them apart after decoding. */
export function jsonKind(v: Json | undefined): 'null' | 'object' | 'array' | 'string' | 'number' | 'boolean' {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v as 'object' | 'string' | 'number' | 'boolean';
}
