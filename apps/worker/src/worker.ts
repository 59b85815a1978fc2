// Assembles the worker from its parts: kube client (rate-limited) → controller → queue worker, plus
// metrics and health endpoints. main.ts calls this with the parsed environment; tests call it directly.
import os from 'node:os';
import { createKube, KubeClient, type Kube, type RequestRecord } from '@podset/kube';
import { startReconcileWorker, urlConnector, type ReconcileWorker, type RedisConnector } from '@podset/queue';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { eventLogKey } from './config.ts';
import { createController, errorText, type Controller, type Planner } from './controller.ts';
import { createEventRecorder } from './events.ts';
import { redisParkStore } from './park-store.ts';
import { redisRvStore } from './rv-store.ts';
import { createLogger, startOpsServer, withTimeout, type OpsServer } from '@podset/runtime';

export interface WorkerSettings {
  kubeConfig: KubeConfig;
  /** Redis from configuration (single node, Sentinel or Cluster); wins over redisUrl. */
  redis?: RedisConnector;
  /** One Redis node (tests); used when `redis` is not given. */
  redisUrl?: string;
  queueName: string;
  queuePrefix: string;
  concurrency: number;
  /** At most this many of the slots run bulk reconciles at once (1..concurrency); unset: no limit. */
  bulkConcurrency?: number;
  kubeQps: number;
  kubeBurst: number;
  createBurst: number;
  requeuePendingMs: number;
  maxAttempts: number;
  /** A key that failed its last attempt is retried once after this long, sooner only on a spec change. */
  parkedRetryMs?: number;
  finishedPodsToKeep: number;
  shutdownTimeoutMs: number;
  /** 0: no HTTP server. */
  httpPort: number;
  instance: string;
  listMode?: 'consistent' | 'notOlderThan';
  /** Kubernetes Events on PodSets: all (default), or warnings only. */
  events?: 'all' | 'warnings';
  /** The watcher's event-log stream (EVENT_LOG_KEY); default <queuePrefix>:<queueName>:watcher:events. */
  eventLogKey?: string;
  /** Backoff between attempts (tests shorten it). */
  backoff?: { baseMs?: number; maxMs?: number; jitter?: number };
}

export interface RunningWorker {
  kube: Kube;
  controller: Controller;
  queueWorker: ReconcileWorker;
  metrics: Registry;
  /** The HTTP port actually bound (when httpPort was given). */
  httpPort: number | undefined;
  close(): Promise<void>;
}

