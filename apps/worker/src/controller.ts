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
//                        remove podset.io/cleanup → done
//     3. checkParked     failed for good before, spec unchanged → wait out its backoff
//    4a. revisions       the spec moved on → its ControllerRevisions brought up to date (revisions.ts:
//                        a new PodSet's first by a create alone, otherwise from an API read); paused →
//                        planned with the current revision's template
//     4. claim, plan     release pods relabelled out of it, adopt matching orphans (claim-executor.ts;
//                        from an API read, adoption after a fresh GET of the PodSet), then
//                        plan = reconcile(podset, pods, now)                  libs/reconcile, pure
//     5. addFinalizer    podset.io/cleanup, if missing, so that a deletion waits for our cleanup; with
//                        it, in the same patch, the podset.io/revision annotation 4a left to write
//     6. createPods, deletePods
//                        slow-start batches; worst first with UID preconditions (executor.ts);
//                        each recorded with the state source
//     7. updateStatus    only when changed; a 409 → back to 1 (status-writer.ts)
//     8. finish          the plan's Events; then a ReconcileError for the queue to retry (a TerminalError
//                        when it was a parked key's one retry), or the plan's requeue-after
//   onFinalFailure(key)  the last attempt failed → ReplicaFailure condition + Warning Event, park the key:
//                        one attempt per parkedRetryMs until the spec changes
import { randomUUID } from 'node:crypto';
import { isConflict, isNotFound, type Kube, type Pod as WirePod } from '@podset/kube';
import { TerminalError, type ReconcileResult } from '@podset/queue';
import type {
  ExecutionOutcome,
  Plan,
  PlannedEvent,
  PodSet,
  PodSetStatus,
  Pod,
  ReconcileOptions,
  Settled,
} from '@podset/reconcile';
import {
  CLEANUP_FINALIZER,
  NAME_LABEL,
  REVISION_ANNOTATION,
  claimPods,
  revisionsMayBeStale,
  specProblem,
  unlistedPodNames,
  type Claims,
} from '@podset/reconcile';
import { inSpan, withTimeout } from '@podset/runtime';
import { trace, type Span, type Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { apiState } from './api-state.ts';
import { executeClaims } from './claim-executor.ts';
import {
  createFailureMessage,
  detailOf,
  errorText,
  reasonOf,
  ReconcileError,
  stableReason,
  type Failure,
} from './errors.ts';
import { involvedOf, plural, type EventRecorder } from './events.ts';
import { executeCreates, executeDeletes, type BatchRunner } from './executor.ts';
import { HistoryMarks, syncRevisions, type RevisionSync } from './revisions.ts';
import { memoryParkStore, type Parked, type ParkStore } from './park-store.ts';
import {
  podSetRef,
  type ConfirmReason,
  type KeyState,
  type PodSetRef,
  type StateSource,
} from './state-source.ts';
import { markReplicaFailure, writeStatus } from './status-writer.ts';
import { systemClock, type Clock } from '@podset/runtime/clock';

export { CLEANUP_FINALIZER, NAME_LABEL, ReconcileError };

/** The pure planner's functions (libs/reconcile), injected so the loop reads without their details. */
export interface Planner {
  reconcile(podset: PodSet, pods: readonly Pod[], now: Date, opts?: ReconcileOptions): Plan;
  slowStartBatches(count: number, burst: number): number[];
  /** After the creates and deletes: the status to write, and whether to write it. */
  settle(plan: Plan, current: PodSetStatus | undefined, outcome: ExecutionOutcome, now: Date): Settled;
}

export interface ControllerOptions {
  /** Largest slow-start batch of creates. */
  createBurst: number;
  /** Deletes sent in parallel. Default: createBurst. */
  deleteConcurrency?: number;
  reconcile?: ReconcileOptions;
  /** Re-read-and-re-plan rounds after a 409 on status before giving up (the queue then retries). */
  maxConflictRounds?: number;
  /** How long a deleted PodSet's cleanup may take before the finalizer goes anyway. Default 10 s. */
  cleanupTimeoutMs?: number;
  /**
   * A key whose reconcile failed its last attempt is parked: retried once after this long (and parked
   * again if that fails too), sooner only when its spec changes. Default DEFAULT_PARKED_RETRY_MS.
   */
  parkedRetryMs?: number;
}

/** Five minutes, controller-runtime's order of magnitude for a key that keeps failing. */
export const DEFAULT_PARKED_RETRY_MS = 300_000;

export interface SyncContext {
  reconcileId: string;
  jobId?: string;
  attempt?: number;
  /** Aborted when the worker shuts down past its grace period or lost the job: stop before the next write. */
  signal?: AbortSignal;
}

export interface ControllerDeps {
  kube: Kube;
  planner: Planner;
  events: EventRecorder;
  log: Logger;
  options: ControllerOptions;
  /** Where each reconcile reads its state and records its own writes. Default: the API (api-state.ts). */
  state?: StateSource;
  /** Keys parked after their last attempt failed. Default: in this process only. */
  parkStore?: ParkStore;
  /**
   * A deleted PodSet's traces outside the API and the state source: its finished jobs and event-log
   * entries in Redis (ReconcileQueue.forgetKey). Resolves to what was removed, for the log.
   */
  cleanup?: (key: string) => Promise<object | void>;
  /** The time plans and parking are decided at (a test's fake clock; default the system's). */
  clock?: Pick<Clock, 'now'>;
  /** Set only when tracing is on: each step of a reconcile becomes a child span of its reconcile span. */
  tracer?: Tracer;
  /** A key ended because the API no longer has its PodSet (for the metrics). */
  onKeyEnded?: (reason: KeyEndReason) => void;
}

/** Why a key ended: the API answered 404, or holds another object (another UID) under its name. */
export type KeyEndReason = 'NotFound' | 'UIDMismatch';

export interface Controller {
  /** One reconcile of "namespace/name": when to look again, or throws to ask for a retry. */
  syncHandler(key: string, ctx?: Partial<SyncContext>): Promise<ReconcileResult>;
  /** The queue gave up on a key: say why in the PodSet's conditions and a Warning Event, and park it. */
  onFinalFailure(key: string, error: unknown, ctx?: Partial<SyncContext>): Promise<ReconcileResult>;
}

/** One reconcile of one key: what every step needs to know about it. */
interface Pass {
  ref: PodSetRef;
  log: Logger;
  signal: AbortSignal | undefined;
  /** The reconcile's span (tracing on): the generation and the plan's counts go on it too. */
  span: Span | undefined;
  /** The UID of the PodSet the first round read: a round after a 409 acts only for that object. */
  uid?: string | undefined;
}

/** Step 3's answer: wait (parked), or go on — as the parked key's one retry or afresh. */
type ParkCheck = { wait: ReconcileResult } | { wait?: undefined; retryOfParked: boolean };

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
    const parked = await this.#checkParked(pass, podset, parkedRecord);
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
    if (toClaim) pods = await this.#claim(pass, podset, claims);
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
    const creates = await this.#createPods(pass, podset, plan);
    const deletes = await this.#deletePods(pass, podset, plan);
    const failure = creates.failure ?? deletes.failure;

    // 7. Status, counting the pods as the API now holds them, only when it changed (a 409 here goes back
    // to 1).
    await this.#updateStatus(pass, podset, plan, {
      ...(failure !== undefined ? { failure: { reason: failure.reason, message: failure.message } } : {}),
      created: creates.done,
      deleted: deletes.done,
    });

    // 8. The planner's Events; then a retry, or when to look again (by when the read must be checked, at
    // the latest).
    return recheckBy(await this.#finish(pass, podset, plan, failure, parked.retryOfParked), read);
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
    const { failure, notTaken } = await this.#deletePods(pass, podset, plan);
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
    await this.#forgetTraces(pass);
    await this.#removeFinalizer(podset);
    await this.parkStore.clear(ref.key);
    log.info('cleanup done; finalizer removed');
    return {};
  }

  /**
   * Best effort, by design: the finalizer guards the pods, which are gone by now; the finished jobs,
   * event-log entries and kept state are history that ages out anyway (job retention, the stream's cap,
   * the projection's tombstones). So a failure here (Redis error, or no answer within cleanupTimeoutMs) is
   * logged and the finalizer removed regardless: it must not hold a deletion in Terminating, retried with
   * backoff and then parked, for the sake of housekeeping.
   * Run before the finalizer goes, so nothing of the PodSet outlives it; a 409 on the finalizer patch runs
   * it again, which is harmless (it is idempotent).
   */
  async #forgetTraces(pass: Pass): Promise<void> {
    const { ref, log } = pass;
    pass.signal?.throwIfAborted();
    try {
      const [removed, stateKeys] = await withTimeout(
        Promise.all([this.cleanup?.(ref.key), this.state.forget(ref.key)]),
        this.cleanupTimeoutMs,
        'cleanup',
      );
      log.info(
        { removed: { ...removed, stateKeys } },
        'removed its finished jobs, event-log entries and state',
      );
    } catch (err) {
      log.warn(
        { err: errorText(err) },
        'could not remove its finished jobs, event-log entries and state; removing the finalizer anyway',
      );
    }
  }

  /**
   * 3. Parked after failing for good: only a spec change (a new generation) or the end of its backoff lets
   * it try again; any other request (a resync, a pod event) waits, writing nothing.
   */
  async #checkParked(
    pass: Pass,
    podset: PodSet,
    parkedRecord: Promise<Parked | undefined>,
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
      await this.parkStore.clear(ref.key);
      return { retryOfParked: false };
    }
    if (this.clock.now() < parked.until) {
      log.info({ retryAt: new Date(parked.until).toISOString() }, 'parked: waiting out its backoff');
      return { wait: { requeueAfterMs: parked.until - this.clock.now(), reason: 'Parked' } };
    }
    return { retryOfParked: true };
  }

  /** 4a. Revisions brought up to date; marked done here only once no annotation is left to write (5). */
  async #syncRevisions(pass: Pass, podset: PodSet): Promise<RevisionSync> {
    const synced = await this.#step('revisions', () =>
      syncRevisions(this.kube, podset, pass.log, pass.signal),
    );
    if (synced.annotate === undefined) this.historyMarks.set(pass.ref.key, podset);
    return synced;
  }

  /**
   * 4a. Releases the pods it controls that no longer match, adopts the matching orphans (only after a fresh
   * read of the PodSet shows it is the same object and not being deleted), and announces both. The pods to
   * plan from: those it owns and those it just adopted. A refused patch fails the pass, for a fresh read.
   */
  async #claim(pass: Pass, podset: PodSet, claims: Claims<WirePod>): Promise<WirePod[]> {
    const { log, signal } = pass;
    signal?.throwIfAborted();
    const adopt = claims.adopt.length > 0 && (await this.#mayAdopt(pass, podset)) ? claims.adopt : [];
    const outcome = await this.#step('claim', () =>
      executeClaims(this.kube, podset, { release: claims.release, adopt }, signal),
    );
    const involved = involvedOf(podset);
    const selector = `${NAME_LABEL}=${podset.metadata.name}`;
    if (outcome.released.length > 0) {
      const names = outcome.released.join(', ');
      log.info({ released: names }, 'released pods that no longer match the selector');
      await this.events.record(
        involved,
        'Normal',
        'Released',
        `Released pod${plural(outcome.released.length)} no longer matching ${selector}: ${names}`,
      );
    }
    if (outcome.adopted.length > 0) {
      const names = outcome.adopted.map((p) => p.metadata.name).join(', ');
      log.info({ adopted: names }, 'adopted orphan pods matching the selector');
      await this.events.record(
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
  async #mayAdopt(pass: Pass, podset: PodSet): Promise<boolean> {
    const { namespace, name } = pass.ref;
    let fresh: PodSet;
    try {
      fresh = await this.kube.podSets.get(namespace, name, pass.signal ? { signal: pass.signal } : {});
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
    const same = fresh.metadata.uid === podset.metadata.uid && fresh.metadata.deletionTimestamp === undefined;
    if (!same) pass.log.info('not adopting: the PodSet was deleted or replaced since it was read');
    return same;
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

  /** 6a. The plan's creates in slow-start batches, recorded and announced; the pods made, the first failure. */
  async #createPods(pass: Pass, podset: PodSet, plan: Plan): Promise<WritesDone> {
    if (plan.creates.length === 0) return { done: [] };
    const { ref, log, signal } = pass;
    signal?.throwIfAborted();
    const batches = this.planner.slowStartBatches(plan.creates.length, this.createBurst);
    const outcome = await executeCreates(this.kube, plan.creates, batches, signal, this.inBatch);
    const made = outcome.created.map((p) => p.metadata.name ?? '');
    const names = made.join(', ');
    // Logged first, with the names: which reconcile made a pod is otherwise known only from its Event, and
    // recording the expectations below can fail (Redis away).
    if (outcome.created.length > 0)
      log.info({ created: outcome.created.length, pods: names }, 'created pods');
    await this.state.created(ref.key, made);
    // Cancelled: what was created is expected now (above); nothing more of this pass.
    if (outcome.cancelled) signal?.throwIfAborted();
    const involved = involvedOf(podset);
    if (outcome.created.length > 0) {
      await this.events.record(
        involved,
        'Normal',
        'SuccessfulCreate',
        `Created pod${plural(outcome.created.length)}: ${names}`,
      );
    }
    if (outcome.failure === undefined) return { done: made };
    // 404: the namespace (and so the PodSet) is gone; syncHandler ends the key.
    if (isNotFound(outcome.failure.error)) throw outcome.failure.error;
    const failure: Failure = {
      reason: 'FailedCreate',
      message: createFailureMessage(outcome.failure, plan.creates.length),
      detail: errorText(outcome.failure.error),
    };
    await this.events.record(
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
  async #deletePods(pass: Pass, podset: PodSet, plan: Plan): Promise<WritesDone & { notTaken: number }> {
    if (plan.deletes.length === 0) return { done: [], notTaken: 0 };
    const { ref, log, signal } = pass;
    signal?.throwIfAborted();
    const outcome = await executeDeletes(
      this.kube,
      plan.deletes,
      this.deleteConcurrency,
      signal,
      this.inBatch,
    );
    await this.state.deleted(
      ref.key,
      outcome.deleted.map((d) => d.name),
    );
    const involved = involvedOf(podset);
    if (outcome.deleted.length > 0) {
      const names = outcome.deleted.map((d) => d.name).join(', ');
      await this.events.record(
        involved,
        'Normal',
        'SuccessfulDelete',
        `Deleted pod${plural(outcome.deleted.length)}: ${names}`,
      );
      log.info({ deleted: outcome.deleted.length, alreadyGone: outcome.alreadyGone.length }, 'deleted pods');
    }
    for (const f of outcome.failed.slice(0, 3)) {
      await this.events.record(
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
  async onFinalFailure(
    key: string,
    error: unknown,
    partial: Partial<SyncContext> = {},
  ): Promise<ReconcileResult> {
    const { namespace, name } = podSetRef(key);
    const log = this.log.child({
      podset: key,
      reconcileId: partial.reconcileId,
      jobId: partial.jobId,
      attempt: partial.attempt,
    });
    const reason = reasonOf(error);
    const message = errorText(error);
    const retryInS = Math.round(this.parkedRetryMs / 1000);
    log.error({ reason, err: message, retryInS }, 'reconcile failed for good; parking the key');
    let generation = error instanceof ReconcileError ? error.generation : undefined;
    let uid: string | undefined;
    try {
      const podset = await markReplicaFailure(this.kube, namespace, name, reason, message, this.clock);
      if (podset === undefined) return {}; // gone: nothing to park
      generation = podset.metadata.generation ?? 0;
      uid = podset.metadata.uid;
      await this.events.record(
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
    await this.parkStore.park(key, {
      ...(uid !== undefined ? { uid } : {}),
      generation,
      until: this.clock.now() + this.parkedRetryMs,
    });
    return { requeueAfterMs: this.parkedRetryMs, reason: 'Parked' };
  }
}

// ---- small helpers ----

type FoundState = Extract<KeyState, { kind: 'found' }>;

/** What a pass's creates or deletes did: the pods' names, and the first failure. */
interface WritesDone {
  done: string[];
  failure?: Failure;
}

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
