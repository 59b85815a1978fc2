// Defaulting of custom resources from their structural schema, as kube-apiserver's apiextensions does it.
import type { Json, JSONSchemaProps } from '../apimachinery/types.ts';
import { propOf } from './structural.ts';
import { isObject } from '../apimachinery/json.ts';

/**
 * Returns a copy with defaults applied, as the API server does on create/update/read: for every object that is
 * present, absent properties with a default get it (deep-copied), then defaulting recurses (also into the
 * defaults just set, into array items and additionalProperties). A null in a non-nullable property is replaced by
 * its default, or dropped when there is none (apiextensions v1 prunes such nulls before defaulting).
 * `metadata` of the resource root is left alone.
 */
export function defaultValue(value: Json, schema: JSONSchemaProps, options: { root?: boolean } = {}): Json {
  const copy = structuredClone(value);
  defaultNode(copy, schema, options.root ?? true);
  return copy;
}

function defaultNode(v: Json, s: JSONSchemaProps, isRoot: boolean): void {
  if (Array.isArray(v)) {
    if (s.items) for (const item of v) defaultNode(item, s.items, false);
    return;
  }
  if (!isObject(v)) return;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const resourceRoot = isRoot || embedded;
  for (const [key, prop] of Object.entries(s.properties ?? {})) {
    if (resourceRoot && key === 'metadata') continue;
    const cur = v[key];
    if (cur === null && !prop.nullable) {
      if (prop.default !== undefined) v[key] = structuredClone(prop.default);
      else delete v[key];
    } else if (cur === undefined && prop.default !== undefined) {
      v[key] = structuredClone(prop.default);
    }
  }
  const addl = isObject(s.additionalProperties as Json)
    ? (s.additionalProperties as JSONSchemaProps)
    : undefined;
  for (const [key, child] of Object.entries(v)) {
    if (resourceRoot && key === 'metadata') continue;
    const prop = propOf(s, key);
    if (prop) defaultNode(child, prop, false);
    else if (addl) {
      if (child === null && !addl.nullable && addl.default !== undefined)
        v[key] = structuredClone(addl.default);
      defaultNode(v[key] as Json, addl, false);
    }
  }
}
