// The worker's checks on the operations endpoint (/healthz, /readyz, /metrics): Redis answers PING, the API
// answers GET /version, the queue worker is taking work, and the queue is not paused. Each check uses a
// connection of its own, so a busy worker's queue of requests cannot make it look unready, and a result is
// reused for a second (probes and scrapers may poll often) — except `worker`, so stopping shows at once.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '@podset/clock';
import { KubeClient } from '@podset/kube';
import type { RedisConnector } from '@podset/redis';
import { API_PROBE_TIMEOUT_MS, OpsManager, REDIS_PROBE_TIMEOUT_MS } from '@podset/runtime';
import type { Registry } from 'prom-client';

/** A check's result is reused this long after it finished. */
const READINESS_REUSE_MS = 1_000;

export interface WorkerOpsOptions {
  registry: Registry;
  clock?: Clock;
  redis: RedisConnector;
  kubeConfig: KubeConfig;
  userAgent: string;
  /** False while stopping: the worker takes no new work. */
  working: () => boolean;
  /** Tests: the API check instead of GET /version (throws when the API does not answer). */
  checkApi?: (signal: AbortSignal) => Promise<void>;
  /** Why the queue hands out no work (paused), or undefined when it does (queue-settings.ts). */
  checkQueue?: () => Promise<string | undefined>;
}

export interface WorkerOps {
  ops: OpsManager;
  /** Closes the checks' own connections. */
  close(): void;
}

export function workerOps(opts: WorkerOpsOptions): WorkerOps {
  // Fails at once while disconnected (no offline queue, no retry).
  const probeRedis = opts.redis.client({
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: REDIS_PROBE_TIMEOUT_MS,
  });
  probeRedis.on('error', () => undefined);
  const { check: api, client: probeKube } = apiCheck(opts);

  // Just started, or reconnecting: wait (until the check's timeout) for the connection rather than fail.
  const pingRedis = async (signal: AbortSignal) => {
    if (probeRedis.status !== 'ready') {
      await new Promise<void>((resolve, reject) => {
        const onReady = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          probeRedis.off('ready', onReady);
          reject(new Error(`not connected (${probeRedis.status})`));
        };
        probeRedis.once('ready', onReady);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
    await probeRedis.ping();
  };
  // A queue whose settings cannot be read is the redis check's to report.
  const queueCheck = async (signal: AbortSignal) => {
    const unread = new Promise<undefined>((resolve) =>
      signal.addEventListener('abort', () => resolve(undefined), { once: true }),
    );
    const why = await Promise.race([opts.checkQueue?.().catch(() => undefined), unread]);
    if (why !== undefined) throw new Error(why);
  };
  const reused = { reuseMs: READINESS_REUSE_MS };
  const ops = new OpsManager({
    registry: opts.registry,
    ...(opts.clock !== undefined ? { clock: opts.clock } : {}),
  })
    .addReadyzCheck('redis', pingRedis, { ...reused, timeoutMs: REDIS_PROBE_TIMEOUT_MS })
    .addReadyzCheck('kubernetes', api, { ...reused, timeoutMs: API_PROBE_TIMEOUT_MS })
    .addReadyzCheck('worker', async () => {
      if (!opts.working()) throw new Error('stopping');
    })
    .addReadyzCheck('queue', queueCheck, { ...reused, timeoutMs: REDIS_PROBE_TIMEOUT_MS });
  return {
    ops,
    close() {
      probeRedis.disconnect();
      void probeKube?.close();
    },
  };
}

/** The API check: the test's, or GET /version through a client of its own. */
function apiCheck(opts: WorkerOpsOptions): {
  check: (signal: AbortSignal) => Promise<void>;
  client: KubeClient | undefined;
} {
  if (opts.checkApi !== undefined) return { check: opts.checkApi, client: undefined };
  const client = new KubeClient({
    kubeConfig: opts.kubeConfig,
    qps: 2,
    burst: 4,
    timeoutMs: API_PROBE_TIMEOUT_MS,
    userAgent: opts.userAgent,
    // Not counted in podset_kube_requests_total: probes are not the worker's work.
  });
  return {
    check: async (signal) =>
      void (await client.request({ verb: 'get', method: 'GET', path: '/version', signal })),
    client,
  };
}
