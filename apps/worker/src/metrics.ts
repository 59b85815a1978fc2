// The worker's Prometheus metrics, and the queue worker's hooks that feed them (and log failures).
import { type RequestRecord } from '@podset/kube';
import type { JobEndInfo, WorkerHooks } from '@podset/queue';
import { appRegistry, kubeRequestMetrics } from '@podset/runtime';
import type { Logger } from '@podset/log';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { KeyEndReason } from './controller.ts';
import { errorText } from './errors.ts';
import { BOUNDED_VALUES, outOfBoundsReport, type OutOfBoundsReport } from './out-of-bounds.ts';
import type { ApiReadReason } from './state-source.ts';

const OUTCOMES = ['completed', 'retry', 'failed'] as const satisfies readonly JobEndInfo['outcome'][];

export interface WorkerMetrics {
  registry: Registry;
  /** The Kubernetes client's per-request callback. */
  onKubeRequest(record: RequestRecord): void;
  /** The queue worker's hooks: reconcile outcomes, latency, deferrals, malformed jobs. */
  hooks: WorkerHooks;
  /** A projected entry the worker refused to plan from (see projection-state.ts). */
  onRefusedEntry(entry: { kind: 'pod' | 'podset'; reason: 'tag' | 'key' | 'replay' }): void;
  /** A job whose key names a namespace outside WATCH_NAMESPACES, refused unreconciled. */
  onForeignKey(): void;
  /** A value read from Redis out of its bounds, ignored (out-of-bounds.ts): logged and counted. */
  onOutOfBounds: OutOfBoundsReport;
  /** The queue's meta says paused (queue-settings.ts): 1, else 0. */
  setQueuePaused(paused: boolean): void;
  /** An API read pair (GET the PodSet, LIST its pods) of the projection's source, by why it was made. */
  onApiRead(reason: ApiReadReason): void;
  /** A key ended because the API no longer has its PodSet. */
  onKeyEnded(reason: KeyEndReason): void;
}

export function createWorkerMetrics(log: Logger): WorkerMetrics {
  const registry = appRegistry('podset_worker_');
  const reconciles = new Counter({
    name: 'podset_reconcile_total',
    help: 'Reconciles by outcome (completed, retry, failed)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  // Every outcome from the first scrape: increase() cannot see a series' first sample, so a counter
  // that appeared at 1 would hide the first failure from the alerts.
  for (const outcome of OUTCOMES) reconciles.inc({ outcome }, 0);
  const reconcileDuration = new Histogram({
    name: 'podset_reconcile_duration_seconds',
    help: 'Reconcile duration',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const reconcileLatency = new Histogram({
    name: 'podset_reconcile_start_latency_seconds',
    help: 'From the earliest request of a reconcile to its start',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [registry],
  });
  const deferred = new Counter({
    name: 'podset_reconcile_deferred_total',
    help: 'Bulk reconciles handed back to the queue unrun because the bulk share (WORKER_BULK_CONCURRENCY) was full',
    registers: [registry],
  });
  const malformed = new Counter({
    name: 'podset_reconcile_malformed_jobs_total',
    help: 'Jobs failed at once because their payload was invalid',
    registers: [registry],
  });
  const refusedEntries = new Counter({
    name: 'podset_projection_integrity_failures_total',
    help: "Projected entries refused and read from the API instead, by kind (pod, podset) and reason (tag: its integrity tag does not check; key: not its key's PodSet; replay: older than one already seen)",
    labelNames: ['kind', 'reason'],
    registers: [registry],
  });
  // Every series from the first scrape (see reconciles): the first forgery must raise the alert.
  for (const kind of ['pod', 'podset']) {
    for (const reason of ['tag', 'key', 'replay']) refusedEntries.inc({ kind, reason }, 0);
  }
  const foreignKeys = new Counter({
    name: 'podset_reconcile_foreign_namespace_total',
    help: 'Jobs refused unreconciled because their key names a namespace outside WATCH_NAMESPACES (a job nothing in this install enqueues: forged in Redis, or a watcher with another list)',
    registers: [registry],
  });
  const outOfBounds = new Counter({
    name: 'podset_redis_value_out_of_bounds_total',
    help: "Values read from Redis that no worker writes, ignored (taken as absent or expired), by what they were (park: a parked key's retry time; expectation: an awaited create or delete; epoch: a relist counter; queue-setting: a setting in the queue's meta the operator never sets)",
    labelNames: ['what'],
    registers: [registry],
  });
  // Every series from the first scrape (see reconciles).
  for (const what of BOUNDED_VALUES) outOfBounds.inc({ what }, 0);
  const queuePaused = new Gauge({
    name: 'podset_queue_paused',
    help: '1 while the reconcile queue is paused (its meta hash has paused set: no worker takes a reconcile), else 0',
    registers: [registry],
  });
  queuePaused.set(0);
  const apiReads = new Counter({
    name: 'podset_projection_api_reads_total',
    help: 'Reads of a key from the API by a worker planning from the projection, by reason (acting: its plan would create or delete pods, and only the plan from the API read acts; finalizer: its plan would remove the cleanup finalizer of a PodSet being deleted, and only the API read may; fallback: the projection could not answer)',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of ['acting', 'finalizer', 'fallback'] satisfies ApiReadReason[])
    apiReads.inc({ reason }, 0);
  const keysEnded = new Counter({
    name: 'podset_reconcile_keys_ended_total',
    help: 'Keys ended because the API no longer has their PodSet, by reason (NotFound: a 404 on the read or a write; UIDMismatch: another object of that name)',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of ['NotFound', 'UIDMismatch']) keysEnded.inc({ reason }, 0);
  return {
    registry,
    setQueuePaused: (paused) => queuePaused.set(paused ? 1 : 0),
    onKubeRequest: kubeRequestMetrics(registry),
    onOutOfBounds: outOfBoundsReport(log, (what, n) => outOfBounds.inc({ what }, n)),
    onApiRead: (reason) => apiReads.inc({ reason }),
    onKeyEnded: (reason) => keysEnded.inc({ reason }),
    onRefusedEntry: (entry) => refusedEntries.inc({ kind: entry.kind, reason: entry.reason }),
    onForeignKey: () => foreignKeys.inc(),
    hooks: {
      onStart: (info) => reconcileLatency.observe(Math.max(0, info.latencyMs) / 1000),
      onEnd: (info) => {
        reconciles.inc({ outcome: info.outcome });
        reconcileDuration.observe(info.durationMs / 1000);
        if (info.outcome === 'completed') return;
        log.warn(
          {
            podset: info.key,
            jobId: info.jobId,
            attempt: info.attempt,
            outcome: info.outcome,
            err: errorText(info.error),
          },
          info.outcome === 'retry'
            ? 'reconcile failed; will retry with backoff'
            : 'reconcile failed for good',
        );
      },
      onDeferred: () => deferred.inc(),
      onMalformed: (jobId, error) => {
        malformed.inc();
        log.error({ jobId, err: error.message }, 'malformed job failed without retry');
      },
      onError: (error) => log.error({ err: error.message }, 'queue worker error'),
    },
  };
}
