// The scale subresource (autoscaling/v1 Scale) of any resource that has one: read from and written into
// the paths its type names (built-in workloads, or a CRD's scale subresource).
import { invalidPatch } from '../apimachinery/type-check.ts';
import {
  ApiError,
  type Json,
  type JsonObject,
  type KubeObject,
  type ResourceType,
} from '../apimachinery/types.ts';
import { badRequest, conflict, invalid, MODIFIED_MSG, notFound } from './rest/errors.ts';
import { getPath, setPath } from './json-paths.ts';
import { isObject } from '../apimachinery/json.ts';
import type { GenericStore } from './store.ts';
import type { WriteOptions } from './rest/write-options.ts';

/** A label selector object (`matchLabels`, `matchExpressions`) as the string form. */
export function labelSelectorString(sel: Json | undefined): string {
  if (typeof sel === 'string') return sel;
  if (!isObject(sel)) return '';
  const parts: string[] = [];
  if (isObject(sel.matchLabels))
    for (const [k, v] of Object.entries(sel.matchLabels)) parts.push(`${k}=${String(v)}`);
  if (Array.isArray(sel.matchExpressions)) {
    for (const e of sel.matchExpressions) {
      if (!isObject(e)) continue;
      const vals = Array.isArray(e.values) ? e.values.map(String).join(',') : '';
      const op = String(e.operator);
      if (op === 'In') parts.push(`${String(e.key)} in (${vals})`);
      else if (op === 'NotIn') parts.push(`${String(e.key)} notin (${vals})`);
      else if (op === 'Exists') parts.push(String(e.key));
      else if (op === 'DoesNotExist') parts.push(`!${String(e.key)}`);
    }
  }
  return parts.join(',');
}

export function scaleOf(t: ResourceType, obj: KubeObject): JsonObject {
  const sc = t.subresources.scale;
  if (!sc) throw notFound(t, obj.metadata.name ?? '');
  const m = obj.metadata;
  const specReplicas = getPath(obj, sc.specReplicasPath);
  const statusReplicas = getPath(obj, sc.statusReplicasPath);
  const selector = sc.labelSelectorPath ? labelSelectorString(getPath(obj, sc.labelSelectorPath)) : '';
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name as string,
      ...(m.namespace ? { namespace: m.namespace } : {}),
      uid: m.uid as string,
      resourceVersion: m.resourceVersion as string,
      creationTimestamp: m.creationTimestamp as string,
    },
    spec: { replicas: typeof specReplicas === 'number' ? specReplicas : 0 },
    status: {
      replicas: typeof statusReplicas === 'number' ? statusReplicas : 0,
      ...(selector ? { selector } : {}),
    },
  };
}

/** Reads `.spec.replicas`-style paths. */
function isInt32(v: Json): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31;
}

/** JSON's name of a value's type, as Go's decoder names it in an error. */
function jsonTypeName(v: Json): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;
}

/** The Scale's spec.replicas, checked as the API server decodes and validates a Scale. */
function scaleReplicas(
  t: ResourceType,
  isCrd: boolean,
  name: string,
  scale: JsonObject,
  opts: WriteOptions,
): number {
  const replicas = isObject(scale.spec) ? scale.spec.replicas : undefined;
  if (replicas !== undefined && replicas !== null && !isInt32(replicas)) {
    // A Scale's spec.replicas is an int32: anything else does not decode.
    const what = typeof replicas === 'number' ? `number ${replicas}` : jsonTypeName(replicas);
    const error = `json: cannot unmarshal ${what} into Go struct field ScaleSpec.spec.replicas of type int32`;
    if (opts.patchShown) throw invalidPatch(opts.patchShown(), error);
    throw new ApiError(400, 'BadRequest', `Scale in version "v1" cannot be handled as a Scale: ${error}`);
  }
  // A built-in kind validates the Scale; a custom resource is validated as itself (its schema's causes and
  // its scale subresource's, see scaleCauses) once the replicas are written into it.
  if (typeof replicas !== 'number' || (replicas < 0 && !isCrd)) {
    const scaleType = { ...t, kind: 'Scale', group: 'autoscaling' };
    throw invalid(scaleType, name, [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.replicas',
        message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`,
      },
    ]);
  }
  return replicas;
}

/** Writes a Scale's replicas into the object; returns the Scale of the object as written. */
export function writeScale(
  api: GenericStore,
  t: ResourceType,
  current: KubeObject,
  scale: Json,
  opts: WriteOptions,
): JsonObject {
  const sc = t.subresources.scale;
  const name = current.metadata.name as string;
  if (!sc) throw notFound(t, name);
  if (!isObject(scale)) throw badRequest('the body of the request is not a JSON object');
  const meta = isObject(scale.metadata) ? scale.metadata : {};
  if (
    typeof meta.resourceVersion === 'string' &&
    meta.resourceVersion &&
    meta.resourceVersion !== current.metadata.resourceVersion
  ) {
    throw conflict(t, name, MODIFIED_MSG);
  }
  const replicas = scaleReplicas(t, api.registry.isCrdType(t), name, scale, opts);
  const next = { ...api.present(t, current) } as unknown as JsonObject;
  setPath(next, sc.specReplicasPath, replicas);
  const updated = api.writeUpdate(
    t,
    current,
    next as unknown as KubeObject,
    { ...opts, subresource: 'scale' },
    'main',
  );
  return scaleOf(t, updated);
}
