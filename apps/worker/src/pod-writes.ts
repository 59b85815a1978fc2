// Step 6: the plan's creates and deletes sent (executor.ts), recorded with the state source and announced
// as Events; what each did comes back for the status.
import { isNotFound, type Kube, type Pod, type PodSet } from '@podset/kube';
import type { Plan } from '@podset/reconcile';
import { PENDING_CREATES_TTL_MS } from '@podset/state';
import type { Pass } from './controller-api.ts';
import { createFailureMessage, errorText, stableReason, type Failure } from './errors.ts';
import { involvedOf, plural, type EventRecorder } from './events.ts';
import { executeCreates, executeDeletes, type BatchRunner } from './executor.ts';
import type { StateSource } from './state-source.ts';

export interface PodWriteDeps {
  kube: Kube;
  state: StateSource;
  events: EventRecorder;
  slowStartBatches: (count: number, burst: number) => number[];
  createBurst: number;
  deleteConcurrency: number;
  inBatch: BatchRunner | undefined;
  /** Milliseconds now (the controller's clock): how long the pass's reserved units have held. */
  now: () => number;
}

/**
 * Made creates are recorded by name between batches once this long has passed since the pass's last
 * record (or its reservation): each record that leaves units renews their hold (PENDING_CREATES_TTL_MS),
 * and a pass on a slow API must not outlive them.
 */
export const RENEW_UNITS_AFTER_MS = PENDING_CREATES_TTL_MS / 2;

/** What a pass's creates or deletes did: the pods' names, and the first failure. */
export interface WritesDone {
  done: string[];
  failure?: Failure;
  /**
   * Creates recorded quiet batch by batch, the pass then not quiet after all: their events may have
   * requested nothing, so the pass itself must ask for the next one.
   */
  withdrawn?: boolean;
}

/**
 * 6a. The plan's creates in slow-start batches, recorded and announced; the pods made, the first failure.
 * `quietAfter`: whether, once all of them went through, a pass that finds them as made has nothing to do
 * (recorded with them, so that their events request none).
 */
export async function createPods(
  pass: Pass,
  podset: PodSet,
  plan: Plan,
  deps: PodWriteDeps,
  quietAfter?: (created: readonly Pod[]) => boolean,
): Promise<WritesDone> {
  if (plan.creates.length === 0) return { done: [] };
  const { ref, log, signal } = pass;
  signal?.throwIfAborted();
  const batches = deps.slowStartBatches(plan.creates.length, deps.createBurst);
  // Noted quiet while the pass may yet be; the last record decides.
  const tentative = quietAfter !== undefined;
  // Reserved before the first batch, one unit per create: a pod's ADDED folded before its name is recorded
  // below is met as awaited, not as a pod nobody awaits (which would request a pass of its own). The records
  // release the units their names and the creates not made leave over, in the same call.
  await deps.state.creating(ref.key, plan.creates.length, tentative);
  let lastRecordAt = deps.now();
  /** Creates recorded by name (their units released or taken): the rest are the error path's to release. */
  let recorded = 0;
  /**
   * The pods made by the batches told so far, in order: the first `recorded` are named; the units stand
   * for the rest until a record names them.
   */
  const madeSoFar: string[] = [];
  /** A record found a unit taken by an ADDED not of this pass (its note then dropped). */
  let overReleased = false;
  // A quiet record keeps the note the reservation made; any other drops it.
  const record = async (names: readonly string[], quiet: boolean, unmade = 0) => {
    const out = await deps.state.created(ref.key, names, quiet ? 'keep' : undefined, { unmade });
    recorded += names.length;
    lastRecordAt = deps.now();
    if (out?.overReleased === true) overReleased = true;
  };
  // The units already meet the made pods' ADDEDs, so names wait for the pass's last record (one round trip
  // a pass, not one a batch), except: before a batch that would leave more than `createBurst` creates made
  // and unnamed — a worker that dies mid-pass leaves no more of them than the one batch under way did when
  // each batch was recorded (a retried pass waits only for named creates; its API read, from the watch
  // cache, may not show the rest yet) — and once the units' hold is half gone (a slow API).
  const afterBatch = async (batch: readonly Pod[], nextBatch: number) => {
    for (const p of batch) madeSoFar.push(p.metadata.name ?? '');
    const tooMany = madeSoFar.length - recorded + nextBatch > deps.createBurst;
    if (!tooMany && deps.now() - lastRecordAt < RENEW_UNITS_AFTER_MS) return;
    await record(madeSoFar.slice(recorded), tentative);
  };
  let outcome: Awaited<ReturnType<typeof executeCreates>>;
  try {
    outcome = await executeCreates(deps.kube, plan.creates, batches, signal, deps.inBatch, afterBatch);
  } catch (err) {
    // Best effort: the pods made and not recorded yet are named (those of a batch under way are not known),
    // the units not yet released go, and the note (a pass that fails is never quiet). If this fails too (Redis
    // away) or the worker dies first, the units only take the requests of ADDEDs not awaited by name until
    // they expire or a relist drops them: no read waits for them, and the job, failed or stalled, is
    // retried by the queue, whose pass plans from what then shows.
    await deps.state
      .created(ref.key, madeSoFar.slice(recorded), undefined, {
        unmade: plan.creates.length - madeSoFar.length,
      })
      .catch(() => undefined);
    throw err;
  }
  const made = outcome.created.map((p) => p.metadata.name ?? '');
  const names = made.join(', ');
  // Logged first, with the names: which reconcile made a pod is otherwise known only from its Event, and
  // recording the expectations below can fail (Redis away).
  if (outcome.created.length > 0) log.info({ created: outcome.created.length, pods: names }, 'created pods');
  // A failed or cancelled create is never quiet: its pass is retried, or the next one must see what is left.
  const quiet =
    outcome.failure === undefined && !outcome.cancelled && (quietAfter?.(outcome.created) ?? false);
  await record(made.slice(recorded), quiet, plan.creates.length - made.length);
  // Noted quiet since the reservation: their events may have requested nothing, so a pass not quiet after
  // all asks for the next one itself — so does one whose units an ADDED not of its own took (another's pod
  // created meanwhile, which this pass did not plan from), its note dropped with its events maybe all in.
  const withdrawn = tentative && made.length > 0 && (!quiet || overReleased);
  // Cancelled: what was created is expected now (above); nothing more of this pass.
  if (outcome.cancelled) signal?.throwIfAborted();
  const involved = involvedOf(podset);
  if (outcome.created.length > 0) {
    await deps.events.record(
      involved,
      'Normal',
      'SuccessfulCreate',
      `Created pod${plural(outcome.created.length)}: ${names}`,
    );
  }
  if (outcome.failure === undefined) return { done: made, ...(withdrawn ? { withdrawn } : {}) };
  // 404: the namespace (and so the PodSet) is gone; syncHandler ends the key.
  if (isNotFound(outcome.failure.error)) throw outcome.failure.error;
  const failure: Failure = {
    reason: 'FailedCreate',
    message: createFailureMessage(outcome.failure, plan.creates.length),
    detail: errorText(outcome.failure.error),
  };
  await deps.events.record(
    involved,
    'Warning',
    'FailedCreate',
    `${failure.message}; the API said: ${failure.detail}`,
  );
  log.warn(
    { failed: outcome.failure.failed, skipped: outcome.skipped, err: errorText(outcome.failure.error) },
    'pod creates failed',
  );
  return { done: made, failure };
}

