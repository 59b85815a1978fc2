// Prometheus series every app exports the same way: its own registry with the process metrics, the
// Kubernetes client's requests, and the queue's depth read at scrape time. One definition, so the
// series names, help texts and labels cannot drift between the watcher, the worker and the dashboard.
import type { RequestRecord } from '@podset/kube';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { withTimeout } from './timeout.ts';

/**
 * How often the event-loop delay histogram (the `nodejs_eventloop_lag_*` series) takes a sample, in ms.
 * prom-client's default of 10 ms wakes an idle process 100 times a second, which cost each app ~6 ms of CPU
 * a second doing nothing: more than the watcher's own work per pod at a cluster's pace. At 100 ms a stall
 * longer than that is still caught, and the percentiles stay meaningful over a scrape interval.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/** A registry with the process metrics under `<prefix>` (e.g. podset_worker_). */
export function appRegistry(prefix: string): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return registry;
}

/** podset_kube_requests_total and the rate limiter's wait; returns the client's onRequest callback. */
export function kubeRequestMetrics(registry: Registry): (record: RequestRecord) => void {
  const requests = new Counter({
    name: 'podset_kube_requests_total',
    help: 'Requests to the Kubernetes API by verb, resource and response code (0: no response)',
    labelNames: ['verb', 'resource', 'code'] as const,
    registers: [registry],
  });
  const wait = new Counter({
    name: 'podset_kube_rate_limiter_wait_seconds_total',
    help: 'Time requests spent waiting in the client-side rate limiter',
    registers: [registry],
  });
  return (r) => {
    requests.inc({ verb: r.verb, resource: r.resource, code: String(r.code) });
    if (r.waitMs > 0) wait.inc(r.waitMs / 1000);
  };
}

const QUEUE_READ_TIMEOUT_MS = 3_000;

/**
 * podset_queue_jobs{queue,state}, read at scrape time. The watcher and the dashboard both export it:
 * aggregate replicas with max by (queue, state). Redis away: no samples rather than stale ones.
 */
export function queueDepthGauge(
  registry: Registry,
  queueName: string,
  read: () => Promise<Record<string, number>>,
  onError: (err: Error) => void = () => undefined,
): void {
  new Gauge({
    name: 'podset_queue_jobs',
    help: 'Jobs in the reconcile queue by BullMQ state, read from Redis at scrape time',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const counts = await withTimeout(read(), QUEUE_READ_TIMEOUT_MS, 'queue counts');
        for (const [state, n] of Object.entries(counts)) this.set({ queue: queueName, state }, n);
      } catch (err) {
        onError(err instanceof Error ? err : new Error(String(err)));
      }
    },
  });
}
