// CustomResourceDefinitions: defaults and validation, no group a built-in serves, the status the API server
// keeps (NamesAccepted and Established, storedVersions), and the resources they define served from the
// commit on (and removed, with every custom resource, when the CRD goes).
import type { JsonObject, KubeObject, ResourceType } from '../../apimachinery/types.ts';
import { applyCrdDefaults, crdResourceTypes, validateCrd } from '../../apiextensions/schema.ts';
import { invalid, timestamp } from '../errors.ts';
import { isObject } from '../../apimachinery/json.ts';
import { genericStrategy, type Strategy, type StrategyContext } from '../strategy.ts';

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
  return {
    conditions: [
      cond('NamesAccepted', 'NoConflicts', 'no conflicts found'),
      cond('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
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

export function crdStrategy(): Strategy {
  return {
    ...genericStrategy(CRD_ID),
    tracksGeneration: true,
    prepareForCreate: (_t, obj, ctx) => prepareCrd(obj, ctx),
    prepareForUpdate: (_t, next, current, ctx) => prepareCrd({ ...next, status: current.status ?? {} }, ctx),
    afterCommit: (obj, ctx) => ctx.registry.setCrd(obj.metadata.name as string, crdResourceTypes(obj)),
    afterRemove: (gone, ctx) => {
      const spec = isObject(gone.spec) ? gone.spec : {};
      const names = isObject(spec.names) ? spec.names : {};
      const crId = `${String(names.plural)}.${String(spec.group)}`;
      for (const r of [...ctx.store.list(crId)])
        ctx.store.remove(crId, r.obj.metadata.namespace, r.obj.metadata.name as string);
      ctx.registry.removeCrd(gone.metadata.name as string);
    },
  };
}