export async function startWorker(
  settings: WorkerSettings,
  deps: {
    planner: Planner;
    log?: Logger;
    /** Tests: an API stand-in instead of one built from kubeConfig. */ kube?: Kube;
    /**
     * /readyz's API check (throws when the API does not answer). Default: GET /version through a
     * client of its own (own rate limiter, so a busy worker's queue of requests does not delay it).
     */
    checkApi?: (signal: AbortSignal) => Promise<void>;
  },
): Promise<RunningWorker> {
  const log = deps.log ?? createLogger({ name: 'podset-worker' });
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics, prefix: 'podset_worker_' });
  const kubeRequests = new Counter({
    name: 'podset_kube_requests_total',
    help: 'Requests to the Kubernetes API by verb, resource and response code (0: no response)',
    labelNames: ['verb', 'resource', 'code'],
    registers: [metrics],
  });
  const kubeWait = new Counter({
    name: 'podset_kube_rate_limiter_wait_seconds_total',
    help: 'Time requests spent waiting in the client-side rate limiter',
    registers: [metrics],
  });
  const reconciles = new Counter({
    name: 'podset_reconcile_total',
    help: 'Reconciles by outcome (completed, retry, failed)',
    labelNames: ['outcome'],
    registers: [metrics],
  });
  const reconcileDuration = new Histogram({
    name: 'podset_reconcile_duration_seconds',
    help: 'Reconcile duration',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [metrics],
  });
  const reconcileLatency = new Histogram({
    name: 'podset_reconcile_start_latency_seconds',
    help: 'From the earliest request of a reconcile to its start',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [metrics],
  });
  const deferred = new Counter({
    name: 'podset_reconcile_deferred_total',
    help: 'Bulk reconciles handed back to the queue unrun because the bulk share (WORKER_BULK_CONCURRENCY) was full',
    registers: [metrics],
  });
  const malformed = new Counter({
    name: 'podset_reconcile_malformed_jobs_total',
    help: 'Jobs failed at once because their payload was invalid',
    registers: [metrics],
  });

  const kube =
    deps.kube ??
    createKube(settings.kubeConfig, {
      qps: settings.kubeQps,
      burst: settings.kubeBurst,
      userAgent: `podset-worker/${settings.instance}`,
      onRequest: (r: RequestRecord) => {
        kubeRequests.inc({ verb: r.verb, resource: r.resource, code: String(r.code) });
        if (r.waitMs > 0) kubeWait.inc(r.waitMs / 1000);
      },
    });
  const events = createEventRecorder({
    kube,
    log,
    instance: settings.instance,
    types: settings.events ?? 'all',
  });
  let redis = settings.redis;
  if (redis === undefined) {
    if (settings.redisUrl === undefined)
      throw new Error('startWorker: give settings.redis or settings.redisUrl');
    redis = urlConnector(settings.redisUrl);
  }
  const logKey = eventLogKey({
    EVENT_LOG_KEY: settings.eventLogKey,
    QUEUE_PREFIX: settings.queuePrefix,
    QUEUE_NAME: settings.queueName,
  });
  // NotOlderThan reads need the newest RV of our own writes, shared by every replica through Redis.
  const rvRedis =
    settings.listMode === 'notOlderThan' ? redis.client({ maxRetriesPerRequest: 3 }) : undefined;
  rvRedis?.on('error', (err: Error) => log.warn({ err: err.message }, 'redis (rv store) error'));
  // Parked keys are shared by every replica and outlive the failed job.
  const parkRedis = redis.client({ maxRetriesPerRequest: 3 });
  parkRedis.on('error', (err: Error) => log.warn({ err: err.message }, 'redis (park store) error'));
  const controller = createController({
    kube,
    planner: deps.planner,
    events,
    log,
    ...(rvRedis !== undefined
      ? { rvStore: redisRvStore(rvRedis, { prefix: `${settings.queuePrefix}:podset-rv:` }) }
      : {}),
    parkStore: redisParkStore(parkRedis, {
      prefix: `${settings.queuePrefix}:${settings.queueName}:parked:`,
    }),
    // A deleted PodSet's finished jobs and event-log entries, through the queue's own connections.
    cleanup: (key) => queueWorker.queue.forgetKey(key, { eventLogKey: logKey }),
    options: {
      createBurst: settings.createBurst,
      listMode: settings.listMode ?? 'consistent',
      ...(settings.parkedRetryMs !== undefined ? { parkedRetryMs: settings.parkedRetryMs } : {}),
      reconcile: {
        notReadyRequeueMs: settings.requeuePendingMs,
        finishedPodsToKeep: settings.finishedPodsToKeep,
      },
    },
  });

  let reconcileSeq = 0;
  const queueWorker = startReconcileWorker({
    connection: redis,
    queueName: settings.queueName,
    prefix: settings.queuePrefix,
    concurrency: settings.concurrency,
    ...(settings.bulkConcurrency !== undefined ? { bulkConcurrency: settings.bulkConcurrency } : {}),
    attempts: settings.maxAttempts,
    closeTimeoutMs: settings.shutdownTimeoutMs,
    name: settings.instance,
    ...(settings.backoff !== undefined ? { backoff: settings.backoff } : {}),
    handler: (req, ctx) =>
      controller.syncHandler(req.key, {
        reconcileId: `${settings.instance}-${(++reconcileSeq).toString(36)}`,
        jobId: ctx.jobId,
        attempt: ctx.attempt,
        signal: ctx.signal,
        ...(req.rv !== undefined ? { rv: req.rv } : {}),
      }),
    onFinalFailure: (req, error, ctx) =>
      controller.onFinalFailure(req.key, error, { jobId: ctx.jobId, attempt: ctx.attempt }),
    hooks: {
      onStart: (info) => reconcileLatency.observe(Math.max(0, info.latencyMs) / 1000),
      onEnd: (info) => {
        reconciles.inc({ outcome: info.outcome });
        reconcileDuration.observe(info.durationMs / 1000);
        if (info.outcome !== 'completed') {
          log.warn(
            {
              podset: info.key,
              jobId: info.jobId,
              attempt: info.attempt,
              outcome: info.outcome,
              err: errorText(info.error),
            },
            info.outcome === 'retry'
              ? 'reconcile failed; will retry with backoff'
              : 'reconcile failed for good',
          );
        }
      },
      onDeferred: () => deferred.inc(),
      onMalformed: (jobId, error) => {
        malformed.inc();
        log.error({ jobId, err: error.message }, 'malformed job failed without retry');
      },
      onError: (error) => log.error({ err: error.message }, 'queue worker error'),
    },
  });

  let server: OpsServer | undefined;
  let httpPort: number | undefined;
  let ready = true;
  let closeProbes = () => {};
  if (settings.httpPort > 0 || settings.httpPort === -1) {
    // Readiness pings on a client that fails at once while disconnected (no offline queue, no retry).
    const probeRedis = redis.client({
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 2_000,
    });
    probeRedis.on('error', () => undefined);
    let probeKube: KubeClient | undefined;
    let checkApi = deps.checkApi;
    if (checkApi === undefined) {
      const client = (probeKube = new KubeClient({
        kubeConfig: settings.kubeConfig,
        qps: 2,
        burst: 4,
        timeoutMs: API_PROBE_TIMEOUT_MS,
        userAgent: `podset-worker/${settings.instance}`,
        // Not counted in podset_kube_requests_total: probes are not the worker's work.
      }));
      checkApi = async (signal) => {
        await client.request({ verb: 'get', method: 'GET', path: '/version', signal });
      };
    }
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
    const readiness = cachedReadiness(async () => {
      const [r, k] = await Promise.allSettled([
        pingRedis(),
        checkApi(AbortSignal.timeout(API_PROBE_TIMEOUT_MS)),
      ]);
      const checks: Record<string, string> = {
        redis: r.status === 'fulfilled' ? 'ok' : reasonText(r.reason),
        kubernetes: k.status === 'fulfilled' ? 'ok' : reasonText(k.reason),
        worker: ready && queueWorker.worker.isRunning() ? 'ok' : 'stopping',
      };
      return { ready: Object.values(checks).every((v) => v === 'ok'), checks };
    });
    closeProbes = () => {
      probeRedis.disconnect();
      void probeKube?.close();
    };
    server = await startOpsServer({
      port: settings.httpPort === -1 ? 0 : settings.httpPort,
      registry: metrics,
      readiness: async () => {
        const r = await readiness();
        const isReady = r.ready && ready;
        const lines = Object.entries(r.checks).map(([name, v]) => `${name}: ${v}`);
        return { ready: isReady, lines: [isReady ? 'ready' : 'not ready', ...lines] };
      },
    });
    httpPort = server.port;
  }

  log.info(
    {
      queue: settings.queueName,
      concurrency: settings.concurrency,
      bulkConcurrency: settings.bulkConcurrency ?? settings.concurrency,
      kubeQps: settings.kubeQps,
      kubeBurst: settings.kubeBurst,
      createBurst: settings.createBurst,
      server: kube.client?.server,
      redis: redis.target,
    },
    'worker started',
  );

  let closing: Promise<void> | undefined;
  return {
    kube,
    controller,
    queueWorker,
    metrics,
    httpPort,
    close() {
      closing ??= (async () => {
        ready = false;
        log.info(
          { active: queueWorker.activeCount() },
          'worker stopping: no new work, finishing active reconciles',
        );
        await queueWorker.close();
        rvRedis?.disconnect();
        parkRedis.disconnect();
        closeProbes();
        // Close the connection pool only of a client we built (an injected one belongs to its owner).
        if (deps.kube === undefined) await kube.client.close();
        await server?.close();
        log.info('worker stopped');
      })();
      return closing;
    },
  };
}

