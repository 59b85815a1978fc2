// What a custom resource with a scale subresource must satisfy on every write, besides its schema (as
// apiextensions-apiserver's validator checks it): the replicas at specReplicasPath and statusReplicasPath
// are non-negative int32 integers, the selector at labelSelectorPath a string. Each cause names the path as
// the CRD writes it (`.spec.replicas`, leading dot included).
import type { FieldCause, Json, ScaleSubresource } from '../apimachinery/types.ts';

const INT32_MAX = 2 ** 31 - 1;

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value at a `.a.b` path, and whether something on the way was not an object (the accessor's error). */
function lookup(obj: unknown, path: string): { value: Json | undefined; found: boolean } {
  let cur: unknown = obj;
  for (const part of path.replace(/^\./, '').split('.')) {
    if (!isObject(cur) || !(part in cur)) return { value: undefined, found: false };
    cur = cur[part];
  }
  return { value: cur as Json, found: true };
}

/** Go's %T of an unstructured value. */
function goType(v: Json): string {
  if (Array.isArray(v)) return '[]interface {}';
  if (isObject(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

function replicasCauses(obj: unknown, path: string): FieldCause[] {
  const { value, found } = lookup(obj, path);
  if (!found || value === null || value === undefined) return [];
  const cause = (shown: string, detail: string): FieldCause => ({
    reason: 'FieldValueInvalid',
    field: path,
    message: `Invalid value: ${shown}: ${detail}`,
  });
  if (typeof value !== 'number' || !Number.isInteger(value))
    return [
      cause('0', `${path} accessor error: ${String(value)} is of the type ${goType(value)}, expected int64`),
    ];
  if (value < 0) return [cause(String(value), 'should be a non-negative integer')];
  if (value > INT32_MAX) return [cause(String(value), `should be less than or equal to ${INT32_MAX}`)];
  return [];
}

/** The causes a custom resource's scale subresource adds to its schema's (none when the values are fine). */
export function scaleCauses(obj: unknown, scale: ScaleSubresource): FieldCause[] {
  const causes = [
    ...replicasCauses(obj, scale.specReplicasPath),
    ...replicasCauses(obj, scale.statusReplicasPath),
  ];
  if (scale.labelSelectorPath) {
    const { value, found } = lookup(obj, scale.labelSelectorPath);
    if (found && value !== null && value !== undefined && typeof value !== 'string') {
      causes.push({
        reason: 'FieldValueInvalid',
        field: scale.labelSelectorPath,
        message: `Invalid value: "": ${scale.labelSelectorPath} accessor error: ${String(value)} is of the type ${goType(value)}, expected string`,
      });
    }
  }
  return causes;
}
