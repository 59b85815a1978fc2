// Step 3: a key parked after failing for good waits out its backoff unless its spec changed.
import type { PodSet } from '@podset/kube';
import type { ReconcileResult } from '@podset/queue';
import type { Clock } from '@podset/clock';
import type { Pass } from './controller-api.ts';
import type { Parked, ParkStore } from './park-store.ts';

/** Step 3's answer: wait (parked), or go on — as the parked key's one retry or afresh. */
export type ParkCheck = { wait: ReconcileResult } | { wait?: undefined; retryOfParked: boolean };

/**
 * 3. Parked after failing for good: only a spec change (a new generation) or the end of its backoff lets
 * it try again; any other request (a resync, a pod event) waits, writing nothing.
 */
export async function checkParked(
  pass: Pass,
  podset: PodSet,
  parkedRecord: Promise<Parked | undefined>,
  deps: { parkStore: ParkStore; clock: Pick<Clock, 'now'> },
): Promise<ParkCheck> {
  const { ref, log } = pass;
  const generation = podset.metadata.generation ?? 0;
  const parked = await parkedRecord;
  if (parked === undefined) return { retryOfParked: false };
  // The same PodSet (not a namesake created since) at the same generation.
  const same =
    parked.generation === generation && (parked.uid === undefined || parked.uid === podset.metadata.uid);
  if (!same) {
    log.info(
      { generation, parkedAt: parked.generation, uid: podset.metadata.uid, parkedUid: parked.uid },
      'spec changed or a new PodSet of that name: unparked, backoff reset',
    );
    await deps.parkStore.clear(ref.key);
    return { retryOfParked: false };
  }
  if (deps.clock.now() < parked.until) {
    log.info({ retryAt: new Date(parked.until).toISOString() }, 'parked: waiting out its backoff');
    return { wait: { requeueAfterMs: parked.until - deps.clock.now(), reason: 'Parked' } };
  }
  return { retryOfParked: true };
}
