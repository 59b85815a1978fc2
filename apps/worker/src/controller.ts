// The PodSet controller: what one reconcile does, read top to bottom (after kubernetes/sample-controller).
//
//   syncHandler(key)                         one key at a time (libs/queue); a 409 on our write → tell the
//                                            state source, then back to 1 (a few rounds), never overwrite;
//                                            another UID there → the key ends (a new object, its own events)
//     1. readState       the PodSet and the pods it controls, from the StateSource chosen at start-up
//                        (state-source.ts: the API, or the watcher's projection)    gone → done;
//                        our own last creates/deletes not shown yet → look again shortly
//        (2 and 4)       a plan that would create or delete, or remove the finalizer, made from the
//                        projection, is made again from the API's read and only that one acts; 404 or
//                        another UID there, or a 404 on any write → the key ends (its kept state
//                        forgotten, nothing retried)
//     2. finalize        being deleted → delete its pods (none when orphaning); once they are gone,
//                        forget its finished jobs, event-log entries and kept state (best effort),
//                        remove podset.io/cleanup → done (forget-traces.ts)
//     3. checkParked     failed for good before, spec unchanged → wait out its backoff (park-check.ts)
//    4a. revisions       the spec moved on → its ControllerRevisions brought up to date (revisions.ts:
//                        a new PodSet's first by a create alone, otherwise from an API read); paused →
//                        planned with the current revision's template
//     4. claim, plan     release pods relabelled out of it, adopt matching orphans (claim-step.ts;
//                        from an API read, adoption after a fresh GET of the PodSet), then
//                        plan = reconcile(podset, pods, now)                  libs/reconcile, pure
//     5. addFinalizer    podset.io/cleanup, if missing, so that a deletion waits for our cleanup; with
//                        it, in the same patch, the podset.io/revision annotation 4a left to write
//     6. createPods, deletePods
//                        slow-start batches; worst first with UID preconditions (executor.ts);
//                        each recorded with the state source (pod-writes.ts)
//     7. updateStatus    only when changed; a 409 → back to 1 (status-writer.ts)
//     8. finish          the plan's Events; then a ReconcileError for the queue to retry (a TerminalError
//                        when it was a parked key's one retry), or the plan's requeue-after
//   onFinalFailure(key)  the last attempt failed → ReplicaFailure condition + Warning Event, park the key:
//                        one attempt per parkedRetryMs until the spec changes (final-failure.ts)
import { randomUUID } from 'node:crypto';
import { isConflict, isNotFound, type Kube, type Pod as WirePod } from '@podset/kube';
import { TerminalError, type ReconcileResult } from '@podset/queue';
import type { ExecutionOutcome, Plan, PlannedEvent, PodSet, PodSetStatus } from '@podset/reconcile';
import {
  CLEANUP_FINALIZER,
  NAME_LABEL,
  REVISION_ANNOTATION,
  claimPods,
  revisionsMayBeStale,
  specProblem,
  unlistedPodNames,
} from '@podset/reconcile';
import { inSpan } from '@podset/runtime';
import { trace, type Span, type Tracer } from '@opentelemetry/api';
import type { Logger } from '@podset/log';
import { apiState } from './api-state.ts';
import { claimStep } from './claim-step.ts';
import {
  DEFAULT_PARKED_RETRY_MS,
  type Controller,
  type ControllerDeps,
  type ControllerOptions,
  type KeyEndReason,
  type Pass,
  type Planner,
  type SyncContext,
} from './controller-api.ts';
import { onFinalFailure } from './final-failure.ts';
import { forgetTraces } from './forget-traces.ts';
import { checkParked } from './park-check.ts';
import { createPods, deletePods, type PodWriteDeps } from './pod-writes.ts';
import { ReconcileError, type Failure } from './errors.ts';
import { involvedOf, type EventRecorder } from './events.ts';
import type { BatchRunner } from './executor.ts';
import { HistoryMarks, syncRevisions, type RevisionSync } from './revisions.ts';
import { memoryParkStore, type Parked, type ParkStore } from './park-store.ts';
import { podSetRef, type ConfirmReason, type KeyState, type StateSource } from './state-source.ts';
import { writeStatus } from './status-writer.ts';
import { systemClock, type Clock } from '@podset/clock';

