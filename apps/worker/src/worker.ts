// The worker, assembled like sample-controller's controller.go: a rate-limited kube client → the
// controller (syncHandler: read, plan, execute, write status) → the BullMQ queue worker that feeds it
// keys, plus its checks on the operations endpoint (/healthz, /readyz, /metrics). main.ts calls
// startWorker with the parsed environment; tests call it directly.
import os from 'node:os';
import { createKube, type Kube } from '@podset/kube';
import { startReconcileWorker, type ReconcileWorker } from '@podset/queue';
import { type RedisClient } from '@podset/redis';
import { urlConnector, type RedisConnector } from '@podset/redis';
import {
  EntryTags,
  EXPECTATION_CLOCK_SKEW_MS,
  EXPECTATION_TTL_MS,
  stateSourceEnv,
  type TagKeys,
} from '@podset/state';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@podset/log';
import type { Registry } from 'prom-client';
import { bullKeys, eventLogKeyOf, jobPrefixOf, parkedPrefixOf } from '@podset/redis';
import { createController, DEFAULT_PARKED_RETRY_MS, type Controller, type Planner } from './controller.ts';
import { createEventRecorder } from './events.ts';
import { traceReconcile, tracedEvents } from './reconcile-tracing.ts';
import type { Tracer } from '@opentelemetry/api';
import { createWorkerMetrics, type WorkerMetrics } from './metrics.ts';
import { PARK_CLOCK_SKEW_MS, redisParkStore } from './park-store.ts';
import { podWritesPerPass } from './pass-size.ts';
import { keyInScope } from './namespace-scope.ts';
import { watchQueueSettings } from './queue-settings.ts';
import { workerOps, type WorkerOps } from './ops.ts';
import { openStateSource } from './open-state-source.ts';
import type { StateSourceKind } from './state-source.ts';
import { STORE_CLIENT_TUNING } from './store-client.ts';
import { createLogger, type OpsListener } from '@podset/runtime';

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
  /** Where it listens (HTTP_HOST); default 0.0.0.0. */
  httpHost?: string;
  instance: string;
  /** Kubernetes Events on PodSets: all (default), or warnings only. */
  events?: 'all' | 'warnings';
  /** The watcher's event-log stream (EVENT_LOG_KEY); default <queuePrefix>:<queueName>:watcher:events. */
  eventLogKey?: string;
  /**
   * The namespaces whose keys it reconciles (WATCH_NAMESPACES); a job for any other is refused. Unset or
   * empty: all.
   */
  watchNamespaces?: readonly string[];
  /** Where reconciles read each key's state (STATE_SOURCE; its default when unset). */
  stateSource?: StateSourceKind;
  /**
   * The projection's integrity key(s) (PROJECTION_HMAC_KEY): entries read from the projection are
   * checked with it. Without it the worker never plans from the projection: it reads every key from the API.
   */
  projectionHmacKeys?: TagKeys;
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

export interface WorkerDeps {
  planner: Planner;
  log?: Logger;
  /** Tests: an API stand-in instead of one built from kubeConfig. */
  kube?: Kube;
  /**
   * /readyz's API check (throws when the API does not answer). Default: GET /version through a
   * client of its own (own rate limiter, so a busy worker's queue of requests does not delay it).
   */
  checkApi?: (signal: AbortSignal) => Promise<void>;
  /** Set only when tracing is on (OTEL_* variables): a span per reconcile and per step. */
  tracer?: Tracer;
}

