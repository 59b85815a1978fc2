// The PodSet controller: what one reconcile does, read top to bottom (after kubernetes/sample-controller).
//
//   queue handler(request) → syncHandler(key)                      one key at a time (libs/queue)
//     1. GET the PodSet                 gone → done
//     2.                                being deleted → delete its pods; once they are gone, forget its
//                                       finished jobs and event-log entries (best effort), then remove
//                                       podset.io/cleanup → done
//     3. add podset.io/cleanup          if missing, so a deletion waits for our cleanup
//     4. LIST its pods                  consistent read (or NotOlderThan our newest known RV); owner UID
//     5. plan = reconcile(...)          libs/reconcile, pure
//     6. creates, deletes               slow-start batches; worst first with UID preconditions (executor.ts)
//     7. status                         only when changed; a 409 → back to 1, never overwrite (status-writer.ts)
//     8. Events, then                   { requeueAfterMs } from the plan, or throw → queue backoff
//   onFinalFailure(key)                 last attempt failed → ReplicaFailure condition + Warning Event
import { randomUUID } from 'node:crypto';
import {
  isConflict,
  isKubeApiError,
  isNotFound,
  type Kube,
  type Pod as WirePod,
  type PodSetWire,
} from '@podset/kube';
import type { Plan, PlannedEvent, PodSet, PodSetStatus, Pod, ReconcileOptions } from '@podset/reconcile';
import type { Logger } from 'pino';
import type { EventRecorder, InvolvedPodSet } from './events.ts';
import { executeCreates, executeDeletes, type CreateFailure } from './executor.ts';
import { rvMax } from '@podset/queue';
import { memoryRvStore, type RvStore } from './rv-store.ts';
import { withTimeout } from '@podset/runtime';
import { markReplicaFailure, writeStatus, type PodSetStatusWire } from './status-writer.ts';

import { CLEANUP_FINALIZER, controlledPods, NAME_LABEL } from '@podset/reconcile';
export { CLEANUP_FINALIZER, NAME_LABEL };

/** The pure planner's functions (libs/reconcile), injected so the loop reads without their details. */
export interface Planner {
  reconcile(podset: PodSet, pods: readonly Pod[], now: Date, opts?: ReconcileOptions): Plan;
  slowStartBatches(count: number, burst: number): number[];
  /** The status once a create/delete failed: ReplicaFailure True with the reason. */
  withFailure(status: PodSetStatus, reason: string, message: string, now: Date): PodSetStatus;
  /** The status once every create and delete went through: ReplicaFailure removed. */
  withoutFailure(status: PodSetStatus): PodSetStatus;
  statusEqual(a: PodSetStatus | undefined, b: PodSetStatus | undefined): boolean;
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
}

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
}

export interface ControllerDeps {
  kube: Kube;
  planner: Planner;
  events: EventRecorder;
  log: Logger;
  options: ControllerOptions;
  /** Newest RV of our own writes per key (for listMode notOlderThan). Default: in this process only. */
  rvStore?: RvStore;
  /**
   * A deleted PodSet's traces outside the API: its finished jobs and event-log entries in Redis
   * (ReconcileQueue.forgetKey). Resolves to what was removed, for the log. Default: none to remove.
   */
  cleanup?: (key: string) => Promise<object | void>;
  now?: () => Date;
}

