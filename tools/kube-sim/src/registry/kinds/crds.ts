// CustomResourceDefinitions: defaults and validation, no group a built-in serves, the status the API server
// keeps (NamesAccepted and Established, storedVersions), and the resources they define served from the
// commit on; a delete leaves the CRD Terminating until the CRD finalizer has deleted its custom resources
// (then the resources stop being served).
import { ApiError, type JsonObject, type KubeObject, type ResourceType } from '../../apimachinery/types.ts';
import { applyCrdDefaults, crdResourceTypes, validateCrd } from '../../apiextensions/schema.ts';
import { invalid, timestamp } from '../rest/errors.ts';
import { isObject } from '../../apimachinery/json.ts';
import { genericStrategy, type Strategy, type StrategyContext } from '../rest/strategy.ts';
import {
  CRD_CLEANUP_FINALIZER,
  customResourceId,
  isTerminating,
  withTerminatingCondition,
} from '../../apiextensions/crd-finalizer.ts';

export const CRD_ID = 'customresourcedefinitions.apiextensions.k8s.io';

/** Refuses a CRD whose resources a built-in serves. */
function checkNotBuiltin(t: ResourceType, obj: KubeObject, ctx: StrategyContext): void {
  for (const ct of crdResourceTypes(obj)) {
    const existing = ctx.registry.lookup(ct.group, ct.version, ct.plural);
    if (existing && !ctx.registry.isCrdType(existing)) {
      throw invalid(t, obj.metadata.name ?? '', [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.group',
          message: `Invalid value: "${ct.group}": is a built-in group`,
        },
      ]);
    }
  }
}

/** The status: conditions True since they first were, storedVersions with the storage version added. */
function crdStatus(obj: KubeObject, nowMs: number): JsonObject {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
  const storage = versions.find((v) => v.storage === true)?.name;
  const now = timestamp(nowMs);
  const oldStatus = isObject(obj.status) ? obj.status : {};
  const stored = new Set<string>(
    Array.isArray(oldStatus.storedVersions) ? oldStatus.storedVersions.map(String) : [],
  );
  if (typeof storage === 'string') stored.add(storage);
  const oldConditions = Array.isArray(oldStatus.conditions) ? oldStatus.conditions.filter(isObject) : [];
  const cond = (type: string, reason: string, message: string): JsonObject => {
    const prev = oldConditions.find((c) => c.type === type && c.status === 'True');
    const since = typeof prev?.lastTransitionTime === 'string' ? prev.lastTransitionTime : now;
    return { type, status: 'True', lastTransitionTime: since, reason, message };
  };
  // Other conditions (Terminating) are the CRD finalizer's: kept.
  const others = oldConditions.filter((c) => c.type !== 'NamesAccepted' && c.type !== 'Established');
  return {
    conditions: [
      cond('NamesAccepted', 'NoConflicts', 'no conflicts found'),
      cond('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
      ...others,
    ],
    acceptedNames: isObject(spec.names) ? spec.names : {},
    storedVersions: [...stored],
  };
}

function prepareCrd(input: KubeObject, ctx: StrategyContext): KubeObject {
  const t = ctx.registry.byResourceId(CRD_ID) as ResourceType;
  const obj = applyCrdDefaults(input);
  const causes = validateCrd(obj);
  if (causes.length) throw invalid(t, obj.metadata.name ?? '', causes);
  checkNotBuiltin(t, obj, ctx);
  return { ...obj, status: crdStatus(obj, ctx.now()) };
}

/**
 * A CRD's deletion, as the API server's CRD registry begins it: the deletionTimestamp, the cleanup finalizer
 * (the CRD finalizer, `apiextensions/crd-finalizer.ts`, deletes the instances, then removes it) and the
 * Terminating condition; the CRD stays, serving its resources, until its instances are gone.
 */
function beginCrdDeletion(obj: KubeObject, finalizers: string[], ctx: StrategyContext): KubeObject {
  const now = timestamp(ctx.now());
  return {
    ...obj,
    metadata: {
      ...obj.metadata,
      deletionTimestamp: now,
      deletionGracePeriodSeconds: 0,
      finalizers: [...new Set([...finalizers, CRD_CLEANUP_FINALIZER])],
    },
    status: withTerminatingCondition(
      obj,
      {
        status: 'True',
        reason: 'InstanceDeletionPending',
        message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
      },
      now,
    ),
  };
}

/** A create of a custom resource whose CRD is terminating: refused, in the API server's words. */
export function refuseCreateWhileTerminating(t: ResourceType, ctx: StrategyContext): void {
  const crd = ctx.store.get(CRD_ID, undefined, `${t.plural}.${t.group}`)?.obj;
  if (!crd || !isTerminating(crd)) return;
  throw new ApiError(
    405,
    'MethodNotAllowed',
    'create not allowed while custom resource definition is terminating',
    {
      details: { group: t.group, kind: t.plural },
    },
  );
}

export function crdStrategy(): Strategy {
  return {
    ...genericStrategy(CRD_ID),
    tracksGeneration: true,
    prepareForCreate: (_t, obj, ctx) => prepareCrd(obj, ctx),
    prepareForUpdate: (_t, next, current, ctx) => prepareCrd({ ...next, status: current.status ?? {} }, ctx),
    afterCommit: (obj, ctx) => ctx.registry.setCrd(obj.metadata.name as string, crdResourceTypes(obj)),
    beginDeletion: (obj, finalizers, ctx) => beginCrdDeletion(obj, finalizers, ctx),
    // Anything the finalizer did not delete (it was removed by hand) goes with the CRD.
    afterRemove: (gone, ctx) => {
      const crId = customResourceId(gone);
      for (const r of [...ctx.store.list(crId)])
        ctx.store.remove(crId, r.obj.metadata.namespace, r.obj.metadata.name as string);
      ctx.registry.removeCrd(gone.metadata.name as string);
    },
  };
}
