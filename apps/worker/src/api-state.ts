// The state source that asks the API server every time: GET the PodSet, then a consistent LIST of its
// pods by label (a quorum read, so it shows every write made before it, ours included), keeping those
// it controls and those with no controller (to adopt), and a GET of each pod its status last listed that
// the LIST no longer shows (relabelled out of the selector: to release; gone: 404). It keeps nothing, so
// our own writes need no record.
// Its reads are authoritative: a plan made from them may act at once (no second read to confirm it).
import { isNotFound, type Kube, type Pod } from '@podset/kube';
import { claimablePods, isControlledBy, NAME_LABEL, type PodSet } from '@podset/reconcile';
import type { KeyState, PodSetRef, StateSource } from './state-source.ts';

/** How a read asks the API: consistent (a quorum read), or from the API server's watch cache. */
export type ApiReadMode = 'consistent' | 'cached';

/** The API's state of one key (the PodSet, then its pods when first asked). `cached`: resourceVersion=0. */
export async function readFromApi(
  kube: Kube,
  ref: PodSetRef,
  mode: ApiReadMode,
  signal?: AbortSignal,
): Promise<KeyState> {
  const podset = await getPodSet(kube, ref, mode, signal);
  if (podset === undefined) return { kind: 'gone' };
  let listed: Promise<Pod[]> | undefined;
  return {
    kind: 'found',
    podset,
    authoritative: true,
    pods: () => (listed ??= listClaimablePods(kube, podset, mode, signal)),
  } satisfies KeyState;
}

export function apiState(kube: Kube): StateSource {
  const read = (ref: PodSetRef, signal?: AbortSignal) => readFromApi(kube, ref, 'consistent', signal);
  return {
    read,
    // Never asked: every read of this source is authoritative already.
    confirm: (ref, _why, signal) => read(ref, signal),
    created: async () => {},
    creating: async () => {},
    deleted: async () => {},
    wrote: async () => {},
    conflicted: () => {},
    ended: async () => {},
    forget: async () => 0,
  };
}

const cachedRv = (mode: ApiReadMode) => (mode === 'cached' ? { resourceVersion: '0' } : {});

async function getPodSet(
  kube: Kube,
  ref: PodSetRef,
  mode: ApiReadMode,
  signal?: AbortSignal,
): Promise<PodSet | undefined> {
  const options = { ...cachedRv(mode), ...(signal !== undefined ? { signal } : {}) };
  return await absentOn404(kube.podSets.get(ref.namespace, ref.name, options));
}

/**
 * Pods listed by the status's podNames but no longer by the label are looked up one by one, at most this
 * many per read: after a mass deletion most answer 404, and the rest wait for the next pass.
 */
export const RELEASE_LOOKUPS_PER_READ = 16;

/**
 * By label, then by controller: its own and ownerless ones (a deleted namesake's leftovers never count);
 * then the pods it controlled at its last status write that the label no longer finds, if it still does.
 */
async function listClaimablePods(
  kube: Kube,
  podset: PodSet,
  mode: ApiReadMode,
  signal?: AbortSignal,
): Promise<Pod[]> {
  const list = await kube.pods.listAll(podset.metadata.namespace, {
    labelSelector: `${NAME_LABEL}=${podset.metadata.name}`,
    ...cachedRv(mode),
    ...(signal !== undefined ? { signal } : {}),
  });
  const ps = podset;
  const claimable = claimablePods(ps, list.items);
  // Being deleted, it releases nothing: no need to look for what to release.
  if (podset.metadata.deletionTimestamp !== undefined) return claimable;
  const listed = new Set(list.items.map((p) => p.metadata?.name));
  const missing = (podset.status?.podNames ?? []).filter((n) => !listed.has(n));
  const namespace = podset.metadata.namespace ?? '';
  const found = await Promise.all(
    missing.slice(0, RELEASE_LOOKUPS_PER_READ).map((name) => getPod(kube, namespace, name, mode, signal)),
  );
  for (const p of found) if (p !== undefined && isControlledBy(p, ps)) claimable.push(p);
  return claimable;
}

async function getPod(
  kube: Kube,
  namespace: string,
  name: string,
  mode: ApiReadMode,
  signal?: AbortSignal,
): Promise<Pod | undefined> {
  const options = { ...cachedRv(mode), ...(signal !== undefined ? { signal } : {}) };
  return await absentOn404(kube.pods.get(namespace, name, options));
}

/** What a GET found, or undefined when the API says 404. */
async function absentOn404<T>(got: Promise<T>): Promise<T | undefined> {
  try {
    return await got;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
