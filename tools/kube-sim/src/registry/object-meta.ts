// ObjectMeta as the generic store writes it: what a create sets, what an update may change, and the
// preconditions (resourceVersion, uid) a write or a delete names.
import { OBJECT_META_FIELDS } from '../apiextensions/structural.ts';
import type {
  DeleteOptions,
  FieldCause,
  KubeObject,
  ObjectMeta,
  ResourceType,
} from '../apimachinery/types.ts';
import { conflict, MODIFIED_MSG, timestamp, uidConflict } from './rest/errors.ts';

/** A new object's metadata: the server's fields set, the writer's kept (`m`: the metadata the body gave). */
export function newObjectMeta(
  m: ObjectMeta,
  labels: ObjectMeta['labels'],
  fields: { name: string; namespace: string | undefined; uid: string; generation: boolean; nowMs: number },
): ObjectMeta {
  return {
    name: fields.name,
    ...(m.generateName ? { generateName: m.generateName } : {}),
    ...(fields.namespace ? { namespace: fields.namespace } : {}),
    uid: fields.uid,
    resourceVersion: '',
    ...(fields.generation ? { generation: 1 } : {}),
    creationTimestamp: timestamp(fields.nowMs),
    ...(labels ? { labels } : {}),
    ...(m.annotations ? { annotations: m.annotations } : {}),
    ...(m.ownerReferences ? { ownerReferences: m.ownerReferences } : {}),
    ...(m.finalizers?.length ? { finalizers: m.finalizers } : {}),
  };
}

/**
 * The metadata of an update: the server's fields from the stored object (`cm`), what a writer may change
 * from the body (`im`), and any field ObjectMeta has not (pruned or reported later).
 */
export function updatedObjectMeta(cm: ObjectMeta, im: ObjectMeta): ObjectMeta {
  const meta: ObjectMeta = {
    name: cm.name,
    ...(cm.generateName ? { generateName: cm.generateName } : {}),
    ...(cm.namespace ? { namespace: cm.namespace } : {}),
    uid: cm.uid,
    resourceVersion: cm.resourceVersion,
    ...(cm.generation !== undefined ? { generation: cm.generation } : {}),
    creationTimestamp: cm.creationTimestamp,
    ...(cm.deletionTimestamp ? { deletionTimestamp: cm.deletionTimestamp } : {}),
    ...(cm.deletionGracePeriodSeconds !== undefined
      ? { deletionGracePeriodSeconds: cm.deletionGracePeriodSeconds }
      : {}),
    ...(im.labels && Object.keys(im.labels).length ? { labels: im.labels } : {}),
    ...(im.annotations && Object.keys(im.annotations).length ? { annotations: im.annotations } : {}),
    ...(im.ownerReferences?.length ? { ownerReferences: im.ownerReferences } : {}),
    ...(im.finalizers?.length ? { finalizers: im.finalizers } : {}),
  };
  for (const k of Object.keys(im))
    if (!OBJECT_META_FIELDS.has(k)) (meta as Record<string, unknown>)[k] = (im as Record<string, unknown>)[k];
  return meta;
}

/** An object being deleted may lose finalizers but gain none. */
export function newFinalizerCauses(cm: ObjectMeta, next: ObjectMeta): FieldCause[] {
  if (!cm.deletionTimestamp) return [];
  const had = new Set(cm.finalizers ?? []);
  const added = (next.finalizers ?? []).filter((f) => !had.has(f));
  if (!added.length) return [];
  return [
    {
      reason: 'FieldValueForbidden',
      field: 'metadata.finalizers',
      message: 'Forbidden: no new finalizers can be added if the object is being deleted',
    },
  ];
}

/** An update's body with a resourceVersion or uid is of that version of that object (409 otherwise). */
export function checkWritePreconditions(t: ResourceType, cm: ObjectMeta, im: ObjectMeta): void {
  const name = cm.name as string;
  if (im.resourceVersion && im.resourceVersion !== cm.resourceVersion) throw conflict(t, name, MODIFIED_MSG);
  if (im.uid && im.uid !== cm.uid) throw uidConflict(t, name, im.uid, cm.uid);
}

/** A delete's preconditions hold (409 otherwise). */
export function checkDeletePreconditions(t: ResourceType, cm: ObjectMeta, options: DeleteOptions): void {
  const name = cm.name as string;
  const pre = options.preconditions;
  if (pre?.uid && pre.uid !== cm.uid) throw uidConflict(t, name, pre.uid, cm.uid);
  if (pre?.resourceVersion && pre.resourceVersion !== cm.resourceVersion) {
    throw conflict(
      t,
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${cm.resourceVersion}`,
    );
  }
}

/** The finalizers a delete leaves: the object's, plus the one its propagation policy needs. */
export function finalizersForPolicy(
  cm: ObjectMeta,
  options: DeleteOptions & { orphanDependents?: boolean },
): string[] {
  let policy = options.propagationPolicy;
  if (!policy && options.orphanDependents === true) policy = 'Orphan';
  const finalizers = [...(cm.finalizers ?? [])];
  if (policy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
  if (policy === 'Foreground' && !finalizers.includes('foregroundDeletion'))
    finalizers.push('foregroundDeletion');
  return finalizers;
}

/** The object marked as being deleted: its deletion timestamp `graceSeconds` from now. */
export function markedForDeletion(
  obj: KubeObject,
  graceSeconds: number,
  nowMs: number,
  finalizers?: string[],
): KubeObject {
  return {
    ...obj,
    metadata: {
      ...obj.metadata,
      deletionTimestamp: timestamp(nowMs + graceSeconds * 1000),
      deletionGracePeriodSeconds: graceSeconds,
      ...(finalizers?.length ? { finalizers } : {}),
    },
  };
}