export async function startWorker(settings: WorkerSettings, deps: WorkerDeps): Promise<RunningWorker> {
  const log: Logger = deps.log ?? createLogger({ name: 'podset-worker' });
  const userAgent = `podset-worker/${settings.instance}`;
  const metrics = createWorkerMetrics(log);
  const redis = redisOf(settings);

  // 1. The API client (rate-limited, every request counted) and the Events it records.
  const kube =
    deps.kube ??
    createKube(settings.kubeConfig, {
      qps: settings.kubeQps,
      burst: settings.kubeBurst,
      userAgent,
      onRequest: metrics.onKubeRequest,
    });
  const recorder = createEventRecorder({
    kube,
    log,
    instance: settings.instance,
    types: settings.events ?? 'all',
  });
  const events = deps.tracer === undefined ? recorder : tracedEvents(recorder, deps.tracer);

  // 2. The controller: one key in, one reconcile out. Its state source (chosen here, once) and its parked
  // keys are in Redis, shared by every replica; they share one connection, auto-pipelined (store-client.ts).
  const stateSource = settings.stateSource ?? stateSourceEnv.STATE_SOURCE.fallback();
  const storeRedis = redis.client(STORE_CLIENT_TUNING);
  storeRedis.on('error', (err: Error) => log.warn({ err: err.message }, 'redis (state, park store) error'));
  const controller = buildController(settings, deps, {
    kube,
    events,
    log,
    metrics,
    stateSource,
    storeRedis,
    // A deleted PodSet's finished jobs and event-log entries.
    forgetKey: (key, eventLogKey) => queueWorker.queue.forgetKey(key, { eventLogKey }),
  });

  // 3. The queue worker: BullMQ hands each key to the controller's syncHandler, with retries and backoff.
  const watchNamespaces = settings.watchNamespaces ?? [];
  const queueParts = { redis, storeRedis, controller, metrics, log, watchNamespaces, deps };
  const queueWorker = startQueueWorker(settings, queueParts);

  // The queue's settings in Redis: a pause alerted, foreign global limits removed (queue-settings.ts).
  const queueSettings = watchQueueSettings({
    client: storeRedis,
    metaKey: bullKeys(jobPrefixOf(settings.queuePrefix, settings.queueName)).meta,
    log,
    outOfBounds: metrics.onOutOfBounds,
    paused: metrics.setQueuePaused,
  });

  // 4. /healthz, /readyz and /metrics.
  let stopping = false;
  let probes: WorkerOps | undefined;
  let server: OpsListener | undefined;
  if (settings.httpPort > 0 || settings.httpPort === -1) {
    probes = workerOps({
      registry: metrics.registry,
      redis,
      kubeConfig: settings.kubeConfig,
      userAgent,
      working: () => !stopping && queueWorker.worker.isRunning(),
      checkQueue: queueSettings.check,
      ...(deps.checkApi !== undefined ? { checkApi: deps.checkApi } : {}),
    });
    server = await probes.ops.listen({
      port: settings.httpPort === -1 ? 0 : settings.httpPort,
      ...(settings.httpHost !== undefined ? { host: settings.httpHost } : {}),
    });
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
      stateSource,
      namespaces: watchNamespaces.length === 0 ? 'all' : watchNamespaces,
      ...(server !== undefined ? { httpHost: server.host, httpPort: server.port } : {}),
    },
    'worker started',
  );

  let closing: Promise<void> | undefined;
  return {
    kube,
    controller,
    queueWorker,
    metrics: metrics.registry,
    httpPort: server?.port,
    close() {
      closing ??= (async () => {
        stopping = true;
        log.info(
          { active: queueWorker.activeCount() },
          'worker stopping: no new work, finishing active reconciles',
        );
        await queueWorker.close();
        queueSettings.close();
        storeRedis.disconnect();
        probes?.close();
        // Close the connection pool only of a client we built (an injected one belongs to its owner).
        if (deps.kube === undefined) await kube.client.close();
        await server?.close();
        log.info('worker stopped');
      })();
      return closing;
    },
  };
}

/** The bound each projection value out of bounds broke (libs/state's reader ignored it). */
const PROJECTION_BOUNDS = {
  expectation: `expires more than ${(EXPECTATION_TTL_MS + EXPECTATION_CLOCK_SKEW_MS) / 1000} s ahead, or is not of a worker's making`,
  epoch: 'not a whole number of at most 15 digits',
} as const;

interface ControllerParts {
  kube: Kube;
  events: ReturnType<typeof createEventRecorder>;
  log: Logger;
  metrics: WorkerMetrics;
  stateSource: StateSourceKind;
  storeRedis: RedisClient;
  forgetKey: (key: string, eventLogKey: string) => Promise<void | object>;
}

