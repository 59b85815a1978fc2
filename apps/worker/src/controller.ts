// The PodSet controller: what one reconcile does, read top to bottom (after kubernetes/sample-controller).
//
//   queue handler(request) → syncHandler(key)                      one key at a time (libs/queue)
//     1. GET the PodSet                 gone → done
//     2.                                being deleted → delete its pods; once they are gone, forget its
//                                       finished jobs and event-log entries (best effort), then remove
//                                       podset.io/cleanup → done
//        parked (failed for good before) and its spec unchanged → wait until its backoff ends
//     3. add podset.io/cleanup          if missing, so a deletion waits for our cleanup
//     4. LIST its pods                  consistent read (or NotOlderThan our newest known RV); owner UID
//     5. plan = reconcile(...)          libs/reconcile, pure
//     6. creates, deletes               slow-start batches; worst first with UID preconditions (executor.ts)
//     7. status                         only when changed; a 409 → back to 1, never overwrite (status-writer.ts)
//     8. Events, then                   { requeueAfterMs } from the plan, or throw → queue backoff
//   onFinalFailure(key)                 last attempt failed → ReplicaFailure condition + Warning Event,
//                                       park the key: one attempt per parkedRetryMs until the spec changes
import { randomUUID } from 'node:crypto';
import {
  isConflict,
  isKubeApiError,
  isNotFound,
  type Kube,
  type Pod as WirePod,
  type PodSetWire,
} from '@podset/kube';
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
import type { Logger } from 'pino';
import type { EventRecorder, InvolvedPodSet } from './events.ts';
import { executeCreates, executeDeletes, type CreateFailure } from './executor.ts';
import { rvMax, type ProjectedPodSet, type ProjectedState } from '@podset/state';
import { withTimeout } from '@podset/runtime';
import { memoryParkStore, type ParkStore } from './park-store.ts';
import { memoryRvStore, type RvStore } from './rv-store.ts';
import { markReplicaFailure, writeStatus, type PodSetStatusWire } from './status-writer.ts';

import { CLEANUP_FINALIZER, controlledPods, NAME_LABEL } from '@podset/reconcile';
export { CLEANUP_FINALIZER, NAME_LABEL };

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
  /**
   * 'consistent': LIST without resourceVersion (a quorum read). 'notOlderThan': when a resourceVersion
   * hint is known (the job's newest event RV, or our own last write for this key), LIST with
   * resourceVersionMatch=NotOlderThan, served from the API server's watch cache.
   */
  listMode?: 'consistent' | 'notOlderThan';
  /** Re-read-and-re-plan rounds after a 409 on status before giving up (the queue then retries). */
  maxConflictRounds?: number;
  /** How long a deleted PodSet's cleanup (deps.cleanup) may take before the finalizer goes anyway. Default 10 s. */
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
  /** The newest resourceVersion the triggering events carried. */
  rv?: string;
  /** Aborted when the worker shuts down past its grace period or lost the job: stop before the next write. */
  signal?: AbortSignal;
}

export interface SyncResult {
  requeueAfterMs?: number;
  /** Why it looks again (the plan's requeue reason, or Parked): for logs. */
  requeueReason?: string;
}

export interface ControllerDeps {
  kube: Kube;
  planner: Planner;
  events: EventRecorder;
  log: Logger;
  options: ControllerOptions;
  /** Newest RV of our own writes per key (for listMode notOlderThan). Default: in this process only. */
  rvStore?: RvStore;
  /** Keys parked after their last attempt failed. Default: in this process only. */
  parkStore?: ParkStore;
  /**
   * A deleted PodSet's traces outside the API: its finished jobs and event-log entries in Redis
   * (ReconcileQueue.forgetKey). Resolves to what was removed, for the log. Default: none to remove.
   */
  cleanup?: (key: string) => Promise<object | void>;
  /**
   * STATE_SOURCE=projection: the watcher's per-PodSet state in Redis, read instead of a GET and a LIST
   * (the API is read when it is not ready, and after a conflict), with the expectations of our own creates
   * and deletes that it has not shown yet.
   */
  projection?: StateProjection;
  now?: () => Date;
}

