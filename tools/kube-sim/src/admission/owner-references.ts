// The OwnerReferencesPermissionEnforcement admission plugin (OpenShift enables it by default): whoever sets
// an ownerReference must be allowed to delete the object, and whoever sets blockOwnerDeletion=true must be
// allowed to update the owner's `finalizers` subresource, since a blocking reference can hold the owner's
// foreground deletion back.
import type { KindLookup } from './attributes.ts';
import { ApiError, type KubeObject, type ResourceType } from '../apimachinery/types.ts';
import type { AdmissionPlugin, Authorize } from './attributes.ts';

interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

function refsOf(obj: KubeObject | undefined): OwnerReference[] {
  const refs = obj?.metadata.ownerReferences;
  return Array.isArray(refs) ? (refs as OwnerReference[]) : [];
}

const sameRef = (a: OwnerReference, b: OwnerReference): boolean =>
  a.uid === b.uid &&
  a.apiVersion === b.apiVersion &&
  a.kind === b.kind &&
  a.name === b.name &&
  !!a.controller === !!b.controller &&
  !!a.blockOwnerDeletion === !!b.blockOwnerDeletion;

function refsChanged(next: KubeObject, current: KubeObject | undefined): boolean {
  const a = refsOf(next);
  const b = refsOf(current);
  return a.length !== b.length || a.some((r, i) => !sameRef(r, b[i] as OwnerReference));
}

/** References that block their owner's deletion now and did not before (by uid), as the plugin counts them. */
function newlyBlocking(next: KubeObject, current: KubeObject | undefined): OwnerReference[] {
  const blockedBefore = new Set(
    refsOf(current)
      .filter((r) => r.blockOwnerDeletion === true)
      .map((r) => r.uid),
  );
  return refsOf(next).filter((r) => r.blockOwnerDeletion === true && !blockedBefore.has(r.uid));
}

function forbidden(t: ResourceType, name: string, why: string): ApiError {
  const what = `${t.plural}${t.group ? '.' + t.group : ''}${name ? ` "${name}"` : ''}`;
  return new ApiError(403, 'Forbidden', `${what} is forbidden: ${why}`, {
    details: { ...(name ? { name } : {}), group: t.group, kind: t.plural },
  });
}

/** The type an ownerReference names (a RESTMapping), or undefined when no served version has that kind. */
function ownerType(registry: KindLookup, ref: OwnerReference): ResourceType | undefined {
  const [group, version] = (ref.apiVersion ?? '').includes('/')
    ? (ref.apiVersion as string).split('/')
    : ['', ref.apiVersion ?? ''];
  return registry.typesIn(group ?? '', version ?? '').find((t) => t.kind === ref.kind);
}

/**
 * Throws 403 when the writer may not set the ownerReferences of `next` (a create when `current` is
 * undefined). `ns` is the object's namespace: an owner is in it, or cluster-scoped.
 */
function admitOwnerReferences(
  registry: KindLookup,
  authorize: Authorize,
  t: ResourceType,
  ns: string | undefined,
  next: KubeObject,
  current: KubeObject | undefined,
): void {
  // The pod status writes of the kubelet are exempt in the plugin; the status subresource never changes
  // metadata here, so only writes of the main resource come this way.
  if (!refsChanged(next, current)) return;
  const name = String(next.metadata.name ?? '');
  try {
    authorize({ verb: 'delete', group: t.group, resource: t.plural, subresource: '', namespace: ns, name });
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 403)) throw e;
    throw forbidden(t, name, `cannot set an ownerRef on a resource you can't delete: ${e.message}`);
  }
  for (const ref of newlyBlocking(next, current)) {
    const owner = ownerType(registry, ref);
    if (!owner) {
      throw forbidden(
        t,
        name,
        `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${ref.apiVersion ?? ''} Kind ${ref.kind ?? ''}`,
      );
    }
    try {
      authorize({
        verb: 'update',
        group: owner.group,
        resource: owner.plural,
        subresource: 'finalizers',
        namespace: owner.namespaced ? ns : undefined,
        name: ref.name,
      });
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 403)) throw e;
      throw forbidden(
        t,
        name,
        `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${e.message}`,
      );
    }
  }
}

/**
 * The plugin: judges the writes of a requester. kube-sim's own in-process writes have none and pass, as the
 * controller manager's writes pass upstream (it may delete and finalize anything).
 */
export function ownerReferencesPlugin(registry: KindLookup): AdmissionPlugin {
  return {
    name: 'OwnerReferencesPermissionEnforcement',
    validate: (a) => {
      if (!a.requester) return;
      const ns = a.object.metadata.namespace;
      admitOwnerReferences(registry, a.requester.authorize, a.resource, ns, a.object, a.oldObject);
    },
  };
}
