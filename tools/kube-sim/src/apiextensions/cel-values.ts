// Values as CEL sees them: a JSON value converted by its schema (ints, doubles, timestamps, durations,
// bytes), with property names escaped as the API server escapes them.
import { parse } from '@marcbachmann/cel-js';
import type { Json, JSONSchemaProps } from '../apimachinery/types.ts';
import { propOf } from './structural.ts';
import { isObject } from '../apimachinery/json.ts';

const CEL_RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/**
 * The name under which a property is visible in CEL, as the API server escapes it: `namespace` →
 * `__namespace__`, `foo-bar` → `foo__dash__bar`, `a.b` → `a__dot__b`, `a/b` → `a__slash__b`, `__` →
 * `__underscores__`. Undefined when it cannot be escaped (it starts with a digit or has other characters):
 * such a property is not visible to rules.
 */
export function celEscape(name: string): string | undefined {
  if (name === '' || /^[0-9]/.test(name)) return undefined;
  if (CEL_RESERVED.has(name)) return `__${name}__`;
  let ok = true;
  const escaped = name.replace(/__|[-./]|[^a-zA-Z0-9_]/g, (m) => {
    switch (m) {
      case '__':
        return '__underscores__';
      case '.':
        return '__dot__';
      case '-':
        return '__dash__';
      case '/':
        return '__slash__';
      default:
        ok = false;
        return '';
    }
  });
  return ok ? escaped : undefined;
}

const durationOf = parse('duration(s)');

/** A string of a `format` CEL gives a type of its own: date-time and date → timestamp, duration, byte → bytes. */
function formatted(v: string, format: string): unknown {
  switch (format) {
    case 'date-time': {
      const ms = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/.test(v) ? Date.parse(v.replace(' ', 'T')) : NaN;
      return Number.isNaN(ms) ? v : new Date(ms);
    }
    case 'date': {
      const ms = /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : NaN;
      return Number.isNaN(ms) ? v : new Date(ms);
    }
    case 'duration':
      try {
        return durationOf({ s: v }) as unknown;
      } catch {
        return v;
      }
    case 'byte':
      return new Uint8Array(Buffer.from(v, 'base64'));
    default:
      return v;
  }
}

export function embedded(s: JSONSchemaProps | undefined): boolean {
  return s?.['x-kubernetes-embedded-resource'] === true;
}

export function additional(s: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  return s && isObject(s.additionalProperties as Json)
    ? (s.additionalProperties as JSONSchemaProps)
    : undefined;
}

/**
 * A JSON value converted for CEL by its schema: under `type: integer` (and an integer of an int-or-string)
 * a BigInt (CEL int), under `type: number` a JS number (CEL double) even when integral, formatted strings as
 * above. Objects with properties show those properties only (escaped names); maps all their keys; a
 * resource root (the object, or an embedded resource) also its apiVersion, kind and metadata.name and
 * generateName. Where there is no schema, integral numbers are ints (as Go decodes JSON) and objects are maps.
 */
export function toCel(v: Json, s: JSONSchemaProps | undefined, resourceRoot = false): unknown {
  if (v === null || typeof v === 'boolean') return v;
  if (typeof v === 'number') return s?.type === 'number' || !Number.isInteger(v) ? v : BigInt(v);
  if (typeof v === 'string') return s?.type === 'string' && s.format ? formatted(v, s.format) : v;
  if (Array.isArray(v)) return v.map((x) => toCel(x, s?.items, embedded(s?.items)));
  const out = Object.create(null) as Record<string, unknown>;
  const rootField = (k: string) => resourceRoot && (k === 'apiVersion' || k === 'kind' || k === 'metadata');
  if (resourceRoot) {
    if (typeof v.apiVersion === 'string') out.apiVersion = v.apiVersion;
    if (typeof v.kind === 'string') out.kind = v.kind;
    const meta = v.metadata;
    if (isObject(meta)) {
      const m = Object.create(null) as Record<string, unknown>;
      for (const k of ['name', 'generateName']) if (typeof meta[k] === 'string') m[k] = meta[k];
      out.metadata = m;
    }
  }
  const addl = additional(s);
  for (const [k, x] of Object.entries(v)) {
    if (rootField(k)) continue;
    if (s?.properties) {
      const prop = propOf(s, k);
      const name = celEscape(k);
      if (prop && name !== undefined) out[name] = toCel(x, prop, embedded(prop));
    } else if (addl) {
      out[k] = toCel(x, addl, embedded(addl));
    } else {
      out[k] = toCel(x, undefined);
    }
  }
  return out;
}