/** The controller with its state source, park store and clean-up, as the settings choose them. */
function buildController(settings: WorkerSettings, deps: WorkerDeps, parts: ControllerParts): Controller {
  const { kube, events, log, metrics, stateSource, storeRedis } = parts;
  if (stateSource === 'projection' && settings.projectionHmacKeys === undefined) {
    log.warn(
      'PROJECTION_HMAC_KEY is not set: nothing read from the projection could be checked, so every reconcile reads its PodSet and pods from the API',
    );
  }
  const logKey = eventLogKeyOf({
    EVENT_LOG_KEY: settings.eventLogKey,
    QUEUE_PREFIX: settings.queuePrefix,
    QUEUE_NAME: settings.queueName,
  });
  return createController({
    kube,
    planner: deps.planner,
    events,
    log,
    ...(deps.tracer !== undefined ? { tracer: deps.tracer } : {}),
    state: openStateSource(stateSource, {
      kube,
      redis: storeRedis,
      prefix: settings.queuePrefix,
      queueName: settings.queueName,
      tags: settings.projectionHmacKeys && new EntryTags(settings.projectionHmacKeys),
      refused: (entry) => {
        metrics.onRefusedEntry(entry);
        log.warn(
          { podset: entry.key, entry: entry.kind, name: entry.field, reason: entry.reason },
          'projected entry refused (its integrity tag, its key or its version does not hold): reading the key from the API',
        );
      },
      outOfBounds: (value) => metrics.onOutOfBounds({ ...value, why: PROJECTION_BOUNDS[value.what] }),
      apiRead: metrics.onApiRead,
    }),
    onKeyEnded: metrics.onKeyEnded,
    // Parked keys outlive the failed job.
    parkStore: redisParkStore(storeRedis, {
      prefix: parkedPrefixOf(settings.queuePrefix, settings.queueName),
      maxAheadMs: (settings.parkedRetryMs ?? DEFAULT_PARKED_RETRY_MS) + PARK_CLOCK_SKEW_MS,
      outOfBounds: metrics.onOutOfBounds,
    }),
    cleanup: (key) => parts.forgetKey(key, logKey),
    options: {
      createBurst: settings.createBurst,
      ...(settings.parkedRetryMs !== undefined ? { parkedRetryMs: settings.parkedRetryMs } : {}),
      reconcile: {
        notReadyRequeueMs: settings.requeuePendingMs,
        finishedPodsToKeep: settings.finishedPodsToKeep,
        maxCreatesPerPass: podWritesPerPass(settings.kubeQps),
        maxDeletesPerPass: podWritesPerPass(settings.kubeQps),
      },
    },
  });
}

/** The queue worker: each key its job names goes to the controller, unless it is outside WATCH_NAMESPACES. */
function startQueueWorker(
  settings: WorkerSettings,
  parts: {
    redis: RedisConnector;
    /** The state's and park store's client: the queue's own commands go out with theirs (closed by the caller). */
    storeRedis: RedisClient;
    controller: Controller;
    metrics: WorkerMetrics;
    log: Logger;
    watchNamespaces: readonly string[];
    deps: WorkerDeps;
  },
): ReconcileWorker {
  const { redis, storeRedis, controller, metrics, log, watchNamespaces, deps } = parts;
  let reconcileSeq = 0;
  return startReconcileWorker({
    connection: redis,
    // A finished job's after-finish merge goes out in one write with the next job's state read of that tick.
    client: storeRedis,
    queueName: settings.queueName,
    prefix: settings.queuePrefix,
    concurrency: settings.concurrency,
    ...(settings.bulkConcurrency !== undefined ? { bulkConcurrency: settings.bulkConcurrency } : {}),
    attempts: settings.maxAttempts,
    closeTimeoutMs: settings.shutdownTimeoutMs,
    name: settings.instance,
    ...(settings.backoff !== undefined ? { backoff: settings.backoff } : {}),
    handler: (req, ctx) => {
      // A key outside WATCH_NAMESPACES (a job forged in Redis) is never reconciled: the job ends, done.
      if (!keyInScope(req.key, watchNamespaces)) {
        metrics.onForeignKey();
        log.warn(
          { podset: req.key, jobId: ctx.jobId, watchNamespaces },
          'job refused: its key names a namespace outside WATCH_NAMESPACES; not reconciled',
        );
        return Promise.resolve({});
      }
      const reconcileId = `${settings.instance}-${(++reconcileSeq).toString(36)}`;
      const sync = () =>
        controller.syncHandler(req.key, {
          reconcileId,
          jobId: ctx.jobId,
          attempt: ctx.attempt,
          signal: ctx.signal,
        });
      const tracer = deps.tracer;
      return tracer === undefined ? sync() : traceReconcile(tracer, req, ctx, { reconcileId }, sync);
    },
    onFinalFailure: (req, error, ctx) =>
      controller.onFinalFailure(req.key, error, { jobId: ctx.jobId, attempt: ctx.attempt }),
    hooks: metrics.hooks,
  });
}

function redisOf(settings: WorkerSettings): RedisConnector {
  if (settings.redis !== undefined) return settings.redis;
  if (settings.redisUrl === undefined)
    throw new Error('startWorker: give settings.redis or settings.redisUrl');
  return urlConnector(settings.redisUrl);
}

export function defaultInstance(): string {
  return process.env.POD_NAME ?? `${os.hostname()}-${process.pid}`;
}
