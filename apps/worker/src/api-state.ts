// The state source that asks the API server every time: GET the PodSet, then a consistent LIST of its
// pods by label (a quorum read, so it shows every write made before it, ours included), keeping those
// it controls. It keeps nothing, so our own writes need no record.
import { isNotFound, type Kube, type Pod, type PodSetWire } from '@podset/kube';
import { controlledPods, NAME_LABEL } from '@podset/reconcile';
import type { KeyState, PodSetRef, StateSource } from './state-source.ts';

export function apiState(kube: Kube): StateSource {
  return {
    async read(ref, signal) {
      const podset = await getPodSet(kube, ref, signal);
      if (podset === undefined) return { kind: 'gone' };
      let listed: Promise<Pod[]> | undefined;
      return {
        kind: 'found',
        podset,
        pods: () => (listed ??= listControlledPods(kube, podset, signal)),
      } satisfies KeyState;
    },
    created: async () => {},
    deleted: async () => {},
    wrote: async () => {},
    conflicted: () => {},
    forget: async () => 0,
  };
}

async function getPodSet(kube: Kube, ref: PodSetRef, signal?: AbortSignal): Promise<PodSetWire | undefined> {
  try {
    return await kube.podSets.get(ref.namespace, ref.name, signal !== undefined ? { signal } : {});
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** By label, then by controller owner UID: a deleted namesake's leftovers never count. */
async function listControlledPods(kube: Kube, podset: PodSetWire, signal?: AbortSignal): Promise<Pod[]> {
  const list = await kube.pods.listAll(podset.metadata.namespace, {
    labelSelector: `${NAME_LABEL}=${podset.metadata.name}`,
    ...(signal !== undefined ? { signal } : {}),
  });
  return controlledPods(podset, list.items);
}
