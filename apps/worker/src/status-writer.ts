// PodSet status through the status subresource, with optimistic concurrency: the PUT carries the
// resourceVersion that was read, so a concurrent change gives 409 and the caller re-reads and re-plans.
// Nothing here ever retries a write with a fresher resourceVersion blindly (that would overwrite).
import { isConflict, isNotFound, type Kube, type PodSet } from '@podset/kube';
import { API_VERSION, KIND, statusEqual, withFailure, type PodSetStatus } from '@podset/reconcile';
import { systemClock, type Clock } from '@podset/clock';

/** PUT …/status with `podset`'s resourceVersion. Throws KubeApiError (409 on a stale read). */
export async function writeStatus(
  kube: Kube,
  podset: PodSet,
  status: PodSetStatus,
  signal?: AbortSignal,
): Promise<PodSet> {
  const { namespace, name } = podset.metadata;
  if (namespace === undefined || name === undefined) throw new Error('PodSet without namespace/name');
  return kube.podSets.replaceStatus(
    namespace,
    name,
    {
      apiVersion: podset.apiVersion ?? API_VERSION,
      kind: podset.kind ?? KIND,
      metadata: { ...podset.metadata },
      ...(podset.spec !== undefined ? { spec: podset.spec } : {}),
      status,
    },
    signal !== undefined ? { signal } : {},
  );
}

/**
 * After the last attempt failed: put ReplicaFailure=True with the reason into the PodSet's status.
 * Re-reads on 409 (a few times); a PodSet that is gone is fine. Returns the PodSet written, or undefined.
 */
export async function markReplicaFailure(
  kube: Kube,
  namespace: string,
  name: string,
  reason: string,
  message: string,
  clock: Pick<Clock, 'now'> = systemClock,
): Promise<PodSet | undefined> {
  for (let attempt = 0; attempt < 5; attempt++) {
    let podset: PodSet;
    try {
      podset = await kube.podSets.get(namespace, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    const status = withFailure(podset.status ?? {}, reason, message.slice(0, 1000), new Date(clock.now()));
    // Already says so (an earlier attempt's pass wrote it): no write, so a parked key costs no status churn.
    if (statusEqual(status, podset.status)) return podset;
    try {
      return await writeStatus(kube, podset, status);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      if (!isConflict(err)) throw err;
    }
  }
  throw new Error(`could not write ReplicaFailure on ${namespace}/${name}: conflicts on every attempt`);
}
