// The dashboard's /metrics: queue depth by state (read from Redis on each scrape), whether each PodSet
// is converged (read from the API on each scrape), its own Kubernetes requests, and the state of its
// dependencies as the last readiness check saw them.
import { Gauge, type Registry } from 'prom-client';
import type { Queue } from 'bullmq';
import type { PodSet, RequestRecord } from '@podset/kube';
import { appRegistry, kubeRequestMetrics, queueDepthGauge, withTimeout } from '@podset/runtime';
import { JOB_STATES, jobCounts, keyOfPodSet, podSetConverged, READ_TIMEOUT_MS } from './overview.ts';

export interface DashboardMetrics {
  registry: Registry;
  onKubeRequest(record: RequestRecord): void;
  dependencyUp: Gauge<'dependency'>;
}

export function createMetrics(
  queue: Queue,
  queueName: string,
  onError: (err: Error) => void,
  /** For podset_converged: lists every PodSet; its failures go to onError. */
  podSets?: { list: () => Promise<PodSet[]>; onError: (err: Error) => void },
): DashboardMetrics {
  const registry = appRegistry('podset_dashboard_');
  // Every state, 0 when empty: a state's series exists from the first scrape.
  queueDepthGauge(
    registry,
    queueName,
    async () => {
      const counts = await jobCounts(queue);
      return Object.fromEntries(JOB_STATES.map((state) => [state, counts[state] ?? 0]));
    },
    onError,
  );
  if (podSets !== undefined) podSetConvergedGauge(registry, podSets.list, podSets.onError);
  const onKubeRequest = kubeRequestMetrics(registry);
  const dependencyUp = new Gauge({
    name: 'podset_dashboard_dependency_up',
    help: 'Whether the last readiness check reached the dependency (redis, kubernetes)',
    labelNames: ['dependency'] as const,
    registers: [registry],
  });
  return { registry, onKubeRequest, dependencyUp };
}

/**
 * podset_converged{podset="<namespace>/<name>"}: 1 or 0 per PodSet, from a list at scrape time (the
 * dashboard lists PodSets anyway; the watcher resumes from checkpoints and so never sees them all).
 * The API away: no samples rather than stale ones. A deleted PodSet's series goes with it.
 */
function podSetConvergedGauge(
  registry: Registry,
  listPodSets: () => Promise<PodSet[]>,
  onError: (err: Error) => void,
): void {
  new Gauge({
    name: 'podset_converged',
    help: 'Whether the PodSet is converged (all desired pods current and Ready, no rollout, spec observed)',
    labelNames: ['podset'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const items = await withTimeout(listPodSets(), READ_TIMEOUT_MS, 'podsets');
        for (const ps of items) {
          const key = keyOfPodSet(ps);
          this.set({ podset: key }, podSetConverged(ps) ? 1 : 0);
        }
      } catch (err) {
        onError(err instanceof Error ? err : new Error(String(err)));
      }
    },
  });
}
