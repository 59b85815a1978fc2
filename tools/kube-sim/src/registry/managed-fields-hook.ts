// The field manager's hook in every write: metadata.managedFields as after the write.
import type { Json, KubeObject, ObjectMeta, ResourceType } from '../apimachinery/types.ts';
import { typeViewOf } from '../fieldmanager/field-types.ts';
import { recordUpdate } from '../fieldmanager/managed-fields.ts';
import { timestamp } from './rest/errors.ts';
import { apiVersionOf } from './rest/resources.ts';
import type { WriteOptions, WritePart } from './rest/write-options.ts';

export interface Ownership {
  metadata: ObjectMeta;
  /** The write was compared with the live object, and nothing changed (a no-op). */
  same: boolean;
  /** The write was compared with the live object (so the objects need not be serialized to tell). */
  compared: boolean;
}

/**
 * `next`'s metadata with managedFields as after the write: the apply's own, or this write's changes
 * recorded (`requested`: the managedFields the body carried).
 */
export function withOwnership(
  t: ResourceType,
  isCrd: boolean,
  live: KubeObject | undefined,
  next: KubeObject,
  requested: Json[] | undefined,
  opts: WriteOptions,
  part: WritePart,
  nowMs: number,
): Ownership {
  let mf = opts.managedFields;
  let same = false;
  let compared = false;
  if (!mf) {
    try {
      ({ managedFields: mf, same } = recordUpdate({
        live,
        next,
        requested,
        manager: opts.fieldManager ?? 'kube-sim',
        apiVersion: apiVersionOf(t),
        subresource: part === 'status' ? 'status' : (opts.subresource ?? ''),
        part: part === 'status' ? 'status' : t.subresources.status ? 'main-without-status' : 'main',
        view: typeViewOf(t, isCrd),
        time: timestamp(nowMs),
      }));
      compared = true;
    } catch {
      // As the API server: a write never fails over its managedFields; the live ones are kept.
      mf = live?.metadata.managedFields;
    }
  }
  const { managedFields: _old, ...meta } = next.metadata;
  return { metadata: mf && mf.length ? { ...meta, managedFields: mf } : meta, same, compared };
}
