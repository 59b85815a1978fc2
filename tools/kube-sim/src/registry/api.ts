// The API of the registry, as the handlers and in-process controllers call it: the generic store's verbs
// (store.ts) for every resource, patch, and the subresources that are not plain updates (scale, pods/binding,
// pods/eviction).
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../patch/patch.ts';
import { patchShown, refuseUndecodablePatch } from '../apimachinery/type-check.ts';
import {
  ApiError,
  type Json,
  type JsonObject,
  type KubeObject,
  type ResourceType,
} from '../apimachinery/types.ts';
import { notFound } from './rest/errors.ts';
import { bindPod, evictPod } from './pod-subresources.ts';
import { checkBody, nameMismatch } from './request-body.ts';
import { scaleOf, writeScale } from './scale.ts';
import { GenericStore } from './store.ts';
import type { WriteOptions } from './rest/write-options.ts';

// What api.ts exported before the generic store and the strategies left it, for the importers elsewhere.
export { labelSelectorString } from './scale.ts';
export { getPath } from './json-paths.ts';
export {
  conflict,
  invalid,
  notFound,
  qualifiedKind,
  timestamp,
  tooLargeResourceVersion,
} from './rest/errors.ts';
export type { ListQuery, ListResult, ObjectFilter } from './list.ts';
export type { FieldValidation, WriteOptions } from './rest/write-options.ts';

type PatchTarget = '' | 'status' | 'scale';

/** The patched object: `base` with the patch applied as its content type says (415 for a type not served). */
function applyPatch(
  base: Json,
  contentType: string,
  patchBody: unknown,
  kind: string,
  isCrd: boolean,
  subresource: PatchTarget,
): Json {
  const ct = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (ct === 'application/merge-patch+json') return applyMergePatch(base, patchBody as Json);
  if (ct === 'application/json-patch+json') return applyJsonPatch(base, patchBody as Json);
  if (ct === 'application/strategic-merge-patch+json' && !isCrd && subresource !== 'scale')
    return applyStrategicMergePatch(base, patchBody as Json, kind);
  if (ct === 'application/strategic-merge-patch+json' && subresource === 'scale')
    return applyMergePatch(base, patchBody as Json);
  throw new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json${isCrd ? '' : ', application/strategic-merge-patch+json'}`,
  );
}

export class Api extends GenericStore {
  patch(
    t: ResourceType,
    ns: string | undefined,
    name: string,
    contentType: string,
    patchBody: unknown,
    subresource: PatchTarget,
    opts: WriteOptions = {},
  ): KubeObject | JsonObject {
    const rec = this.getRec(t, ns, name);
    const isCrd = this.registry.isCrdType(t);
    const base: Json =
      subresource === 'scale'
        ? (scaleOf(t, rec.obj) as unknown as Json)
        : (this.present(t, rec.obj) as unknown as Json);
    const patched = applyPatch(base, contentType, patchBody, t.kind, isCrd, subresource);
    const ct = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    const strategic =
      ct === 'application/strategic-merge-patch+json' && subresource !== 'scale'
        ? { patch: patchBody as Json }
        : undefined;
    opts = { ...opts, patchShown: () => patchShown(patched, strategic) };
    if (subresource === 'scale') return writeScale(this, t, rec.obj, patched, opts);
    if (!isCrd) refuseUndecodablePatch(t, patched, strategic);
    const obj = checkBody(t, patched);
    if (obj.metadata.name !== name) throw nameMismatch(obj.metadata.name, name);
    if (subresource === 'status' && !t.subresources.status) throw notFound(t, name);
    return this.writeUpdate(t, rec.obj, obj, opts, subresource === 'status' ? 'status' : 'main');
  }

  /** pods/binding: assigns a node (409 if the pod already has one). */
  bind(ns: string, name: string, body: unknown, opts: WriteOptions = {}): KubeObject {
    return bindPod(this, ns, name, body, opts);
  }

  /** pods/eviction: a delete with the Eviction's deleteOptions (no disruption budgets are checked). */
  evict(ns: string, name: string, body: unknown, opts: WriteOptions = {}): void {
    evictPod(this, ns, name, body, opts);
  }

  getScale(t: ResourceType, ns: string | undefined, name: string): JsonObject {
    if (!t.subresources.scale) throw notFound(t, name);
    return scaleOf(t, this.getRec(t, ns, name).obj);
  }

  updateScale(
    t: ResourceType,
    ns: string | undefined,
    name: string,
    body: unknown,
    opts: WriteOptions = {},
  ): JsonObject {
    if (!t.subresources.scale) throw notFound(t, name);
    return writeScale(this, t, this.getRec(t, ns, name).obj, body as Json, opts);
  }
}
