// Carries out a plan's pod creates and deletes against the API.
//
// Creates go in slow-start batches (1, 2, 4, … up to a burst): each batch runs in parallel, and the first
// batch with a failure ends the pass, so a persistent error (quota, admission webhook) costs a handful of
// calls instead of one per missing pod. A cancelled pass sends no further batch and aborts the creates of
// the one under way (most are still waiting in the client: a 429's Retry-After pause holds every request
// of the process for a second, and a 429 is retried); it reports the pods already made, so that the
// reconcile's expectations cover them. Deletes carry a UID precondition, so a pod that was replaced under
// the same name in the meantime is never touched.
import { isConflict, isNotFound, type Kube, type Pod } from '@podset/kube';
import type { PodDeletion, PodManifest } from '@podset/reconcile';

/**
 * Runs one batch of API calls (tracing on: inside a span named `name` with the batch's size); unset,
 * the batch runs as it is.
 */
export type BatchRunner = <T>(name: string, size: number, run: () => Promise<T>) => Promise<T>;

export interface CreateFailure {
  error: unknown;
  /** How many creates in the failing batch failed (all with the first error's cause, typically). */
  failed: number;
}

export interface CreateOutcome {
  created: Pod[];
  /** The first batch that had failures; undefined when every attempted create succeeded. */
  failure: CreateFailure | undefined;
  /** Creates not attempted because an earlier batch failed or the pass was cancelled. */
  skipped: number;
  /** The pass was cancelled: no batch was sent after that (those sent were answered). */
  cancelled: boolean;
}

/**
 * Create `manifests` in the given batch sizes (their sum must cover manifests.length; extra is ignored).
 * Stops after the first batch with a failure, or before the next batch once `signal` is aborted.
 * `afterBatch` hears of each batch made in full that is not the last one sent, with the next one's size.
 */
export async function executeCreates(
  kube: Kube,
  manifests: readonly PodManifest[],
  batches: readonly number[],
  signal?: AbortSignal,
  inBatch?: BatchRunner,
  afterBatch?: (made: readonly Pod[], nextBatch: number) => Promise<void>,
): Promise<CreateOutcome> {
  const created: Pod[] = [];
  let next = 0;
  const cancelled = () => signal?.aborted === true;
  for (const [i, size] of batches.entries()) {
    if (next >= manifests.length) break;
    if (cancelled()) {
      return { created, failure: undefined, skipped: manifests.length - next, cancelled: true };
    }
    const batch = manifests.slice(next, next + size);
    next += batch.length;
    const run = () =>
      Promise.allSettled(
        batch.map((m) => kube.pods.create(m.metadata.namespace, m, signal ? { signal } : {})),
      );
    const results = await (inBatch === undefined ? run() : inBatch('create batch', batch.length, run));
    const errors: unknown[] = [];
    for (const r of results) {
      if (r.status === 'fulfilled') created.push(r.value);
      else errors.push(r.reason);
    }
    // Cancelled while under way: the aborted creates are not failures of the API.
    if (cancelled()) {
      return { created, failure: undefined, skipped: manifests.length - next, cancelled: true };
    }
    if (errors.length > 0) {
      return {
        created,
        failure: { error: errors[0], failed: errors.length },
        skipped: manifests.length - next,
        cancelled: false,
      };
    }
    // A batch made, more to come: told before the next one is sent.
    const nextBatch = Math.min(batches[i + 1] ?? 0, manifests.length - next);
    if (afterBatch !== undefined && nextBatch > 0) await afterBatch(created.slice(-batch.length), nextBatch);
  }
  // Batch sizes that don't cover everything: the rest is left to the next pass.
  return {
    created,
    failure: undefined,
    skipped: manifests.length - next,
    cancelled: signal?.aborted === true,
  };
}

export interface DeleteOutcome {
  /** Accepted by the API (the pod is now terminating or gone). */
  deleted: PodDeletion[];
  /**
   * Already gone (404), replaced by another pod of that name, or changed since planned (a precondition
   * 409): not deleted, nothing to do now — the change's own event brings the next pass.
   */
  alreadyGone: PodDeletion[];
  failed: { deletion: PodDeletion; error: unknown }[];
}

/** Delete in order, `concurrency` at a time, each with `preconditions: { uid }` (and resourceVersion when planned so). */
export async function executeDeletes(
  kube: Kube,
  deletions: readonly PodDeletion[],
  concurrency: number,
  signal?: AbortSignal,
  inBatch?: BatchRunner,
): Promise<DeleteOutcome> {
  const out: DeleteOutcome = { deleted: [], alreadyGone: [], failed: [] };
  for (let i = 0; i < deletions.length; i += concurrency) {
    signal?.throwIfAborted();
    const batch = deletions.slice(i, i + concurrency);
    const run = () =>
      Promise.allSettled(
        batch.map((d) =>
          kube.pods.delete(d.namespace, d.name, {
            preconditions: {
              uid: d.uid,
              ...(d.resourceVersion !== undefined ? { resourceVersion: d.resourceVersion } : {}),
            },
            ...(signal ? { signal } : {}),
          }),
        ),
      );
    const results = await (inBatch === undefined ? run() : inBatch('delete batch', batch.length, run));
    results.forEach((r, j) => {
      const deletion = batch[j]!;
      if (r.status === 'fulfilled') out.deleted.push(deletion);
      else if (isNotFound(r.reason) || isConflict(r.reason)) out.alreadyGone.push(deletion);
      else out.failed.push({ deletion, error: r.reason });
    });
  }
  return out;
}
