// The dashboard's /metrics: queue depth by state (read from Redis on each scrape), its own Kubernetes
// requests, and the state of its dependencies as the last readiness check saw them.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Queue } from 'bullmq';
import { withTimeout } from '@podset/runtime';
import { JOB_STATES, jobCounts } from './overview.ts';

export interface DashboardMetrics {
  registry: Registry;
  kubeRequests: Counter<'verb' | 'resource' | 'code'>;
  kubeWait: Counter;
  dependencyUp: Gauge<'dependency'>;
}

export function createMetrics(
  queue: Queue,
  queueName: string,
  onError: (err: Error) => void,
): DashboardMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'podset_dashboard_' });
  new Gauge({
    name: 'podset_queue_jobs',
    help: 'Jobs in the reconcile queue by state, read from Redis at scrape time',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      try {
        const counts = await withTimeout(jobCounts(queue), 3_000, 'queue counts');
        for (const state of JOB_STATES) this.set({ queue: queueName, state }, counts[state] ?? 0);
      } catch (err) {
        // No stale numbers: a scrape without Redis shows no series (and podset_dashboard_dependency_up 0).
        this.reset();
        onError(err instanceof Error ? err : new Error(String(err)));
      }
    },
  });
  const kubeRequests = new Counter({
    name: 'podset_kube_requests_total',
    help: 'Requests to the Kubernetes API by verb, resource and response code (0: no response)',
    labelNames: ['verb', 'resource', 'code'] as const,
    registers: [registry],
  });
  const kubeWait = new Counter({
    name: 'podset_kube_rate_limiter_wait_seconds_total',
    help: 'Time requests spent waiting in the client-side rate limiter',
    registers: [registry],
  });
  const dependencyUp = new Gauge({
    name: 'podset_dashboard_dependency_up',
    help: 'Whether the last readiness check reached the dependency (redis, kubernetes)',
    labelNames: ['dependency'] as const,
    registers: [registry],
  });
  return { registry, kubeRequests, kubeWait, dependencyUp };
}