/** A reconcile that went through but could not do all it had to: the queue retries it with backoff. */
export class ReconcileError extends Error {
  override name = 'ReconcileError';
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface Controller {
  /** One reconcile of "namespace/name". Throws to ask for a retry. */
  syncHandler(key: string, ctx?: Partial<SyncContext>): Promise<SyncResult>;
  /** The queue gave up on a key: say why in the PodSet's conditions and a Warning Event. */
  onFinalFailure(key: string, error: unknown, ctx?: Partial<SyncContext>): Promise<void>;
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
        const result = await syncOnce(key, ctx, log);
        log.info({ ms: Date.now() - started, requeueAfterMs: result.requeueAfterMs }, 'reconciled');
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

  async function syncOnce(key: string, ctx: SyncContext, log: Logger): Promise<SyncResult> {
    const [namespace, name] = splitKey(key);
    ctx.signal?.throwIfAborted();

    // 1. The PodSet, fresh. Gone → done.
    let podset = await getPodSet(namespace, name, ctx.signal);
    if (podset === undefined) {
      log.info('podset gone; nothing to do');
      await forget(key);
      return {};
    }

    // 2. Being deleted → delete its pods, forget its traces, then let it go.
    if (podset.metadata.deletionTimestamp !== undefined) return finalize(key, podset, ctx, log);

    // 3. Our finalizer first, so that a deletion waits for our cleanup.
    if (!hasFinalizer(podset)) {
      podset = await setFinalizer(podset, true);
      log.info('added finalizer');
    }

    // 4. Its pods, read fresh; only those it controls (owner UID) count.
    const pods = await listOwnedPods(key, podset, ctx);

    // 5. The plan (libs/reconcile: pure).
    const plan = planner.reconcile(
      podset as unknown as PodSet,
      pods as unknown as Pod[],
      now(),
      options.reconcile,
    );
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
    if (failure !== undefined) throw new ReconcileError(failure.reason, failure.message);
    return requeueOf(plan);
  }

  /**
   * The PodSet is being deleted: remove its pods, then (once every delete went through and none is left)
   * its finished jobs and event-log entries, then our finalizer.
   */
  async function finalize(
    key: string,
    podset: PodSetWire,
    ctx: SyncContext,
    log: Logger,
  ): Promise<SyncResult> {
    if (!hasFinalizer(podset)) {
      log.info('podset being deleted without our finalizer; nothing to do');
      return {};
    }
    const pods = await listOwnedPods(key, podset, ctx);
    const plan = planner.reconcile(
      podset as unknown as PodSet,
      pods as unknown as Pod[],
      now(),
      options.reconcile,
    );
    const failure = await execute(key, podset, plan, ctx, log);
    await recordAll(podset, plan.events);
    if (failure !== undefined) throw new ReconcileError(failure.reason, failure.message);
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
   * Run before the finalizer goes, as DESIGN.md orders it; a 409 on the finalizer patch runs it again,
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
    return kube.podSets.patch(podset.metadata.namespace, podset.metadata.name!, {
      metadata: {
        finalizers: present ? [...others, CLEANUP_FINALIZER] : others,
        resourceVersion: podset.metadata.resourceVersion,
      },
    });
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
        failure = { reason: 'FailedCreate', message: createFailureMessage(outcome.failure, outcome.skipped) };
        await events.record(involved, 'Warning', 'FailedCreate', failure.message);
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
          message: `${n} pod delete${plural(n)} failed: ${first.deletion.name}: ${errorText(first.error)}`,
        };
        log.warn({ failed: n, err: errorText(first.error) }, 'pod deletes failed');
      }
    }
    return failure;
  }

  /**
   * Writes the planned status if it differs from the stored one. A failed create/delete shows as
   * ReplicaFailure; a pass whose creates and deletes all went through clears it. PUT with the
   * resourceVersion we read: a 409 is thrown (and syncHandler re-reads).
   */
  async function updateStatus(
    key: string,
    podset: PodSetWire,
    plan: Plan,
    failure: Failure | undefined,
    ctx: SyncContext,
    log: Logger,
  ): Promise<void> {
    const status =
      failure !== undefined
        ? planner.withFailure(plan.status, failure.reason, failure.message, now())
        : plan.creates.length + plan.deletes.length > 0
          ? planner.withoutFailure(plan.status)
          : plan.status;
    if (planner.statusEqual(status, podset.status as PodSetStatus | undefined)) return;
    if (progressLeftToNextPass(podset, plan, failure)) {
      log.debug('status change left to the next pass (it will count the pods just created or deleted)');
      return;
    }
    ctx.signal?.throwIfAborted();
    const written = await writeStatus(kube, podset, status as unknown as PodSetStatusWire, ctx.signal);
    await remember(key, [written.metadata.resourceVersion]);
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
    if (notOlderThan) await rvStore.forget(key);
  }

  /** The queue gave up on this key: ReplicaFailure with the reason in the PodSet's status, and a Warning Event. */
  async function onFinalFailure(
    key: string,
    error: unknown,
    partial: Partial<SyncContext> = {},
  ): Promise<void> {
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
    log.error({ reason, err: message }, 'reconcile failed for good; parking the job');
    try {
      const podset = await markReplicaFailure(kube, namespace, name, reason, message, now);
      if (podset !== undefined) {
        await events.record(involvedOf(podset), 'Warning', 'ReconcileFailed', `${reason}: ${message}`);
      }
    } catch (err) {
      log.error({ err: errorText(err) }, 'could not record the final failure on the PodSet');
    }
  }

  return { syncHandler, onFinalFailure };
}

interface Failure {
  reason: string;
  message: string;
}

// ---- small helpers ----

export function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  if (i <= 0 || i === key.length - 1) throw new Error(`key ${JSON.stringify(key)} is not "namespace/name"`);
  return [key.slice(0, i), key.slice(i + 1)];
}

function hasFinalizer(podset: PodSetWire): boolean {
  return (podset.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER);
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

/**
 * A pass that created or deleted pods, all successfully, leaves its status update to the next pass: the
 * status was computed from the pods listed before the creates, so it is already out of date; those pods'
 * watch events bring the next pass within moments (the planned requeue at the latest), and that pass
 * counts them. One status write per scale-up instead of two (F2 in docs/PERFORMANCE.md). A failure, and
 * clearing one, are written at once.
 */
export function progressLeftToNextPass(
  podset: PodSetWire,
  plan: Plan,
  failure: Failure | undefined,
): boolean {
  if (failure !== undefined || plan.requeue === null) return false;
  if (plan.creates.length + plan.deletes.length === 0) return false;
  const failing = (conditions: readonly { type: string }[] | undefined) =>
    (conditions ?? []).some((c) => c.type === 'ReplicaFailure');
  return !failing(podset.status?.conditions) && !failing(plan.status.conditions);
}

function requeueOf(plan: Plan): SyncResult {
  return plan.requeue === null ? {} : { requeueAfterMs: plan.requeue.afterMs };
}

function plural(n: number): string {
  return n === 1 ? '' : 's';
}

export function errorText(err: unknown): string {
  if (isKubeApiError(err)) return `${err.code} ${err.reason}: ${err.statusMessage}`;
  return err instanceof Error ? err.message : String(err);
}

function createFailureMessage(failure: CreateFailure, skipped: number): string {
  const rest = skipped > 0 ? `; ${skipped} more not attempted` : '';
  return `Error creating pod${failure.failed > 1 ? ` (${failure.failed} failed)` : ''}: ${errorText(failure.error)}${rest}`;
}