export function defaultInstance(): string {
  return process.env.POD_NAME ?? `${os.hostname()}-${process.pid}`;
}

const REDIS_PROBE_TIMEOUT_MS = 2_000;
const API_PROBE_TIMEOUT_MS = 3_000;
/** A readiness result is reused this long (probes and scrapers may poll often; each check costs a call). */
const READINESS_CACHE_MS = 1_000;

interface Readiness {
  ready: boolean;
  checks: Record<string, string>;
}

/** One check at a time; its result is reused for READINESS_CACHE_MS after it finished. */
function cachedReadiness(check: () => Promise<Readiness>): () => Promise<Readiness> {
  let last: { result: Promise<Readiness>; finishedAt: number | undefined } | undefined;
  return () => {
    const now = performance.now();
    if (last !== undefined && (last.finishedAt === undefined || now - last.finishedAt < READINESS_CACHE_MS)) {
      return last.result;
    }
    const entry: { result: Promise<Readiness>; finishedAt: number | undefined } = {
      result: check(),
      finishedAt: undefined,
    };
    entry.result.then(
      () => (entry.finishedAt = performance.now()),
      () => (entry.finishedAt = performance.now()),
    );
    last = entry;
    return entry.result;
  };
}

function reasonText(reason: unknown): string {
  const text = reason instanceof Error ? reason.message : String(reason);
  return text.split('\n')[0]!.slice(0, 300);
}
