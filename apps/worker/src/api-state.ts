// The state source that asks the API server every time: GET the PodSet, then a consistent LIST of its
// pods by label (a quorum read, so it shows every write made before it, ours included), keeping those
// it controls. It keeps nothing, so our own writes need no record.
// Its reads are authoritative: a plan made from them may act at once (no second read to confirm it).
import { isNotFound, type Kube, type Pod, type PodSetWire } from '@podset/kube';
import { controlledPods, NAME_LABEL } from '@podset/reconcile';
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
    pods: () => (listed ??= listControlledPods(kube, podset, mode, signal)),
  } satisfies KeyState;
}

export function apiState(kube: Kube): StateSource {
  const read = (ref: PodSetRef, signal?: AbortSignal) => readFromApi(kube, ref, 'consistent', signal);
  return {
    read,
    // Never asked: every read of this source is authoritative already.
    confirm: (ref, _why, signal) => read(ref, signal),
    created: async () => {},
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
): Promise<PodSetWire | undefined> {
  try {
    return await kube.podSets.get(ref.namespace, ref.name, {
      ...cachedRv(mode),
      ...(signal !== undefined ? { signal } : {}),
    });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** By label, then by controller owner UID: a deleted namesake's leftovers never count. */
async function listControlledPods(
  kube: Kube,
  podset: PodSetWire,
  mode: ApiReadMode,
  signal?: AbortSignal,
): Promise<Pod[]> {
  const list = await kube.pods.listAll(podset.metadata.namespace, {
    labelSelector: `${NAME_LABEL}=${podset.metadata.name}`,
    ...cachedRv(mode),
    ...(signal !== undefined ? { signal } : {}),
  });
  return controlledPods(podset, list.items);
}
