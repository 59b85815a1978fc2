// The dashboard's /healthz, /readyz and /metrics answers, shared by the authenticated app and the
// unauthenticated probe port: ready only while both Redis and the API server answer within their bounds.
import type { Kube } from '@podset/kube';
import { API_PROBE_TIMEOUT_MS, REDIS_PROBE_TIMEOUT_MS, withTimeout } from '@podset/runtime';
import type { RedisClient } from '@podset/redis';
import type { DashboardMetrics } from './metrics.ts';
import { probePodSets } from './podset-scope.ts';

export interface ProbeAnswer {
  status: number;
  type: string;
  body: string;
}

/** Answers a probe path, or undefined for any other path. */
export type Probe = (path: string) => Promise<ProbeAnswer | undefined>;

interface Readiness {
  ready: boolean;
  checks: Record<string, string>;
}

export function createProbe(deps: {
  redis: RedisClient;
  kube: Kube;
  namespaces: readonly string[];
  metrics: DashboardMetrics;
}): Probe {
  const { redis, kube, namespaces, metrics } = deps;
  async function readiness(): Promise<Readiness> {
    const [r, k] = await Promise.allSettled([
      withTimeout(redis.ping(), REDIS_PROBE_TIMEOUT_MS, 'redis'),
      probePodSets(kube, namespaces, AbortSignal.timeout(API_PROBE_TIMEOUT_MS)),
    ]);
    const checks: Record<string, string> = {
      redis: r.status === 'fulfilled' ? 'ok' : String((r.reason as Error)?.message ?? r.reason),
      kubernetes: k.status === 'fulfilled' ? 'ok' : String((k.reason as Error)?.message ?? k.reason),
    };
    metrics.dependencyUp.set({ dependency: 'redis' }, checks.redis === 'ok' ? 1 : 0);
    metrics.dependencyUp.set({ dependency: 'kubernetes' }, checks.kubernetes === 'ok' ? 1 : 0);
    return { ready: checks.redis === 'ok' && checks.kubernetes === 'ok', checks };
  }

  return async (path) => {
    if (path === '/healthz') return { status: 200, type: 'text/plain', body: 'ok\n' };
    if (path === '/readyz') {
      const r = await readiness();
      const body = Object.entries(r.checks)
        .map(([name, v]) => `${name}: ${v}`)
        .join('\n');
      return {
        status: r.ready ? 200 : 503,
        type: 'text/plain',
        body: `${r.ready ? 'ready' : 'not ready'}\n${body}\n`,
      };
    }
    if (path === '/metrics') {
      return { status: 200, type: metrics.registry.contentType, body: await metrics.registry.metrics() };
    }
    return undefined;
  };
}
