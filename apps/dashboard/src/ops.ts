// The dashboard's checks on the operations endpoint (/healthz, /readyz, /metrics), answered both on the
// authenticated app and on the unauthenticated probe port: ready only while Redis answers PING and the API
// lists PodSets in the dashboard's namespaces; each check also sets podset_dashboard_dependency_up.
import type { Kube } from '@podset/kube';
import type { RedisClient } from '@podset/redis';
import { OpsManager, REDIS_PROBE_TIMEOUT_MS, type Check } from '@podset/runtime';
import type { DashboardMetrics } from './metrics.ts';
import { probePodSets } from './podset-scope.ts';

export function dashboardOps(deps: {
  redis: Pick<RedisClient, 'ping'>;
  kube: { podSets: Pick<Kube['podSets'], 'list'> };
  namespaces: readonly string[];
  metrics: Pick<DashboardMetrics, 'registry' | 'dependencyUp'>;
}): OpsManager {
  const { redis, kube, namespaces, metrics } = deps;
  // The gauge follows each check, a timed-out one included.
  const tracked =
    (dependency: string, check: Check): Check =>
    async (signal) => {
      const down = () => metrics.dependencyUp.set({ dependency }, 0);
      signal.addEventListener('abort', down, { once: true });
      try {
        await check(signal);
        if (!signal.aborted) metrics.dependencyUp.set({ dependency }, 1);
      } catch (err) {
        down();
        throw err;
      } finally {
        signal.removeEventListener('abort', down);
      }
    };
  return new OpsManager({ registry: metrics.registry })
    .addReadyzCheck(
      'redis',
      tracked('redis', async () => void (await redis.ping())),
      {
        timeoutMs: REDIS_PROBE_TIMEOUT_MS,
      },
    )
    .addReadyzCheck(
      'kubernetes',
      tracked('kubernetes', (signal) => probePodSets(kube, namespaces, signal)),
    );
}
