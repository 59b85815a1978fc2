// The script loader's /metrics: its process metrics and the BUSY watchdog's kills. Made here, not in its
// main, so the monitoring tests can read the names the alerting rules use.
import { Counter, type Registry } from 'prom-client';
import { appRegistry } from '@podset/runtime';
import { BUSY_KILL_RESULTS, type BusyKillResult } from './redis-busy-watchdog.ts';

export interface RedisScriptsMetrics {
  registry: Registry;
  /** Counts one kill attempt by what Redis answered. */
  onKill(result: BusyKillResult): void;
}

export function createRedisScriptsMetrics(): RedisScriptsMetrics {
  const registry = appRegistry('podset_redis_scripts_');
  const kills = new Counter({
    name: 'podset_redis_busy_kills_total',
    help: 'SCRIPT KILL (or FUNCTION KILL) the BUSY watchdog sent, by what Redis answered',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  // Every result at 0 from the start: increase() sees the first kill.
  for (const result of BUSY_KILL_RESULTS) kills.inc({ result }, 0);
  return { registry, onKill: (result) => kills.inc({ result }) };
}