/** What the controller uses of libs/queue's Projection. */
export interface StateProjection {
  read(key: string): Promise<ProjectedState | undefined>;
  expect(key: string, what: 'create' | 'delete', names: readonly string[]): Promise<number>;
  /** Our own write of the PodSet, so the next reconcile writes against its resourceVersion. */
  wrote(key: string, podset: ProjectedPodSet): Promise<void>;
}

/** A reconcile that finds its own creates or deletes not yet shown looks again after this long at most. */
const EXPECTATIONS_RECHECK_MS = 1_000;

/** A reconcile that went through but could not do all it had to: the queue retries it with backoff. */
export class ReconcileError extends Error {
  override name = 'ReconcileError';
  readonly reason: string;
  /** The PodSet's generation the failed pass planned from (for parking). */
  readonly generation: number | undefined;
  /** No further attempt of this job: the key was parked already and its one retry failed again. */
  readonly final: boolean;
  /** The API's own words (may name generated objects): for Events and logs, not for conditions. */
  readonly detail: string | undefined;
  constructor(
    reason: string,
    message: string,
    opts: { generation?: number; final?: boolean; detail?: string } = {},
  ) {
    super(message);
    this.reason = reason;
    this.generation = opts.generation;
    this.final = opts.final ?? false;
    this.detail = opts.detail;
  }
}

/** What onFinalFailure decided: when the parked key is tried again (undefined: not parked). */
export interface FinalFailureResult {
  requeueAfterMs?: number;
}

export interface Controller {
  /** One reconcile of "namespace/name". Throws to ask for a retry. */
  syncHandler(key: string, ctx?: Partial<SyncContext>): Promise<SyncResult>;
  /** The queue gave up on a key: say why in the PodSet's conditions and a Warning Event, and park it. */
  onFinalFailure(key: string, error: unknown, ctx?: Partial<SyncContext>): Promise<FinalFailureResult>;
}

