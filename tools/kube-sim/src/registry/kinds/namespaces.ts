// Namespaces: the name label and the `kubernetes` finalizer on create; the built-in namespaces cannot be
// deleted; a delete marks the namespace Terminating while a namespace controller empties it, or (without
// one) removes its content at once.
import { ApiError, type KubeObject } from '../../apimachinery/types.ts';
import { timestamp } from '../rest/errors.ts';
import { isObject } from '../../apimachinery/json.ts';
import { resourceId } from '../rest/resources.ts';
import { genericStrategy, type Strategy } from '../rest/strategy.ts';

const PROTECTED_NAMESPACES = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease']);

function specFinalizers(obj: KubeObject): string[] {
  const spec = isObject(obj.spec) ? obj.spec : {};
  return Array.isArray(spec.finalizers) ? spec.finalizers.map(String) : [];
}

export function namespaceStrategy(): Strategy {
  return {
    ...genericStrategy('namespaces'),
    prepareForCreate: (_t, obj) => ({
      ...obj,
      metadata: {
        ...obj.metadata,
        labels: { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name as string },
      },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    }),
    checkDelete: (_t, name) => {
      if (!PROTECTED_NAMESPACES.has(name)) return;
      throw new ApiError(
        403,
        'Forbidden',
        `namespaces "${name}" is forbidden: this namespace may not be deleted`,
        {
          details: { name, kind: 'namespaces' },
        },
      );
    },
    beginDeletion: (obj, finalizers, ctx) => {
      if (!ctx.namespaceController || specFinalizers(obj).length === 0) return undefined;
      return {
        ...obj,
        metadata: {
          ...obj.metadata,
          deletionTimestamp: timestamp(ctx.now()),
          deletionGracePeriodSeconds: 0,
          ...(finalizers.length ? { finalizers } : {}),
        },
        status: { ...(isObject(obj.status) ? obj.status : {}), phase: 'Terminating' },
      };
    },
    readyToRemove: (obj) => specFinalizers(obj).length === 0,
    beforeRemove: (obj, ctx) => {
      const name = obj.metadata.name as string;
      for (const other of ctx.registry.all()) {
        if (!other.namespaced || other.storage === false) continue;
        const oid = resourceId(other);
        for (const r of [...ctx.store.list(oid, name)])
          ctx.store.remove(oid, name, r.obj.metadata.name as string);
      }
    },
  };
}
