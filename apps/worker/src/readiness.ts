// /readyz for the worker: Redis answers PING, the API answers GET /version, the queue worker is taking
// work, and the queue is not paused. Each check uses a connection of its own, so a busy worker's queue of
// requests cannot make it look unready, and a result is reused for a second (probes and scrapers may poll
// often).
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '@podset/kube';
import type { RedisConnector } from '@podset/redis';
import { API_PROBE_TIMEOUT_MS, REDIS_PROBE_TIMEOUT_MS, withTimeout, type Readiness } from '@podset/runtime';
import { systemClock, type Clock } from '@podset/clock';
/** A readiness result is reused this long after it finished. */
const READINESS_CACHE_MS = 1_000;

export interface WorkerReadinessOptions {
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

export interface WorkerReadiness {
  readiness(): Promise<Readiness>;
  close(): void;
}

interface Checks {
  ready: boolean;
  checks: Record<string, string>;
}

export function createWorkerReadiness(opts: WorkerReadinessOptions): WorkerReadiness {
  // Fails at once while disconnected (no offline queue, no retry).
  const probeRedis = opts.redis.client({
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: REDIS_PROBE_TIMEOUT_MS,
  });
  probeRedis.on('error', () => undefined);
  let probeKube: KubeClient | undefined;
  let checkApi = opts.checkApi;
  if (checkApi === undefined) {
    const client = (probeKube = new KubeClient({
      kubeConfig: opts.kubeConfig,
      qps: 2,
      burst: 4,
      timeoutMs: API_PROBE_TIMEOUT_MS,
      userAgent: opts.userAgent,
      // Not counted in podset_kube_requests_total: probes are not the worker's work.
    }));
    checkApi = async (signal) => {
      await client.request({ verb: 'get', method: 'GET', path: '/version', signal });
    };
  }
  const api = checkApi;

  // Just started, or reconnecting: wait (bounded) for the connection rather than fail at once.
  const pingRedis = async () => {
    if (probeRedis.status !== 'ready') {
      await new Promise<void>((resolve, reject) => {
        const onReady = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          probeRedis.off('ready', onReady);
          reject(new Error(`not connected (${probeRedis.status})`));
        }, REDIS_PROBE_TIMEOUT_MS);
        probeRedis.once('ready', onReady);
      });
    }
    await withTimeout(probeRedis.ping(), REDIS_PROBE_TIMEOUT_MS, 'PING');
  };

  const cached = cachedCheck(async (): Promise<Checks> => {
    const [r, k, q] = await Promise.allSettled([
      pingRedis(),
      api(AbortSignal.timeout(API_PROBE_TIMEOUT_MS)),
      withTimeout(
        opts.checkQueue?.() ?? Promise.resolve(undefined),
        REDIS_PROBE_TIMEOUT_MS,
        'queue settings',
      ),
    ]);
    const checks: Record<string, string> = {
      redis: r.status === 'fulfilled' ? 'ok' : reasonText(r.reason),
      kubernetes: k.status === 'fulfilled' ? 'ok' : reasonText(k.reason),
      worker: opts.working() ? 'ok' : 'stopping',
      // A queue that cannot be read is the redis check's to report.
      queue: q.status === 'fulfilled' ? (q.value ?? 'ok') : 'ok',
    };
    return { ready: Object.values(checks).every((v) => v === 'ok'), checks };
  });

  return {
    async readiness() {
      const r = await cached();
      // Stopping wins over a cached "ready".
      const ready = r.ready && opts.working();
      const lines = Object.entries(r.checks).map(([name, v]) => `${name}: ${v}`);
      return { ready, lines: [ready ? 'ready' : 'not ready', ...lines] };
    },
    close() {
      probeRedis.disconnect();
      void probeKube?.close();
    },
  };
}

/** One check at a time; its result is reused for READINESS_CACHE_MS after it finished. */
function cachedCheck(
  check: () => Promise<Checks>,
  clock: Pick<Clock, 'now'> = systemClock,
): () => Promise<Checks> {
  let last: { result: Promise<Checks>; finishedAt: number | undefined } | undefined;
  return () => {
    const now = clock.now();
    if (last !== undefined && (last.finishedAt === undefined || now - last.finishedAt < READINESS_CACHE_MS)) {
      return last.result;
    }
    const entry: { result: Promise<Checks>; finishedAt: number | undefined } = {
      result: check(),
      finishedAt: undefined,
    };
    const finished = () => (entry.finishedAt = clock.now());
    entry.result.then(finished, finished);
    last = entry;
    return entry.result;
  };
}

function reasonText(reason: unknown): string {
  const text = reason instanceof Error ? reason.message : String(reason);
  return text.split('\n')[0]!.slice(0, 300);
}
