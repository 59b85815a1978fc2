// The watcher's checks on the operations endpoint (/healthz, /readyz, /metrics): ready while Redis answers
// PING and the API answers a LIST of PodSets (a missing CRD is its 404, so not ready). A standby is ready
// too: leadership is not readiness, and `leader: true|false` says which one it is.
import type { Clock } from '@podset/clock';
import { OpsManager, REDIS_PROBE_TIMEOUT_MS } from '@podset/runtime';
import type { Registry } from 'prom-client';

export interface WatcherOpsDeps {
  registry: Registry;
  clock?: Clock;
  /** Resolves when Redis answers PING. */
  pingRedis: () => Promise<unknown>;
  /** Resolves when the API lists PodSets (limit 1); `signal` aborts at the check's timeout. */
  listPodSets: (signal: AbortSignal) => Promise<unknown>;
  isLeader: () => boolean;
}

export function watcherOps(deps: WatcherOpsDeps): OpsManager {
  return new OpsManager({
    registry: deps.registry,
    ...(deps.clock !== undefined ? { clock: deps.clock } : {}),
  })
    .addReadyzCheck('redis', async () => void (await deps.pingRedis()), { timeoutMs: REDIS_PROBE_TIMEOUT_MS })
    .addReadyzCheck('kubernetes', async (signal) => void (await deps.listPodSets(signal)))
    .addReadyzInfo('leader', deps.isLeader);
}
