// The queue gave up on a key: ReplicaFailure and a Warning Event on the PodSet, and the key parked.
import type { Kube } from '@podset/kube';
import type { ReconcileResult } from '@podset/queue';
import type { Clock } from '@podset/clock';
import type { Logger } from '@podset/log';
import type { SyncContext } from './controller-api.ts';
import { detailOf, errorText, reasonOf, ReconcileError } from './errors.ts';
import { involvedOf, type EventRecorder } from './events.ts';
import type { ParkStore } from './park-store.ts';
import { podSetRef } from './state-source.ts';
import { markReplicaFailure } from './status-writer.ts';

export interface FinalFailureDeps {
  kube: Kube;
  events: EventRecorder;
  log: Logger;
  parkStore: ParkStore;
  clock: Pick<Clock, 'now'>;
  parkedRetryMs: number;
}

/** The queue gave up on this key: ReplicaFailure with the reason in the PodSet's status, and a Warning Event. */
export async function onFinalFailure(
  key: string,
  error: unknown,
  partial: Partial<SyncContext>,
  deps: FinalFailureDeps,
): Promise<ReconcileResult> {
  const { namespace, name } = podSetRef(key);
  const log = deps.log.child({
    podset: key,
    reconcileId: partial.reconcileId,
    jobId: partial.jobId,
    attempt: partial.attempt,
  });
  const reason = reasonOf(error);
  const message = errorText(error);
  const retryInS = Math.round(deps.parkedRetryMs / 1000);
  log.error({ reason, err: message, retryInS }, 'reconcile failed for good; parking the key');
  let generation = error instanceof ReconcileError ? error.generation : undefined;
  let uid: string | undefined;
  try {
    const podset = await markReplicaFailure(deps.kube, namespace, name, reason, message, deps.clock);
    if (podset === undefined) return {}; // gone: nothing to park
    generation = podset.metadata.generation ?? 0;
    uid = podset.metadata.uid;
    await deps.events.record(
      involvedOf(podset),
      'Warning',
      'ReconcileFailed',
      `${reason}: ${message}${detailOf(error)}; next attempt in ${retryInS}s unless the spec changes`,
    );
  } catch (err) {
    log.error({ err: errorText(err) }, 'could not record the final failure on the PodSet');
  }
  // Unknown generation (the API did not answer): not parked, so the next real event retries it.
  if (generation === undefined) return {};
  await deps.parkStore.park(key, {
    ...(uid !== undefined ? { uid } : {}),
    generation,
    until: deps.clock.now() + deps.parkedRetryMs,
  });
  return { requeueAfterMs: deps.parkedRetryMs, reason: 'Parked' };
}
