// The controller's contract: what it is built from (the planner, its options and dependencies) and what it
// offers the worker (a reconcile of one key, and the last word on a key that failed for good).
import type { Kube } from '@podset/kube';
import type { ReconcileResult } from '@podset/queue';
import type {
  ExecutionOutcome,
  Plan,
  PodSet,
  PodSetStatus,
  Pod,
  ReconcileOptions,
  Settled,
} from '@podset/reconcile';
import type { Clock } from '@podset/clock';
import type { Span, Tracer } from '@opentelemetry/api';
import type { Logger } from '@podset/log';
import type { EventRecorder } from './events.ts';
import type { ParkStore } from './park-store.ts';
import type { PodSetRef, StateSource } from './state-source.ts';

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
export interface Pass {
  ref: PodSetRef;
  log: Logger;
  signal: AbortSignal | undefined;
  /** The reconcile's span (tracing on): the generation and the plan's counts go on it too. */
  span: Span | undefined;
  /** The UID of the PodSet the first round read: a round after a 409 acts only for that object. */
  uid?: string | undefined;
}
