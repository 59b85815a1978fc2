// Step 4's claim: release the pods relabelled out of a PodSet, adopt the matching orphans, announce both.
import type { Span } from '@opentelemetry/api';
import { isNotFound, type Kube, type Pod as WirePod, type PodSet } from '@podset/kube';
import { NAME_LABEL, type Claims } from '@podset/reconcile';
import { executeClaims } from './claim-executor.ts';
import type { Pass } from './controller-api.ts';
import { errorText, ReconcileError, stableReason } from './errors.ts';
import { involvedOf, plural, type EventRecorder } from './events.ts';

export interface ClaimDeps {
  kube: Kube;
  events: EventRecorder;
  /** The controller's step wrapper: a child span per step when tracing is on. */
  step: <T>(name: string, fn: (span: Span | undefined) => Promise<T>) => Promise<T>;
}

/**
 * 4a. Releases the pods it controls that no longer match, adopts the matching orphans (only after a fresh
 * read of the PodSet shows it is the same object and not being deleted), and announces both. The pods to
 * plan from: those it owns and those it just adopted. A refused patch fails the pass, for a fresh read.
 */
export async function claimStep(
  pass: Pass,
  podset: PodSet,
  claims: Claims<WirePod>,
  deps: ClaimDeps,
): Promise<WirePod[]> {
  const { log, signal } = pass;
  signal?.throwIfAborted();
  const adopt = claims.adopt.length > 0 && (await mayAdopt(pass, podset, deps.kube)) ? claims.adopt : [];
  const outcome = await deps.step('claim', () =>
    executeClaims(deps.kube, podset, { release: claims.release, adopt }, signal),
  );
  const involved = involvedOf(podset);
  const selector = `${NAME_LABEL}=${podset.metadata.name}`;
  if (outcome.released.length > 0) {
    const names = outcome.released.join(', ');
    log.info({ released: names }, 'released pods that no longer match the selector');
    await deps.events.record(
      involved,
      'Normal',
      'Released',
      `Released pod${plural(outcome.released.length)} no longer matching ${selector}: ${names}`,
    );
  }
  if (outcome.adopted.length > 0) {
    const names = outcome.adopted.map((p) => p.metadata.name).join(', ');
    log.info({ adopted: names }, 'adopted orphan pods matching the selector');
    await deps.events.record(
      involved,
      'Normal',
      'Adopted',
      `Adopted pod${plural(outcome.adopted.length)}: ${names}`,
    );
  }
  const first = outcome.failed[0];
  if (first !== undefined) {
    throw new ReconcileError(
      'FailedClaim',
      `${outcome.failed.length} pod release or adoption patches refused: ${stableReason(first.error)}`,
      { detail: `${first.name}: ${errorText(first.error)}` },
    );
  }
  return [...claims.owned, ...outcome.adopted];
}

/**
 * Adoption's recheck (client-go's RecheckDeletionTimestamp): a fresh read of the PodSet, not the one
 * planned from, must show the same UID and no deletion, or a pod could be tied to an owner about to go.
 */
async function mayAdopt(pass: Pass, podset: PodSet, kube: Kube): Promise<boolean> {
  const { namespace, name } = pass.ref;
  let fresh: PodSet;
  try {
    fresh = await kube.podSets.get(namespace, name, pass.signal ? { signal: pass.signal } : {});
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
  const same = fresh.metadata.uid === podset.metadata.uid && fresh.metadata.deletionTimestamp === undefined;
  if (!same) pass.log.info('not adopting: the PodSet was deleted or replaced since it was read');
  return same;
}