export { CLEANUP_FINALIZER, NAME_LABEL, ReconcileError };
export {
  DEFAULT_PARKED_RETRY_MS,
  type Controller,
  type ControllerDeps,
  type ControllerOptions,
  type KeyEndReason,
  type Planner,
  type SyncContext,
} from './controller-api.ts';

export function createController(deps: ControllerDeps): Controller {
  return new PodSetController(deps);
}

/** The steps of one reconcile, each a method; syncHandler runs them in order. */
class PodSetController implements Controller {
  private readonly kube: Kube;
  private readonly planner: Planner;
  private readonly events: EventRecorder;
  private readonly options: ControllerOptions;
  private readonly log: Logger;
  private readonly clock: Pick<Clock, 'now'>;

  private now(): Date {
    return new Date(this.clock.now());
  }
  private readonly state: StateSource;
  private readonly parkStore: ParkStore;
  private readonly cleanup: ((key: string) => Promise<object | void>) | undefined;
  private readonly createBurst: number;
  private readonly deleteConcurrency: number;
  private readonly maxConflictRounds: number;
  private readonly cleanupTimeoutMs: number;
  private readonly parkedRetryMs: number;
  private readonly tracer: Tracer | undefined;
  private readonly onKeyEnded: ((reason: KeyEndReason) => void) | undefined;
  private readonly inBatch: BatchRunner | undefined;
  private readonly historyMarks = new HistoryMarks();

  constructor(deps: ControllerDeps) {
    const options = deps.options;
    this.kube = deps.kube;
    this.planner = deps.planner;
    this.events = deps.events;
    this.options = options;
    this.log = deps.log;
    this.clock = deps.clock ?? systemClock;
    this.state = deps.state ?? apiState(deps.kube);
    this.parkStore = deps.parkStore ?? memoryParkStore();
    this.cleanup = deps.cleanup;
    this.createBurst = options.createBurst;
    this.deleteConcurrency = options.deleteConcurrency ?? options.createBurst;
    this.maxConflictRounds = options.maxConflictRounds ?? 3;
    this.cleanupTimeoutMs = options.cleanupTimeoutMs ?? 10_000;
    this.parkedRetryMs = options.parkedRetryMs ?? DEFAULT_PARKED_RETRY_MS;
    this.tracer = deps.tracer;
    this.onKeyEnded = deps.onKeyEnded;
    const tracer = deps.tracer;
    this.inBatch =
      tracer === undefined
        ? undefined
        : (name, size, run) => inSpan(tracer, name, { 'podset.batch.size': size }, run);
  }

