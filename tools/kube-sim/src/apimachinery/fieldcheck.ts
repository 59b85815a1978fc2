// Unknown-field detection for built-in kinds (fieldValidation), from the message descriptions kubectl's
// protobuf bodies are decoded with: every field name the API knows, nested through lists, maps and embedded
// structs. Only names are checked (types and values are the business of the kinds' own validation).
import { type Field, INLINE, schema } from './protobuf.ts';
import { KINDS } from './protobuf-schemas.ts';
import type { Json } from './types.ts';

/** Field types with no fields of their own to look into (scalars, and types decoded by their own rules). */
export const LEAF = new Set([
  's',
  'i',
  'b',
  'y',
  'd',
  'f',
  'time',
  'microtime',
  'duration',
  'intstr',
  'quantity',
  'raw',
  'any',
  'ObjectMeta',
]);

const byNameCache = new Map<string, Map<string, Field>>();

/** The JSON field names of a message, with the fields of embedded (inline) structs merged in. */
export function fieldsByName(message: string): Map<string, Field> {
  let m = byNameCache.get(message);
  if (m) return m;
  m = new Map();
  for (const f of schema(message).values()) {
    if ((INLINE.has(f.name) || INLINE.has(`${message}.${f.name}`)) && !LEAF.has(f.type)) {
      for (const [k, v] of fieldsByName(f.type)) m.set(k, v);
    } else {
      m.set(f.name, f);
    }
  }
  byNameCache.set(message, m);
  return m;
}

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Messages that are kinds: in JSON they inline TypeMeta, so an embedded one (a StatefulSet's volumeClaimTemplates) may carry apiVersion and kind. */
const KIND_MESSAGES = new Set(Object.values(KINDS));

function walk(value: Json, type: string, path: string, out: string[]): void {
  if (LEAF.has(type) || !isObject(value)) return;
  const fields = fieldsByName(type);
  for (const [k, v] of Object.entries(value)) {
    const p = path ? `${path}.${k}` : k;
    const f = fields.get(k);
    if (!f && KIND_MESSAGES.has(type) && (k === 'apiVersion' || k === 'kind')) continue;
    if (!f) {
      out.push(p);
      continue;
    }
    if (v === null || LEAF.has(f.type)) continue;
    if (f.map) {
      if (isObject(v)) for (const [key, item] of Object.entries(v)) walk(item, f.type, `${p}.${key}`, out);
    } else if (f.repeated) {
      if (Array.isArray(v)) v.forEach((item, i) => walk(item, f.type, `${p}[${i}]`, out));
    } else {
      walk(v, f.type, p, out);
    }
  }
}

/** Whether kube-sim knows the fields of this built-in kind. */
export function knowsKind(group: string, kind: string): boolean {
  return KINDS[`${group}/${kind}`] !== undefined;
}

/**
 * Paths of the fields a built-in object has that its kind doesn't (`spec.replicass`,
 * `spec.template.spec.containers[0].imagee`); metadata is not looked at. Empty for unknown kinds.
 */
export function unknownBuiltinFields(group: string, kind: string, obj: Record<string, unknown>): string[] {
  const message = KINDS[`${group}/${kind}`];
  if (!message) return [];
  const out: string[] = [];
  const fields = fieldsByName(message);
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind' || k === 'metadata') continue;
    const f = fields.get(k);
    if (!f) {
      out.push(k);
      continue;
    }
    if (v === null || v === undefined || LEAF.has(f.type)) continue;
    if (f.map) {
      if (isObject(v)) for (const [key, item] of Object.entries(v)) walk(item, f.type, `${k}.${key}`, out);
    } else if (f.repeated) {
      if (Array.isArray(v)) (v as Json[]).forEach((item, i) => walk(item, f.type, `${k}[${i}]`, out));
    } else {
      walk(v as Json, f.type, k, out);
    }
  }
  return out;
}
