// Defaulting of custom resources from their structural schema, as kube-apiserver's apiextensions does it.
import type { Json, JSONSchemaProps } from '../apimachinery/types.ts';
import { propOf } from './structural.ts';
import { cloneJson, isObject } from '../apimachinery/json.ts';

/**
 * The properties of a schema that have a default. A served schema is frozen (stored CRDs are), so its list
 * is worked out once; walking every property of a pod template's schema for each write cost more than the
 * rest of defaulting.
 */
const withDefaults = new WeakMap<JSONSchemaProps, [string, JSONSchemaProps][]>();

function defaultedProps(s: JSONSchemaProps): [string, JSONSchemaProps][] {
  const known = withDefaults.get(s);
  if (known !== undefined) return known;
  const list = Object.entries(s.properties ?? {}).filter(([, prop]) => prop.default !== undefined);
  if (Object.isFrozen(s) && (s.properties === undefined || Object.isFrozen(s.properties)))
    withDefaults.set(s, list);
  return list;
}

/**
 * Returns a copy with defaults applied, as the API server does on create/update/read: for every object that is
 * present, absent properties with a default get it (deep-copied), then defaulting recurses (also into the
 * defaults just set, into array items and additionalProperties). A null in a non-nullable property is replaced by
 * its default, or dropped when there is none (apiextensions v1 prunes such nulls before defaulting).
 * `metadata` of the resource root is left alone.
 */
export function defaultValue(value: Json, schema: JSONSchemaProps, options: { root?: boolean } = {}): Json {
  return defaultOwnCopy(cloneJson(value), schema, options);
}

/**
 * defaultValue on a value the caller owns and nobody else holds (a copy it just made, e.g. by pruning):
 * defaulted in place, without another copy. A resource root's `metadata` is neither read nor written.
 */
export function defaultOwnCopy(value: Json, schema: JSONSchemaProps, options: { root?: boolean } = {}): Json {
  defaultNode(value, schema, options.root ?? true);
  return value;
}

function defaultNode(v: Json, s: JSONSchemaProps, isRoot: boolean): void {
  if (Array.isArray(v)) {
    if (s.items) for (const item of v) defaultNode(item, s.items, false);
    return;
  }
  if (!isObject(v)) return;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const resourceRoot = isRoot || embedded;
  // A null in a non-nullable property: its default, or dropped. Only the value's own keys can hold one.
  for (const key of Object.keys(v)) {
    if (v[key] !== null || (resourceRoot && key === 'metadata')) continue;
    const prop = propOf(s, key);
    if (prop === undefined || prop.nullable) continue;
    if (prop.default !== undefined) v[key] = cloneJson(prop.default);
    else delete v[key];
  }
  for (const [key, prop] of defaultedProps(s)) {
    if (resourceRoot && key === 'metadata') continue;
    if (v[key] === undefined) v[key] = cloneJson(prop.default!);
  }
  const addl = isObject(s.additionalProperties as Json)
    ? (s.additionalProperties as JSONSchemaProps)
    : undefined;
  for (const [key, child] of Object.entries(v)) {
    if (resourceRoot && key === 'metadata') continue;
    const prop = propOf(s, key);
    if (prop) defaultNode(child, prop, false);
    else if (addl) {
      if (child === null && !addl.nullable && addl.default !== undefined) v[key] = cloneJson(addl.default);
      defaultNode(v[key] as Json, addl, false);
    }
  }
}