  /** One step of a reconcile: a child span with tracing on, else just the step. */
  #step<T>(name: string, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
    return this.tracer === undefined ? fn(undefined) : inSpan(this.tracer, name, {}, fn);
  }

  /**
   * One reconcile. Our writes to the PodSet are conditional (resourceVersion): a 409 means it changed
   * since we read it, so we read it again and plan again, a few times, never overwriting.
   */
  async syncHandler(key: string, partial: Partial<SyncContext> = {}): Promise<ReconcileResult> {
    const reconcileId = partial.reconcileId ?? randomUUID().slice(0, 8);
    const log = this.log.child({ podset: key, reconcileId, jobId: partial.jobId, attempt: partial.attempt });
    const span = this.tracer === undefined ? undefined : trace.getActiveSpan();
    const pass: Pass = { ref: podSetRef(key), log, signal: partial.signal, span };
    const started = this.clock.now();
    for (let round = 1; ; round++) {
      try {
        const result = await this.#syncOnce(pass);
        log.info(
          {
            ms: this.clock.now() - started,
            requeueAfterMs: result.requeueAfterMs,
            requeueReason: result.reason,
          },
          'reconciled',
        );
        return result;
      } catch (err) {
        if (isConflict(err) && round < this.maxConflictRounds) {
          log.info({ round }, 'conflict: the PodSet changed since we read it; re-reading and re-planning');
          this.state.conflicted(key);
          continue;
        }
        if (isConflict(err)) {
          throw new ReconcileError('Conflict', `${key} kept changing: ${round} conflicts in a row`);
        }
        // A 404 on any write (the PodSet's status or finalizer, a pod create in a namespace gone).
        if (isNotFound(err)) return this.#endKey(pass, 'NotFound');
        throw err;
      }
    }
  }

  /** Steps 1 to 8, once. */
  async #syncOnce(pass: Pass): Promise<ReconcileResult> {
    const { ref, log } = pass;
    pass.signal?.throwIfAborted();

    // The parked record (step 3) is asked for beside the state read, not after it: one round trip to
    // Redis per reconcile instead of two in a row. Unused when the read says gone or wait.
    const parkedRecord = this.parkStore.get(ref.key);
    parkedRecord.catch(() => undefined); // awaited (and its error thrown) in step 3 only

    // 1. The PodSet and its pods. Gone → done; our own writes not shown yet → look again shortly.
    const read = await this.#step('state read', () => this.state.read(ref, pass.signal));
    if (read.kind === 'gone') {
      log.info('podset gone; nothing to do');
      await this.parkStore.clear(ref.key);
      return {};
    }
    if (read.kind === 'wait') {
      log.info({ reason: read.reason }, read.message);
      return { requeueAfterMs: read.afterMs, reason: read.reason };
    }
    // Read again after a 409 (from the API: the state source's read after a conflict is the API's),
    // another UID means the PodSet we wrote to was deleted and made again under its name: a new object,
    // not a newer version of ours. Its creation came after our first read, so its own event requests a
    // reconcile of it; this pass ends the old one's key and creates nothing owned by either.
    const uid = read.podset.metadata.uid;
    if (pass.uid !== undefined && uid !== pass.uid) return this.#endKey(pass, 'UIDMismatch');
    pass.uid = uid;
    return this.#syncFrom(pass, read, parkedRecord);
  }

  /**
   * Steps 2 to 8 from one read. A plan that would create or delete pods, made from a read that is not the
   * API's (the projection in Redis), is not carried out: the key is read from the API and planned again,
   * and only that plan acts. Redis decides whether to act; the API decides what.
   */
  async #syncFrom(
    pass: Pass,
    read: FoundState,
    parkedRecord: Promise<Parked | undefined>,
  ): Promise<ReconcileResult> {
    const { log } = pass;
    let podset = read.podset;
    pass.span?.setAttribute('podset.generation', podset.metadata.generation ?? 0);

    // 2. Being deleted → delete its pods, forget its traces, then let it go. Letting it go is decided
    // from the API too: a projection that hides the pods, or shows a live PodSet as being deleted, would
    // otherwise remove the finalizer before its pods are gone, or of a PodSet nobody deleted.
    if (podset.metadata.deletionTimestamp !== undefined) {
      const pods = await this.#step('state read pods', () => read.pods());
      const plan = this.#planFor(podset, pods);
      if (!read.authoritative && actsOnPods(plan)) return this.#fromApi(pass, read, parkedRecord, 'acting');
      if (!read.authoritative && plan.finalizer === 'remove') {
        return this.#fromApi(pass, read, parkedRecord, 'finalizer');
      }
      return this.#finalize(pass, podset, plan);
    }

    // 3. Parked after failing for good: wait out its backoff unless the spec changed.
    const parked = await checkParked(pass, podset, parkedRecord, {
      parkStore: this.parkStore,
      clock: this.clock,
    });
    if (parked.wait !== undefined) return parked.wait;

    // 4a. The revision history, when the spec says it may be behind: brought up to date from the API's
    // read only. A read from the projection needs none when this worker did it for this spec already,
    // unless paused: the pods' template is then the current revision's, which only the API read gives.
    let planned = podset;
    let annotate: number | undefined;
    if (revisionsMayBeStale(podset) && specProblem(podset) === undefined) {
      if (read.authoritative) ({ planned, annotate } = await this.#syncRevisions(pass, podset));
      else if (podset.spec?.paused === true || !this.historyMarks.has(pass.ref.key, podset)) {
        return this.#fromApi(pass, read, parkedRecord, 'acting');
      }
    }

    // 4. The plan (libs/reconcile: pure) from the pods it controls — once those relabelled out of it are
    // released and matching orphans adopted (claim.ts), which only a read from the API may do. The
    // projection lists pods by label: one relabelled out is simply missing there, so a pod the last
    // status listed that the projection lacks is looked up in the API too.
    let pods = await this.#step('state read pods', () => read.pods());
    const claims = claimPods(podset, pods);
    const toClaim = claims.release.length + claims.adopt.length > 0;
    if (!read.authoritative && (toClaim || unlistedPodNames(podset, pods).length > 0)) {
      return this.#fromApi(pass, read, parkedRecord, 'acting');
    }
    if (toClaim)
      pods = await claimStep(pass, podset, claims, {
        kube: this.kube,
        events: this.events,
        step: this.#step.bind(this),
      });
    const plan =
      this.tracer === undefined ? this.#planFor(planned, pods) : await this.#tracedPlan(pass, planned, pods);
    log.debug(
      {
        pods: pods.length,
        creates: plan.creates.length,
        deletes: plan.deletes.length,
        statusChanged: plan.statusChanged,
        authoritative: read.authoritative,
      },
      'planned',
    );
    if (actsOnPods(plan) && !read.authoritative) return this.#fromApi(pass, read, parkedRecord, 'acting');

    // 5. Our finalizer before any pod exists, so that a deletion waits for our cleanup; the revision
    // annotation in the same patch, so that a new PodSet costs one metadata write.
    if (plan.finalizer === 'add') podset = await this.#addFinalizer(pass, podset, annotate);
    else if (annotate !== undefined) podset = await this.#annotateRevision(pass, podset, annotate);

    // 6. Creates in slow-start batches, then deletes worst first with UID preconditions.
    // A create-only pass whose creates leave a pass nothing to do says so with its expectations.
    const made = podset;
    const quietAfter =
      plan.deletes.length === 0
        ? (created: readonly WirePod[]) => this.#nothingAfter(planned, made, pods, plan, created)
        : undefined;
    const creates = await createPods(pass, podset, plan, this.#podWrites(), quietAfter);
    const deletes = await deletePods(pass, podset, plan, this.#podWrites());
    const failure = creates.failure ?? deletes.failure;

    // 7. Status, counting the pods as the API now holds them, only when it changed (a 409 here goes back
    // to 1).
    await this.#updateStatus(pass, podset, plan, {
      ...(failure !== undefined ? { failure: { reason: failure.reason, message: failure.message } } : {}),
      created: creates.done,
      deleted: deletes.done,
    });

    // 8. The planner's Events; then a retry, or when to look again (by when the read must be checked, at
    // the latest). Creates noted quiet and then withdrawn may have requested nothing: look again at once.
    const result = recheckBy(await this.#finish(pass, podset, plan, failure, parked.retryOfParked), read);
    return creates.withdrawn === true ? { requeueAfterMs: 0, reason: 'MoreWork' } : result;
  }

  /**
   * Whether the pass after this one's creates (all made, no deletes), finding them as made and the status
   * this pass writes (step 7, from the same outcome), would do nothing: plan no create, delete, finalizer
   * or Event, write no status, and look again no sooner than this pass asks. Only then may their watch
   * events request no reconcile. If the status write then fails, the job fails and is retried (a 409 is
   * re-planned at once), so that pass still comes.
   */
  #nothingAfter(
    planned: PodSet,
    podset: PodSet,
    pods: readonly WirePod[],
    plan: Plan,
    created: readonly WirePod[],
  ): boolean {
    const now = this.now();
    const current = podset.status as PodSetStatus | undefined;
    const names = created.map((p) => p.metadata.name ?? '');
    const settled = this.planner.settle(plan, current, { created: names, deleted: [] }, now);
    const status = settled.write ? settled.status : current;
    const next = this.#planFor({ ...planned, metadata: podset.metadata, status } as PodSet, [
      ...pods,
      ...created,
    ]);
    if (actsOnPods(next) || next.finalizer !== null || next.events.length > 0) return false;
    if (this.planner.settle(next, status, {}, now).write) return false;
    const asked = resultOf(plan).requeueAfterMs;
    const after = resultOf(next).requeueAfterMs;
    return after === undefined || (asked !== undefined && asked <= after);
  }

  /**
   * The plan from the projection would act (`why`): read the key from the API and plan again from that.
   * Gone there, or another object of that name (another UID), ends the key: nothing is created for a
   * PodSet the API no longer has (its owner reference would be dead, and the garbage collector would
   * delete the pods as fast as they are made).
   */
  async #fromApi(
    pass: Pass,
    seen: FoundState,
    parkedRecord: Promise<Parked | undefined>,
    why: ConfirmReason,
  ): Promise<ReconcileResult> {
    const truth = await this.#step('api read', () => this.state.confirm(pass.ref, why, pass.signal));
    if (truth.kind !== 'found') return this.#endKey(pass, 'NotFound');
    if (truth.podset.metadata.uid !== seen.podset.metadata.uid) return this.#endKey(pass, 'UIDMismatch');
    return this.#syncFrom(pass, truth, parkedRecord);
  }

  /**
   * The API no longer has the PodSet this reconcile was about (404 on the read or on a write, or another
   * UID): forget what is kept of the key and do nothing more. Not a retry: a PodSet made again under the
   * name brings its own events.
   */
  async #endKey(pass: Pass, reason: KeyEndReason): Promise<ReconcileResult> {
    pass.log.info({ reason }, 'the API no longer has this PodSet: key ended, nothing more is done for it');
    this.onKeyEnded?.(reason);
    await Promise.all([this.state.ended(pass.ref.key), this.parkStore.clear(pass.ref.key)]);
    return {};
  }

  /**
   * 2. The PodSet is being deleted: remove its pods, then (once every delete went through and none is
   * left) its traces, then our finalizer.
   */
  async #finalize(pass: Pass, podset: PodSet, plan: Plan): Promise<ReconcileResult> {
    const { ref, log } = pass;
    const { failure, notTaken } = await deletePods(pass, podset, plan, this.#podWrites());
    await this.#recordAll(podset, plan.events);
    if (failure !== undefined) {
      throw new ReconcileError(failure.reason, failure.message, {
        ...(failure.detail !== undefined ? { detail: failure.detail } : {}),
      });
    }
    // A delete the API refused as stale (409: the pod changed since read, maybe freed by an orphaning
    // delete) or found gone: the finalizer waits for a fresh read to show what is left.
    if (plan.finalizer === 'remove' && notTaken > 0) {
      log.info({ notTaken }, 'cleanup: some pods changed since read; reading again');
      return { requeueAfterMs: 0, reason: 'MoreWork' };
    }
    if (plan.finalizer !== 'remove') {
      log.info({ requeueAfterMs: plan.requeue?.afterMs }, 'cleanup in progress');
      return resultOf(plan);
    }
    await forgetTraces(pass, {
      cleanup: this.cleanup,
      state: this.state,
      cleanupTimeoutMs: this.cleanupTimeoutMs,
    });
    await this.#removeFinalizer(podset);
    await this.parkStore.clear(ref.key);
    log.info('cleanup done; finalizer removed');
    return {};
  }

  /** 4a. Revisions brought up to date; marked done here only once no annotation is left to write (5). */
  async #syncRevisions(pass: Pass, podset: PodSet): Promise<RevisionSync> {
    const synced = await this.#step('revisions', () =>
      syncRevisions(this.kube, podset, pass.log, pass.signal),
    );
    if (synced.annotate === undefined) this.historyMarks.set(pass.ref.key, podset);
    return synced;
  }

  /** 5, the finalizer there already: the revision annotation 4a left, alone (conditional: a 409). */
  async #annotateRevision(pass: Pass, podset: PodSet, revision: number): Promise<PodSet> {
    const patched = await this.#step('annotate revision', () =>
      this.#patchMetadata(podset, { annotations: { [REVISION_ANNOTATION]: String(revision) } }),
    );
    await this.state.wrote(pass.ref.key, patched);
    this.historyMarks.set(pass.ref.key, patched);
    return patched;
  }

  /** 4. The planner's plan for the pods the PodSet controls. */
  #planFor(podset: PodSet, pods: readonly WirePod[]): Plan {
    return this.planner.reconcile(podset, pods, this.now(), this.options.reconcile);
  }

  /** 4, tracing on: the plan in a span of its own, its counts on it and on the reconcile's span. */
  #tracedPlan(pass: Pass, podset: PodSet, pods: readonly WirePod[]): Promise<Plan> {
    return this.#step('plan', async (span) => {
      const plan = this.#planFor(podset, pods);
      const counts = {
        'podset.pods': pods.length,
        'podset.plan.create': plan.creates.length,
        'podset.plan.delete': plan.deletes.length,
      };
      span?.setAttributes(counts);
      pass.span?.setAttributes(counts);
      return plan;
    });
  }

  /**
   * 5. Adds podset.io/cleanup, and the revision annotation 4a left to write if any; the resourceVersion in
   * the merge patch makes it conditional (409).
   */
  async #addFinalizer(pass: Pass, podset: PodSet, revision?: number): Promise<PodSet> {
    const finalizers = [...otherFinalizers(podset), CLEANUP_FINALIZER];
    await this.state.writingInputs?.(pass.ref.key, { ...podset.metadata, finalizers });
    const patched = await this.#step('add finalizer', () =>
      revision === undefined
        ? this.#patchFinalizers(podset, finalizers)
        : this.#patchMetadata(podset, {
            finalizers,
            annotations: { [REVISION_ANNOTATION]: String(revision) },
          }),
    );
    await this.state.wrote(pass.ref.key, patched);
    pass.log.info('added finalizer');
    if (revision !== undefined) this.historyMarks.set(pass.ref.key, patched);
    return patched;
  }

  /** 2. Removes podset.io/cleanup (not recorded: the PodSet may be gone by now, and its DELETED event folded). */
  async #removeFinalizer(podset: PodSet): Promise<void> {
    await this.#patchFinalizers(podset, otherFinalizers(podset));
  }

  async #patchFinalizers(podset: PodSet, finalizers: string[]): Promise<PodSet> {
    return this.#patchMetadata(podset, { finalizers });
  }

  /** A merge patch of the PodSet's metadata, conditional on the resourceVersion read (a 409 otherwise). */
  async #patchMetadata(
    podset: PodSet,
    change: { finalizers?: string[]; annotations?: Record<string, string> },
  ): Promise<PodSet> {
    return this.kube.podSets.patch(podset.metadata.namespace, podset.metadata.name!, {
      metadata: { ...change, resourceVersion: podset.metadata.resourceVersion },
    });
  }

  /** What step 6 writes with (pod-writes.ts). */
  #podWrites(): PodWriteDeps {
    return {
      kube: this.kube,
      state: this.state,
      events: this.events,
      slowStartBatches: (count, burst) => this.planner.slowStartBatches(count, burst),
      createBurst: this.createBurst,
      deleteConcurrency: this.deleteConcurrency,
      inBatch: this.inBatch,
      now: () => this.clock.now(),
    };
  }

  /**
   * 7. Writes the status `settle` decided on. PUT with the resourceVersion we read: a 409 is thrown (and
   * syncHandler re-reads).
   */
  async #updateStatus(pass: Pass, podset: PodSet, plan: Plan, outcome: ExecutionOutcome): Promise<void> {
    const current = podset.status as PodSetStatus | undefined;
    const settled = this.planner.settle(plan, current, outcome, this.now());
    if (!settled.write) return;
    pass.signal?.throwIfAborted();
    const status = settled.status;
    const written = await this.#step('status write', () =>
      writeStatus(this.kube, podset, status, pass.signal),
    );
    await this.state.wrote(pass.ref.key, written);
    pass.log.info({ replicas: status.replicas, readyReplicas: status.readyReplicas }, 'status written');
  }

  /**
   * 8. The planner's Events; then a failure for the queue to retry with backoff — terminal when this was a
   * parked key's one retry (it is parked again at once, no fresh round of short retries) — or the plan's
   * requeue-after.
   */
  async #finish(
    pass: Pass,
    podset: PodSet,
    plan: Plan,
    failure: Failure | undefined,
    retryOfParked: boolean,
  ): Promise<ReconcileResult> {
    await this.#recordAll(podset, plan.events);
    if (failure !== undefined) {
      const error = new ReconcileError(failure.reason, failure.message, {
        generation: podset.metadata.generation ?? 0,
        ...(failure.detail !== undefined ? { detail: failure.detail } : {}),
      });
      throw retryOfParked ? new TerminalError(error) : error;
    }
    if (retryOfParked) await this.parkStore.clear(pass.ref.key);
    return resultOf(plan);
  }

  async #recordAll(podset: PodSet, planned: readonly PlannedEvent[]): Promise<void> {
    for (const e of planned) await this.events.record(involvedOf(podset), e.type, e.reason, e.message);
  }

  /** The queue gave up on this key: ReplicaFailure with the reason in the PodSet's status, and a Warning Event. */
  onFinalFailure(key: string, error: unknown, partial: Partial<SyncContext> = {}): Promise<ReconcileResult> {
    return onFinalFailure(key, error, partial, {
      kube: this.kube,
      events: this.events,
      log: this.log,
      parkStore: this.parkStore,
      clock: this.clock,
      parkedRetryMs: this.parkedRetryMs,
    });
  }
}

// ---- small helpers ----

type FoundState = Extract<KeyState, { kind: 'found' }>;

/** Whether the plan creates or deletes a pod (what only a plan from the API's read may do). */
function actsOnPods(plan: Plan): boolean {
  return plan.creates.length > 0 || plan.deletes.length > 0;
}

function otherFinalizers(podset: PodSet): string[] {
  return (podset.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
}

/** The earlier of the result's look again and the one the read asked for (state-source.ts's recheckAfterMs). */
function recheckBy(result: ReconcileResult, read: FoundState): ReconcileResult {
  const after = read.recheckAfterMs;
  if (after === undefined || (result.requeueAfterMs !== undefined && result.requeueAfterMs <= after)) {
    return result;
  }
  return { requeueAfterMs: after, reason: 'OwnWriteNotShown' };
}

/** The plan's requeue as the queue's result. */
function resultOf(plan: Plan): ReconcileResult {
  return plan.requeue === null ? {} : { requeueAfterMs: plan.requeue.afterMs, reason: plan.requeue.reason };
}
