// Pruning of the fields a custom resource's structural schema does not know, as kube-apiserver's
// apiextensions does it (and the field paths it names in `unknown field "spec.foo"`).
import type { Json, JSONSchemaProps } from '../apimachinery/types.ts';
import { childPath, indexPath, OBJECT_META_FIELDS, propOf } from './structural.ts';
import { cloneJson, isObject } from '../apimachinery/json.ts';

/**
 * Returns a copy without fields the schema doesn't know, and their paths (`spec.foo`,
 * `spec.containers[0].foo`), sorted, as kube-apiserver names them in `unknown field "spec.foo"`.
 * Honours x-kubernetes-preserve-unknown-fields (unknown fields kept, known ones still pruned inside) and
 * x-kubernetes-embedded-resource (apiVersion/kind/metadata kept; metadata pruned to ObjectMeta's fields).
 * apiVersion, kind and metadata of the root are never pruned: the server handles ObjectMeta.
 */
export function pruneValue(
  value: Json,
  schema: JSONSchemaProps,
  options: { root?: boolean } = {},
): { value: Json; unknownFields: string[] } {
  const copy = cloneJson(value);
  const unknown: string[] = [];
  pruneNode(copy, schema, '', options.root ?? true, unknown);
  unknown.sort();
  return { value: copy, unknownFields: unknown };
}

function pruneNode(v: Json, s: JSONSchemaProps, path: string, isRoot: boolean, unknown: string[]): void {
  if (Array.isArray(v)) {
    if (s.items)
      v.forEach((item, i) => pruneNode(item, s.items as JSONSchemaProps, indexPath(path, i), false, unknown));
    else if (!s['x-kubernetes-preserve-unknown-fields']) {
      // An array without an items schema is not structural; keep it as is.
    }
    return;
  }
  if (!isObject(v)) return;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const addl = isObject(s.additionalProperties as Json)
    ? (s.additionalProperties as JSONSchemaProps)
    : undefined;
  const allowAny = s.additionalProperties === true;
  for (const key of Object.keys(v)) {
    const p = childPath(path, key);
    if (isRoot && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
    if (embedded && (key === 'apiVersion' || key === 'kind')) continue;
    if (embedded && key === 'metadata') {
      const meta = v[key];
      if (isObject(meta)) {
        for (const mk of Object.keys(meta)) {
          if (!OBJECT_META_FIELDS.has(mk)) {
            unknown.push(childPath(p, mk));
            delete meta[mk];
          }
        }
      }
      continue;
    }
    const prop = propOf(s, key);
    if (prop) pruneNode(v[key] as Json, prop, p, false, unknown);
    else if (addl) pruneNode(v[key] as Json, addl, p, false, unknown);
    else if (!preserve && !allowAny) {
      unknown.push(p);
      delete v[key];
    }
  }
}