export function createController(deps: ControllerDeps): Controller {
  const { kube, planner, events, options } = deps;
  const now = deps.now ?? (() => new Date());
  const createBurst = options.createBurst;
  const deleteConcurrency = options.deleteConcurrency ?? createBurst;
  const maxConflictRounds = options.maxConflictRounds ?? 3;
  const cleanupTimeoutMs = options.cleanupTimeoutMs ?? 10_000;
  const notOlderThan = options.listMode === 'notOlderThan';
  /** Newest resourceVersion of our own writes per key: a NotOlderThan read must see them. */
  const rvStore = deps.rvStore ?? memoryRvStore();
  const parkStore = deps.parkStore ?? memoryParkStore();
  const parkedRetryMs = options.parkedRetryMs ?? DEFAULT_PARKED_RETRY_MS;

  /**
   * One reconcile. Our writes to the PodSet are conditional (resourceVersion): a 409 means it changed
   * since we read it, so we read it again and plan again, a few times, never overwriting.
   */
  async function syncHandler(key: string, partial: Partial<SyncContext> = {}): Promise<SyncResult> {
    const ctx: SyncContext = { reconcileId: partial.reconcileId ?? randomUUID().slice(0, 8), ...partial };
    const log = deps.log.child({
      podset: key,
      reconcileId: ctx.reconcileId,
      jobId: ctx.jobId,
      attempt: ctx.attempt,
    });
    const started = Date.now();
    for (let round = 1; ; round++) {
      try {
        // After a conflict the projection may be what is behind: read the API.
        const result = await syncOnce(key, ctx, log, round > 1);
        log.info(
          {
            ms: Date.now() - started,
            requeueAfterMs: result.requeueAfterMs,
            requeueReason: result.requeueReason,
          },
          'reconciled',
        );
        return result;
      } catch (err) {
        if (isConflict(err) && round < maxConflictRounds) {
          log.info({ round }, 'conflict: the PodSet changed since we read it; re-reading and re-planning');
          continue;
        }
        if (isConflict(err)) {
          throw new ReconcileError('Conflict', `${key} kept changing: ${round} conflicts in a row`);
        }
        if (isNotFound(err)) {
          log.info('podset deleted during the reconcile; nothing more to do');
          await forget(key);
          return {};
        }
        throw err;
      }
    }
  }

  async function syncOnce(key: string, ctx: SyncContext, log: Logger, fresh: boolean): Promise<SyncResult> {
    const [namespace, name] = splitKey(key);
    ctx.signal?.throwIfAborted();

    // 1. The PodSet (and, from the projection, its pods). Gone → done.
    const view = await readView(key, namespace, name, ctx, fresh, log);
    if (view === 'waiting') {
      return { requeueAfterMs: EXPECTATIONS_RECHECK_MS, requeueReason: 'Expectations' };
    }
    let podset = view.podset;
    if (podset === undefined) {
      log.info('podset gone; nothing to do');
      await forget(key);
      return {};
    }

    // 2. Being deleted → delete its pods, forget its traces, then let it go.
    if (podset.metadata.deletionTimestamp !== undefined) return finalize(key, podset, view.pods, ctx, log);

    // Parked after failing for good: only a spec change (a new generation) or the end of its backoff
    // lets it try again; any other request (a resync, a pod event) waits, writing nothing.
    const generation = podset.metadata.generation ?? 0;
    const parked = await parkStore.get(key);
    // The same PodSet (not a namesake created since) at the same generation.
    const retryOfParked =
      parked !== undefined &&
      parked.generation === generation &&
      (parked.uid === undefined || parked.uid === podset.metadata.uid);
    if (retryOfParked && now().getTime() < parked.until) {
      log.info({ retryAt: new Date(parked.until).toISOString() }, 'parked: waiting out its backoff');
      return { requeueAfterMs: parked.until - now().getTime(), requeueReason: 'Parked' };
    }
    if (parked !== undefined && !retryOfParked) {
      log.info(
        { generation, parkedAt: parked.generation, uid: podset.metadata.uid, parkedUid: parked.uid },
        'spec changed or a new PodSet of that name: unparked, backoff reset',
      );
      await parkStore.clear(key);
    }

    // 3, 4. Its pods, read fresh (only those it controls count), and the plan (libs/reconcile: pure).
    const { pods, plan } = await planFor(key, podset, view.pods, ctx);

    // 5. Our finalizer before any pod exists, so that a deletion waits for our cleanup.
    if (plan.finalizer === 'add') {
      podset = await setFinalizer(podset, true);
      log.info('added finalizer');
    }
    log.debug(
      {
        pods: pods.length,
        creates: plan.creates.length,
        deletes: plan.deletes.length,
        statusChanged: plan.statusChanged,
      },
      'planned',
    );

    // 6. Creates in slow-start batches, deletes worst first with UID preconditions.
    const failure = await execute(key, podset, plan, ctx, log);

    // 7. Status, only when it changed (a 409 here goes back to 1).
    await updateStatus(key, podset, plan, failure, ctx, log);

    // 8. The planner's events; then an error for the queue to retry, or when to look again.
    await recordAll(podset, plan.events);
    if (failure !== undefined) {
      throw new ReconcileError(failure.reason, failure.message, {
        generation,
        final: retryOfParked,
        ...(failure.detail !== undefined ? { detail: failure.detail } : {}),
      });
    }
    if (retryOfParked) await parkStore.clear(key);
    return requeueOf(plan);
  }

  /**
   * The PodSet is being deleted: remove its pods, then (once every delete went through and none is left)
   * its finished jobs and event-log entries, then our finalizer.
   */
  async function finalize(
    key: string,
    podset: PodSetWire,
    projected: WirePod[] | undefined,
    ctx: SyncContext,
    log: Logger,
  ): Promise<SyncResult> {
    const { plan } = await planFor(key, podset, projected, ctx);
    const failure = await execute(key, podset, plan, ctx, log);
    await recordAll(podset, plan.events);
    if (failure !== undefined) {
      throw new ReconcileError(failure.reason, failure.message, {
        ...(failure.detail !== undefined ? { detail: failure.detail } : {}),
      });
    }
    if (plan.finalizer !== 'remove') {
      log.info({ requeueAfterMs: plan.requeue?.afterMs }, 'cleanup in progress');
      return requeueOf(plan);
    }
    await forgetTraces(key, ctx, log);
    await setFinalizer(podset, false);
    await forget(key);
    log.info('cleanup done; finalizer removed');
    return {};
  }

  /**
   * Best effort, by design: the finalizer guards the pods, which are gone by now; the finished jobs and
   * event-log entries are history that ages out anyway (job retention, the stream's cap). So a failure
   * here (Redis error, or no answer within cleanupTimeoutMs) is logged and the finalizer removed
   * regardless: it must not hold a deletion in Terminating, retried with backoff and then parked, for
   * the sake of housekeeping.
   * Run before the finalizer goes, so nothing of the PodSet outlives it; a 409 on the finalizer patch runs it again,
   * which is harmless (it is idempotent).
   */
  async function forgetTraces(key: string, ctx: SyncContext, log: Logger): Promise<void> {
    if (deps.cleanup === undefined) return;
    ctx.signal?.throwIfAborted();
    try {
      const removed = await withTimeout(deps.cleanup(key), cleanupTimeoutMs, 'cleanup');
      log.info({ removed }, 'removed its finished jobs and event-log entries');
    } catch (err) {
      log.warn(
        { err: errorText(err) },
        'could not remove its finished jobs and event-log entries; removing the finalizer anyway',
      );
    }
  }

  /**
   * The PodSet, and its pods when the projection is ready (undefined pods: list them). 'waiting': the
   * projection does not show our own last creates or deletes yet — planning on it could create or
   * delete twice, so look again once it does (the fold of their events requests this key anyway).
   */
  async function readView(
    key: string,
    namespace: string,
    name: string,
    ctx: SyncContext,
    fresh: boolean,
    log: Logger,
  ): Promise<{ podset: PodSetWire | undefined; pods: WirePod[] | undefined } | 'waiting'> {
    if (deps.projection !== undefined && !fresh) {
      const state = await deps.projection.read(key);
      if (state !== undefined) {
        if (state.pending.length > 0) {
          log.info({ pending: state.pending.length }, 'waiting for our own creates and deletes to show');
          return 'waiting';
        }
        return {
          podset: state.podset as unknown as PodSetWire | undefined,
          pods: state.pods as unknown as WirePod[],
        };
      }
    }
    return { podset: await getPodSet(namespace, name, ctx.signal), pods: undefined };
  }

  async function getPodSet(
    namespace: string,
    name: string,
    signal?: AbortSignal,
  ): Promise<PodSetWire | undefined> {
    try {
      return await kube.podSets.get(namespace, name, signal !== undefined ? { signal } : {});
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Add or remove podset.io/cleanup. The resourceVersion in the merge patch makes it conditional (409). */
  async function setFinalizer(podset: PodSetWire, present: boolean): Promise<PodSetWire> {
    const others = (podset.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
    const patched = await kube.podSets.patch(podset.metadata.namespace, podset.metadata.name!, {
      metadata: {
        finalizers: present ? [...others, CLEANUP_FINALIZER] : others,
        resourceVersion: podset.metadata.resourceVersion,
      },
    });
    // Not after removing it: the PodSet may be gone by now, and its DELETED event folded.
    if (present) {
      await deps.projection?.wrote(
        `${podset.metadata.namespace}/${podset.metadata.name}`,
        patched as unknown as ProjectedPodSet,
      );
    }
    return patched;
  }

  /**
   * By label, then by controller owner UID (a deleted namesake's leftovers never count). A consistent
   * read; or, in notOlderThan mode, a read from the watch cache at least as new as everything we know
   * of: the triggering events, our own last writes for this key, and the PodSet just read.
   */
  async function listOwnedPods(key: string, podset: PodSetWire, ctx: SyncContext): Promise<WirePod[]> {
    const labelSelector = `${NAME_LABEL}=${podset.metadata.name}`;
    const sig = ctx.signal !== undefined ? { signal: ctx.signal } : {};
    let rv: string | undefined;
    if (notOlderThan) rv = rvMax(rvMax(ctx.rv, await rvStore.get(key)), podset.metadata.resourceVersion);
    const list = await kube.pods.listAll(podset.metadata.namespace, {
      labelSelector,
      ...(rv !== undefined ? { resourceVersion: rv, resourceVersionMatch: 'NotOlderThan' as const } : {}),
      ...sig,
    });
    return controlledPods(podset, list.items);
  }

  /** Its pods (those it controls, read fresh) and the planner's plan for them. */
  async function planFor(
    key: string,
    podset: PodSetWire,
    projected: WirePod[] | undefined,
    ctx: SyncContext,
  ): Promise<{ pods: WirePod[]; plan: Plan }> {
    const pods =
      projected !== undefined ? controlledPods(podset, projected) : await listOwnedPods(key, podset, ctx);
    const plan = planner.reconcile(
      podset as unknown as PodSet,
      pods as unknown as Pod[],
      now(),
      options.reconcile,
    );
    return { pods, plan };
  }

  /** Runs the plan's creates and deletes, records their Events; returns the first failure, if any. */
  async function execute(
    key: string,
    podset: PodSetWire,
    plan: Plan,
    ctx: SyncContext,
    log: Logger,
  ): Promise<Failure | undefined> {
    const involved = involvedOf(podset);
    let failure: Failure | undefined;
    if (plan.creates.length > 0) {
      ctx.signal?.throwIfAborted();
      const batches = planner.slowStartBatches(plan.creates.length, createBurst);
      const outcome = await executeCreates(kube, plan.creates, batches, ctx.signal);
      await remember(
        key,
        outcome.created.map((p) => p.metadata.resourceVersion),
      );
      await deps.projection?.expect(
        key,
        'create',
        outcome.created.map((p) => p.metadata.name ?? ''),
      );
      if (outcome.created.length > 0) {
        const names = outcome.created.map((p) => p.metadata.name).join(', ');
        await events.record(
          involved,
          'Normal',
          'SuccessfulCreate',
          `Created pod${plural(outcome.created.length)}: ${names}`,
        );
        log.info({ created: outcome.created.length }, 'created pods');
      }
      if (outcome.failure !== undefined) {
        failure = {
          reason: 'FailedCreate',
          message: createFailureMessage(outcome.failure, plan.creates.length),
          detail: errorText(outcome.failure.error),
        };
        await events.record(
          involved,
          'Warning',
          'FailedCreate',
          `${failure.message}; the API said: ${failure.detail}`,
        );
        log.warn(
          { failed: outcome.failure.failed, skipped: outcome.skipped, err: errorText(outcome.failure.error) },
          'pod creates failed',
        );
      }
    }
    if (plan.deletes.length > 0) {
      ctx.signal?.throwIfAborted();
      const outcome = await executeDeletes(kube, plan.deletes, deleteConcurrency, ctx.signal);
      await remember(key, outcome.resourceVersions);
      await deps.projection?.expect(
        key,
        'delete',
        outcome.deleted.map((d) => d.name),
      );
      if (outcome.deleted.length > 0) {
        const names = outcome.deleted.map((d) => d.name).join(', ');
        await events.record(
          involved,
          'Normal',
          'SuccessfulDelete',
          `Deleted pod${plural(outcome.deleted.length)}: ${names}`,
        );
        log.info(
          { deleted: outcome.deleted.length, alreadyGone: outcome.alreadyGone.length },
          'deleted pods',
        );
      }
      for (const f of outcome.failed.slice(0, 3)) {
        await events.record(
          involved,
          'Warning',
          'FailedDelete',
          `Error deleting pod ${f.deletion.name}: ${errorText(f.error)}`,
        );
      }
      const first = outcome.failed[0];
      if (first !== undefined) {
        const n = outcome.failed.length;
        failure ??= {
          reason: 'FailedDelete',
          message: `${n} of ${plan.deletes.length} pod deletes failed: ${stableReason(first.error)}`,
          detail: `${first.deletion.name}: ${errorText(first.error)}`,
        };
        log.warn({ failed: n, err: errorText(first.error) }, 'pod deletes failed');
      }
    }
    return failure;
  }

  /** Writes the status `settle` decided on. PUT with the resourceVersion we read: a 409 is thrown (and syncHandler re-reads). */
  async function updateStatus(
    key: string,
    podset: PodSetWire,
    plan: Plan,
    failure: Failure | undefined,
    ctx: SyncContext,
    log: Logger,
  ): Promise<void> {
    const current = podset.status as PodSetStatus | undefined;
    const outcome =
      failure !== undefined ? { failure: { reason: failure.reason, message: failure.message } } : {};
    const settled = planner.settle(plan, current, outcome, now());
    if (!settled.write) return;
    ctx.signal?.throwIfAborted();
    const status = settled.status;
    const written = await writeStatus(kube, podset, status as unknown as PodSetStatusWire, ctx.signal);
    await remember(key, [written.metadata.resourceVersion]);
    await deps.projection?.wrote(key, written as unknown as ProjectedPodSet);
    log.info({ replicas: status.replicas, readyReplicas: status.readyReplicas }, 'status written');
  }

  async function recordAll(podset: PodSetWire, planned: readonly PlannedEvent[]): Promise<void> {
    for (const e of planned) await events.record(involvedOf(podset), e.type, e.reason, e.message);
  }

  async function remember(key: string, rvs: (string | undefined)[]): Promise<void> {
    if (!notOlderThan) return;
    const rv = rvs.reduce<string | undefined>((a, b) => rvMax(a, b), undefined);
    if (rv !== undefined) await rvStore.raise(key, rv);
  }

  async function forget(key: string): Promise<void> {
    await parkStore.clear(key);
    if (notOlderThan) await rvStore.forget(key);
  }

  /** The queue gave up on this key: ReplicaFailure with the reason in the PodSet's status, and a Warning Event. */
  async function onFinalFailure(
    key: string,
    error: unknown,
    partial: Partial<SyncContext> = {},
  ): Promise<FinalFailureResult> {
    const [namespace, name] = splitKey(key);
    const log = deps.log.child({
      podset: key,
      reconcileId: partial.reconcileId,
      jobId: partial.jobId,
      attempt: partial.attempt,
    });
    const reason =
      error instanceof ReconcileError
        ? error.reason
        : isKubeApiError(error)
          ? error.reason
          : 'ReconcileError';
    const message = errorText(error);
    const retryInS = Math.round(parkedRetryMs / 1000);
    log.error({ reason, err: message, retryInS }, 'reconcile failed for good; parking the key');
    let generation = error instanceof ReconcileError ? error.generation : undefined;
    let uid: string | undefined;
    try {
      const podset = await markReplicaFailure(kube, namespace, name, reason, message, now);
      if (podset === undefined) return {}; // gone: nothing to park
      generation = podset.metadata.generation ?? 0;
      uid = podset.metadata.uid;
      await events.record(
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
    await parkStore.park(key, {
      ...(uid !== undefined ? { uid } : {}),
      generation,
      until: now().getTime() + parkedRetryMs,
    });
    return { requeueAfterMs: parkedRetryMs };
  }

  return { syncHandler, onFinalFailure };
}

interface Failure {
  reason: string;
  /** Stable across attempts that fail the same way: it goes into the ReplicaFailure condition. */
  message: string;
  /** The API's message for the first failure, for Events. */
  detail?: string;
}

// ---- small helpers ----

export function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  if (i <= 0 || i === key.length - 1) throw new Error(`key ${JSON.stringify(key)} is not "namespace/name"`);
  return [key.slice(0, i), key.slice(i + 1)];
}

function involvedOf(podset: PodSetWire): InvolvedPodSet {
  return {
    namespace: podset.metadata.namespace ?? '',
    name: podset.metadata.name ?? '',
    uid: podset.metadata.uid ?? '',
    ...(podset.metadata.resourceVersion !== undefined
      ? { resourceVersion: podset.metadata.resourceVersion }
      : {}),
  };
}

function detailOf(error: unknown): string {
  return error instanceof ReconcileError && error.detail !== undefined ? ` (${error.detail})` : '';
}

function requeueOf(plan: Plan): SyncResult {
  return plan.requeue === null
    ? {}
    : { requeueAfterMs: plan.requeue.afterMs, requeueReason: plan.requeue.reason };
}

function plural(n: number): string {
  return n === 1 ? '' : 's';
}

export function errorText(err: unknown): string {
  if (isKubeApiError(err)) return `${err.code} ${err.reason}: ${err.statusMessage}`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * The ReplicaFailure message for failed creates: the same on every attempt that fails the same way (no
 * generated pod names, no server message that may carry one), so a retry rewrites no status. The API's
 * full message goes into the Warning Event instead.
 */
export function createFailureMessage(failure: CreateFailure, wanted: number): string {
  const verb = isKubeApiError(failure.error) ? 'rejected' : 'failed';
  return `${failure.failed} of ${wanted} pod creates ${verb}: ${stableReason(failure.error)}`;
}

/** An error's cause in words that don't vary between attempts: the API's reason, or the error's code or kind. */
export function stableReason(err: unknown): string {
  if (isKubeApiError(err)) return `${err.code} ${err.reason}`;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== '') return code;
  return err instanceof Error ? err.name : 'Error';
}
