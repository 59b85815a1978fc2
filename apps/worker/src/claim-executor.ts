// Carries out the claim rules' releases and adoptions (libs/reconcile claim.ts) as JSON patches that hold
// only for the pod as read: each tests the pod's UID (a pod made again under the name is not touched), a
// release also that the reference it removes is still ours, an adoption that the pod is unchanged since read
// (so a controller that claimed it meanwhile is never overwritten). A 404 is nothing to do; any other refusal
// (422 test failed, 409) is for the next pass, from a fresh read.
import { isNotFound, type Kube, type Pod, type PodSet } from '@podset/kube';
import { controllerRefTo } from '@podset/reconcile';

export interface ClaimOutcome {
  released: string[];
  adopted: Pod[];
  failed: { name: string; error: unknown }[];
}

type Op = { op: 'test' | 'add' | 'remove'; path: string; value?: unknown };

function releaseOps(pod: Pod, podset: PodSet): Op[] | undefined {
  const refs = pod.metadata?.ownerReferences ?? [];
  const i = refs.findIndex((r) => r.controller === true && r.uid === podset.metadata.uid);
  if (i < 0) return undefined;
  return [
    { op: 'test', path: '/metadata/uid', value: pod.metadata?.uid },
    { op: 'test', path: `/metadata/ownerReferences/${i}/uid`, value: podset.metadata.uid },
    { op: 'remove', path: `/metadata/ownerReferences/${i}` },
  ];
}

function adoptOps(pod: Pod, podset: PodSet): Op[] {
  const ref = controllerRefTo(podset);
  const has = (pod.metadata?.ownerReferences ?? []).length > 0;
  return [
    { op: 'test', path: '/metadata/uid', value: pod.metadata?.uid },
    { op: 'test', path: '/metadata/resourceVersion', value: pod.metadata?.resourceVersion },
    has
      ? { op: 'add', path: '/metadata/ownerReferences/-', value: ref }
      : { op: 'add', path: '/metadata/ownerReferences', value: [ref] },
  ];
}

/** Releases `release` and adopts `adopt` (already rechecked by the caller), one patch each, in parallel. */
export async function executeClaims(
  kube: Kube,
  podset: PodSet,
  claims: { release: readonly Pod[]; adopt: readonly Pod[] },
  signal?: AbortSignal,
): Promise<ClaimOutcome> {
  const out: ClaimOutcome = { released: [], adopted: [], failed: [] };
  const ns = podset.metadata.namespace;
  const patch = (pod: Pod, ops: Op[]) =>
    kube.pods.patch(ns, pod.metadata?.name ?? '', ops, { type: 'json', ...(signal ? { signal } : {}) });
  const settle = async (pod: Pod, ops: Op[] | undefined, done: (patched: Pod) => void) => {
    if (ops === undefined) return;
    try {
      done(await patch(pod, ops));
    } catch (error) {
      if (!isNotFound(error)) out.failed.push({ name: pod.metadata?.name ?? '', error });
    }
  };
  await Promise.all([
    ...claims.release.map((p) =>
      settle(p, releaseOps(p, podset), () => out.released.push(p.metadata?.name ?? '')),
    ),
    ...claims.adopt.map((p) => settle(p, adoptOps(p, podset), (patched) => out.adopted.push(patched))),
  ]);
  return out;
}
