// The dashboard's /metrics: queue depth by state (read from Redis on each scrape), its own Kubernetes
// requests, and the state of its dependencies as the last readiness check saw them.
import { Gauge, type Registry } from 'prom-client';
import type { Queue } from 'bullmq';
import type { RequestRecord } from '@podset/kube';
import { appRegistry, kubeRequestMetrics, queueDepthGauge } from '@podset/runtime';
import { JOB_STATES, jobCounts } from './overview.ts';

export interface DashboardMetrics {
  registry: Registry;
  onKubeRequest(record: RequestRecord): void;
  dependencyUp: Gauge<'dependency'>;
}

export function createMetrics(
  queue: Queue,
  queueName: string,
  onError: (err: Error) => void,
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
  const onKubeRequest = kubeRequestMetrics(registry);
  const dependencyUp = new Gauge({
    name: 'podset_dashboard_dependency_up',
    help: 'Whether the last readiness check reached the dependency (redis, kubernetes)',
    labelNames: ['dependency'] as const,
    registers: [registry],
  });
  return { registry, onKubeRequest, dependencyUp };
}
