// The worker's environment, declared once: validated at start with a message naming the variable.
import { ConfigError, int, list, num, oneOf, optionalInt, optionalStr, type Config } from '@podset/config';
import { kubeAccessEnv, kubeRateEnv } from '@podset/kube';
import { httpHostEnv, logEnv } from '@podset/runtime';
import { attemptsEnv, defaultBulkConcurrency, queueEnv } from '@podset/queue';
import { redisEnv } from '@podset/redis';
import { stateSourceEnv } from '@podset/state';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const workerEnv = {
  ...kubeAccessEnv,
  ...redisEnv,
  ...queueEnv,
  WATCH_NAMESPACES: list({
    description:
      "Comma-separated namespaces whose PodSets this worker reconciles (the watcher's list); a job whose key names another namespace is refused (logged, counted, never reconciled); empty: all namespaces",
    default: [],
    item: DNS_LABEL,
  }),
  WORKER_CONCURRENCY: int({
    description: 'Reconciles run in parallel by this process',
    default: 8,
    min: 1,
    max: 1000,
  }),
  WORKER_BULK_CONCURRENCY: optionalInt({
    description:
      'At most this many of the WORKER_CONCURRENCY slots run bulk (relist/resync) reconciles at once, the rest stay free for live changes (1 to WORKER_CONCURRENCY; WORKER_CONCURRENCY: no limit); unset: an eighth of WORKER_CONCURRENCY, at least 1',
    min: 1,
    max: 1000,
  }),
  ...kubeRateEnv({ qps: 50, burst: 100 }),
  CREATE_BURST: int({
    description: 'Largest slow-start batch of pod creates (batches 1, 2, 4, … up to this)',
    default: 64,
    min: 1,
    max: 10000,
  }),
  REQUEUE_PENDING_SECONDS: num({
    description:
      'Look again after this long while pods are not ready or still terminating: a net under the watch, which brings their changes (each requests a reconcile of its own)',
    default: 30,
    min: 0.1,
  }),
  ...attemptsEnv,
  ...stateSourceEnv,
  PARKED_RETRY_SECONDS: num({
    description:
      'A PodSet whose reconcile failed MAX_ATTEMPTS times is parked: tried once more after this long (and parked again if that fails), sooner only when its spec changes',
    default: 300,
    min: 1,
  }),
  FINISHED_PODS_TO_KEEP: int({
    description: 'Succeeded/Failed pods kept per PodSet for inspection',
    default: 3,
    min: 0,
  }),
  SHUTDOWN_TIMEOUT_SECONDS: num({
    description: 'On SIGTERM, how long active reconciles may take to finish',
    default: 25,
    min: 0,
  }),
  HTTP_PORT: int({
    description: 'Port for /metrics, /healthz, /readyz (0: disabled)',
    default: 8081,
    min: 0,
    max: 65535,
  }),
  EVENTS: oneOf(['all', 'warnings'] as const, {
    description:
      'Kubernetes Events recorded on PodSets: all (SuccessfulCreate/SuccessfulDelete too), or warnings only (one API write fewer per scale action)',
    default: 'all',
  }),
  ...httpHostEnv,
  ...logEnv,
  POD_NAME: optionalStr({ description: 'This replica (Events reportingInstance); default: the host name' }),
  POD_NAMESPACE: optionalStr({
    description:
      "The worker's own namespace (downward API); a WATCH_NAMESPACES that lists it is refused at start",
  }),
} as const;

export type WorkerConfig = Config<typeof workerEnv>;

/**
 * WORKER_BULK_CONCURRENCY resolved against WORKER_CONCURRENCY (unset: an eighth, at least 1). Throws a
 * ConfigError naming the variable when it exceeds WORKER_CONCURRENCY (each is valid on its own).
 */
export function bulkConcurrency(
  config: Pick<WorkerConfig, 'WORKER_CONCURRENCY' | 'WORKER_BULK_CONCURRENCY'>,
): number {
  const c = config.WORKER_CONCURRENCY;
  const k = config.WORKER_BULK_CONCURRENCY;
  if (k === undefined) return defaultBulkConcurrency(c);
  if (k > c) {
    throw new ConfigError([
      {
        variable: 'WORKER_BULK_CONCURRENCY',
        message: `must be at most WORKER_CONCURRENCY (${c}), got ${k}`,
      },
    ]);
  }
  return k;
}