/**
 * 6b. The plan's deletes, worst first with UID preconditions, recorded and announced: the pods gone, the
 * first failure, and how many the API did not take (gone already, or changed since planned).
 */
export async function deletePods(
  pass: Pass,
  podset: PodSet,
  plan: Plan,
  deps: PodWriteDeps,
): Promise<WritesDone & { notTaken: number }> {
  if (plan.deletes.length === 0) return { done: [], notTaken: 0 };
  const { ref, log, signal } = pass;
  signal?.throwIfAborted();
  const outcome = await executeDeletes(deps.kube, plan.deletes, deps.deleteConcurrency, signal, deps.inBatch);
  await deps.state.deleted(
    ref.key,
    outcome.deleted.map((d) => d.name),
  );
  const involved = involvedOf(podset);
  if (outcome.deleted.length > 0) {
    const names = outcome.deleted.map((d) => d.name).join(', ');
    await deps.events.record(
      involved,
      'Normal',
      'SuccessfulDelete',
      `Deleted pod${plural(outcome.deleted.length)}: ${names}`,
    );
    log.info({ deleted: outcome.deleted.length, alreadyGone: outcome.alreadyGone.length }, 'deleted pods');
  }
  for (const f of outcome.failed.slice(0, 3)) {
    await deps.events.record(
      involved,
      'Warning',
      'FailedDelete',
      `Error deleting pod ${f.deletion.name}: ${errorText(f.error)}`,
    );
  }
  const done = [...outcome.deleted, ...outcome.alreadyGone].map((d) => d.name);
  const notTaken = outcome.alreadyGone.length;
  const first = outcome.failed[0];
  if (first === undefined) return { done, notTaken };
  const n = outcome.failed.length;
  log.warn({ failed: n, err: errorText(first.error) }, 'pod deletes failed');
  const failure: Failure = {
    reason: 'FailedDelete',
    message: `${n} of ${plan.deletes.length} pod deletes failed: ${stableReason(first.error)}`,
    detail: `${first.deletion.name}: ${errorText(first.error)}`,
  };
  return { done, failure, notTaken };
}
