// The watcher, assembled: the kube clients (one for the watches, one for the Lease), Redis (the queue, the
// checkpoints, the event log, the projection), the health and metrics server, and the leader election
// that runs one WatchTerm (term.ts) per leadership term. app.ts calls startWatcher with the parsed
// environment; the tests call it too, so they start the same code the process runs.
import type { Tracer } from '@opentelemetry/api';
import type { KubeConfig } from '@kubernetes/client-node';
import { createKube, type Kube } from '@podset/kube';
import { ReconcileQueue, type BackoffOptions } from '@podset/queue';
import { urlConnector, type RedisClient, type RedisConnector } from '@podset/redis';
import { createLogger, readRedisMemory, redisMemoryGauges, type OpsListener } from '@podset/runtime';
import { systemClock, type Clock } from '@podset/clock';
import { queueBase } from '@podset/redis';
import type { EntryTags } from '@podset/state';
import type { Registry } from 'prom-client';
import { PodSetChangeFilter } from './change-filter.ts';
import type { ChangeGate } from './change-gate.ts';
import { DataLossDetector, RedisCheckpoint } from './checkpoint.ts';
import { EventLog } from './event-log.ts';
import { eventTracing } from './event-tracing.ts';
import { leaseApiOf, watchApiOf, type PodWatchEncoding } from './kube-api.ts';
import { LeaderElector } from './leader.ts';
import type { Logger } from '@podset/log';
import { createWatcherMetrics, type WatcherMetrics } from './metrics.ts';
import { watcherOps } from './ops.ts';
import { Projector } from './projector.ts';
import { watcherProjection } from './queue-cover.ts';
import type { ReconcileRequester } from './request.ts';
import { WatchTerm, type TermOptions } from './term.ts';

export interface WatcherSettings {
  kubeConfig: KubeConfig;
  /** Redis from configuration (single node, Sentinel or Cluster); wins over redisUrl. */
  redis?: RedisConnector;
  /** One Redis node (tests); used when `redis` is not given. */
  redisUrl?: string;
  queueName: string;
  queuePrefix: string;
  /** Attempts per reconcile job it enqueues (the workers' MAX_ATTEMPTS). */
  maxAttempts: number;
  /** projection: every event folded into the state the workers read; api: the workers read the API. */
  stateSource: 'projection' | 'api';
  /** The projection's integrity tags (PROJECTION_HMAC_KEY's current key); unset: written untagged. */
  projectionTags?: EntryTags;
  /**
   * Default true: an event whose key's job is already waiting in the queue requests nothing more. Tests
   * that count requests with no worker taking jobs turn it off.
   */
  liveCover?: boolean;
  /** Empty: all namespaces. */
  namespaces: readonly string[];
  /** 0: no periodic resync. */
  resyncPeriodMs: number;
  watchTimeoutSeconds: number;
  stallGraceMs: number;
  /** How long a status-only change's request waits to collapse with its neighbours' (0, the default: none). */
  statusCollapseMs?: number;
  /** How long a status-only change waits that leaves its PodSet not all ready, no rollout under way. */
  statusCollapsePartialMs?: number;
  /** How long an event that cannot owe a reconcile may wait to join the next batch (0, the default: never). */
  quietHoldMs?: number;
  /** How long the pod watch leaves what arrives in the kernel after each turn (0, the default: read at once). */
  podWatchReadPauseMs?: number;
  /** How pods are watched: JSON (the default) or protobuf (JSON still where the API answers so, or it does not decode). */
  podWatchEncoding?: PodWatchEncoding;
  lease: { namespace: string; name: string; durationMs: number };
  /** The Lease holder identity. */
  identity: string;
  /** Its own Redis keys (config.ts redisKeys). */
  keys: { checkpoint: string; sentinel: string; eventLog: string };
  eventLogMaxLen: number;
  checkpointEveryEvents: number;
  checkpointEveryMs: number;
  kubeQps: number;
  kubeBurst: number;
  /** 0: no HTTP server. */
  httpPort: number;
  httpHost?: string;
  /** Between reconnects (tests shorten it). */
  backoff?: BackoffOptions;
  /** How often the data-loss sentinel is checked (ms; tests shorten it). Default 5000. */
  dataLossCheckMs?: number;
}

export interface WatcherDeps {
  log?: Logger;
  /** Set only when tracing is on (OTEL_* variables): a span per event that requests. */
  tracer?: Tracer;
  /** Default the system clock. */
  clock?: Clock;
  /** Tests: what the watcher requests through, given the queue (to record the requests). */
  requester?: (queue: ReconcileRequester) => ReconcileRequester;
}

export interface RunningWatcher {
  elector: LeaderElector;
  queue: ReconcileQueue;
  metrics: Registry;
  /** The HTTP port actually bound (when httpPort was given). */
  httpPort: number | undefined;
  /** The leadership term running now; undefined while standing by. */
  term(): WatchTerm | undefined;
  /** Stops watching (the last checkpoint written), releases the lease and closes every connection. */
  close(): Promise<void>;
}

/** The connections of one watcher process, closed together. */
interface Connections {
  kube: Kube;
  leaseKube: Kube;
  /** Event-log appends, checkpoints, the projection and the data-loss sentinel. */
  redis: RedisClient;
  /** Readiness pings and Redis's memory gauges. */
  probeRedis: RedisClient;
  queue: ReconcileQueue;
  /** Where Redis is (for the start-up line). */
  target: string;
  close(): Promise<void>;
}

export async function startWatcher(
  settings: WatcherSettings,
  deps: WatcherDeps = {},
): Promise<RunningWatcher> {
  const log: Logger = deps.log ?? createLogger({ name: 'podset-watcher' });
  const clock = deps.clock ?? systemClock;
  const metrics = createWatcherMetrics();
  const conn = connect(settings, metrics, log);
  const checkpoint = new RedisCheckpoint({
    redis: conn.redis,
    key: settings.keys.checkpoint,
    everyEvents: settings.checkpointEveryEvents,
    everyMs: settings.checkpointEveryMs,
    logger: log,
  });
  const elector = new LeaderElector({
    api: leaseApiOf(conn.leaseKube),
    namespace: settings.lease.namespace,
    name: settings.lease.name,
    identity: settings.identity,
    leaseDurationMs: settings.lease.durationMs,
    logger: log,
    clock,
  });
  let health: OpsListener | undefined;
  try {
    health = await startHealth(settings, conn, metrics, elector, clock);
  } catch (err) {
    checkpoint.close();
    await conn.close();
    throw err;
  }
  log.info(
    {
      identity: settings.identity,
      namespaces: settings.namespaces.length === 0 ? 'all' : settings.namespaces,
      lease: `${settings.lease.namespace}/${settings.lease.name}`,
      queue: queueBase(settings.queuePrefix, settings.queueName),
      stateSource: settings.stateSource,
      redis: conn.target,
      eventLog: settings.keys.eventLog,
      server: conn.kube.client.server,
      httpPort: health?.port ?? 0,
      ...(health !== undefined ? { httpHost: health.host } : {}),
    },
    'watcher starting',
  );

  // One term per leadership: built fresh each time (term.ts), from what is in Redis.
  const term = termOptions(settings, deps, { conn, checkpoint, metrics, log, clock });
  const stop = new AbortController();
  let current: WatchTerm | undefined;
  const running = (async () => {
    await elector.run(stop.signal, async (leaderSignal) => {
      metrics.setLeader(true);
      current = new WatchTerm(term);
      try {
        await current.run(leaderSignal);
      } finally {
        current = undefined;
        metrics.setLeader(false);
      }
    });
    // Stopped: the watches are closed and the checkpoint written; hand the lease over, then close.
    await elector.release();
    checkpoint.close();
    await health?.close();
    await conn.close();
    log.info({}, 'watcher stopped');
  })();
  return {
    elector,
    queue: conn.queue,
    metrics: metrics.registry,
    httpPort: health?.port,
    term: () => current,
    close() {
      stop.abort();
      return running;
    },
  };
}

/** What every leadership term is built from. */
function termOptions(
  settings: WatcherSettings,
  deps: WatcherDeps,
  parts: {
    conn: Connections;
    checkpoint: RedisCheckpoint;
    metrics: WatcherMetrics;
    log: Logger;
    clock: Clock;
  },
): TermOptions {
  const { conn, checkpoint, metrics, log, clock } = parts;
  const eventLog = new EventLog({
    redis: conn.redis,
    key: settings.keys.eventLog,
    maxLen: settings.eventLogMaxLen,
  });
  return {
    logger: log,
    api: watchApiOf(conn.kube, {
      podReadPauseMs: settings.podWatchReadPauseMs,
      podEncoding: settings.podWatchEncoding,
      onProtobufFailed: (err) =>
        log.warn(
          { err: err.message },
          'the protobuf pod watch did not decode; pods are watched in JSON from now on (POD_WATCH_ENCODING=json does so from the start)',
        ),
    }),
    queue: deps.requester?.(conn.queue) ?? conn.queue,
    checkpoint,
    eventLog,
    namespaces: settings.namespaces,
    resyncPeriodMs: settings.resyncPeriodMs,
    watchTimeoutSeconds: settings.watchTimeoutSeconds,
    stallGraceMs: settings.stallGraceMs,
    ...(settings.statusCollapseMs !== undefined ? { statusCollapseMs: settings.statusCollapseMs } : {}),
    ...(settings.statusCollapsePartialMs !== undefined
      ? { statusCollapsePartialMs: settings.statusCollapsePartialMs }
      : {}),
    ...(settings.quietHoldMs !== undefined ? { quietHoldMs: settings.quietHoldMs } : {}),
    ...(settings.podWatchReadPauseMs !== undefined ? { podTurnPauseMs: settings.podWatchReadPauseMs } : {}),
    hooks: metrics.hooks,
    onEnqueued: metrics.onEnqueued,
    onEventOutcomes: metrics.onEventOutcomes,
    gate: gateOf(settings, conn.redis, log, eventLog, deps.tracer !== undefined),
    clock,
    ...(settings.backoff !== undefined ? { backoff: settings.backoff } : {}),
    ...(deps.tracer !== undefined ? { tracing: eventTracing(deps.tracer, clock) } : {}),
    watchDataLoss: async (onLoss) => {
      const detector = new DataLossDetector({
        redis: conn.redis,
        key: settings.keys.sentinel,
        logger: log,
        onLoss,
        clock,
        ...(settings.dataLossCheckMs !== undefined ? { intervalMs: settings.dataLossCheckMs } : {}),
      });
      await detector.start();
      return () => detector.stop();
    },
  };
}

function connect(settings: WatcherSettings, metrics: WatcherMetrics, log: Logger): Connections {
  const connector = settings.redis ?? urlConnectorOf(settings);
  const userAgent = `podset-watcher/${settings.identity}`;
  const onRequest = metrics.onRequest;
  const kube = createKube(settings.kubeConfig, {
    qps: settings.kubeQps,
    burst: settings.kubeBurst,
    userAgent,
    onRequest,
  });
  // Lease calls get their own client (own rate limiter): a 429 pause or a reconnect storm on the watches
  // must not delay renewals past the renew deadline.
  const leaseKube = createKube(settings.kubeConfig, { qps: 5, burst: 10, userAgent, onRequest });
  // Event-log appends and checkpoints: many small commands per tick, sent as one write each tick.
  const redis = connector.client({ maxRetriesPerRequest: 3, enableAutoPipelining: true });
  redis.on('error', (err: Error) => log.warn({ err: err.message }, 'redis connection error'));
  // Readiness pings on a client that fails at once when disconnected (no offline queue).
  const probeRedis = connector.client({ enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  probeRedis.on('error', () => undefined);
  // Redis's memory against its maxmemory, for the alert that warns before a full Redis refuses writes.
  redisMemoryGauges(metrics.registry, () => readRedisMemory(probeRedis, connector.target));
  const queue = new ReconcileQueue({
    connection: connector,
    // The queue's own commands on this client, not a connection of their own (ReconcileQueueOptions.client).
    client: redis,
    queueName: settings.queueName,
    prefix: settings.queuePrefix,
    attempts: settings.maxAttempts,
    onError: (err) => log.warn({ err: err.message }, 'queue connection error'),
    onAddInputRepaired: ({ key, field, why }) => {
      metrics.onOutOfBounds('queue-add-input');
      log.warn(
        { value: 'queue-add-input', redisKey: key, ...(field !== undefined ? { field } : {}), why },
        'a value the queue adds read was out of bounds: deleted, the add tried again',
      );
    },
  });
  metrics.setQueueDepth(settings.queueName, () =>
    queue.queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'failed', 'completed'),
  );
  return {
    kube,
    leaseKube,
    redis,
    probeRedis,
    queue,
    target: connector.target,
    async close() {
      await queue.close().catch(() => undefined);
      redis.disconnect();
      probeRedis.disconnect();
      await kube.client.close();
      await leaseKube.client.close();
    },
  };
}

function urlConnectorOf(settings: WatcherSettings): RedisConnector {
  if (settings.redisUrl === undefined)
    throw new Error('startWatcher: give settings.redis or settings.redisUrl');
  return urlConnector(settings.redisUrl);
}

/**
 * The one place the state source is chosen: each term folds every event into the projection, or (the API
 * fallback) filters PodSet events by their plan inputs.
 */
function gateOf(
  settings: WatcherSettings,
  redis: RedisClient,
  log: Logger,
  eventLog: EventLog,
  tracing: boolean,
): TermOptions['gate'] {
  if (settings.stateSource === 'api') return () => new PodSetChangeFilter();
  // The event log is appended in the projection's fold calls when it shares their hash slot: under the
  // queue's base, as it is unless EVENT_LOG_KEY moved it.
  const logWithFolds = eventLog.key.startsWith(`${queueBase(settings.queuePrefix, settings.queueName)}:`);
  return (streams): ChangeGate =>
    new Projector(
      watcherProjection({
        client: redis,
        prefix: settings.queuePrefix,
        queueName: settings.queueName,
        // An event whose PodSet's reconcile is already in the queue, due soon enough, requests nothing more.
        cover: settings.liveCover !== false,
        // ...and one that it does not cover merges into the key's pending job in the same call, unless its
        // request must carry the events' trace contexts (only a request made apart carries them).
        merge: !tracing,
        statusCollapseMs: settings.statusCollapseMs ?? 0,
        ...(settings.projectionTags !== undefined ? { tags: settings.projectionTags } : {}),
        ...(logWithFolds ? { eventLogKey: eventLog.key } : {}),
      }),
      streams,
      log,
      eventLog,
    );
}

/** /healthz, /readyz and /metrics on httpPort (none when it is 0); a standby answers too. */
async function startHealth(
  settings: WatcherSettings,
  conn: Connections,
  metrics: WatcherMetrics,
  elector: LeaderElector,
  clock: Clock,
): Promise<OpsListener | undefined> {
  if (settings.httpPort === 0) return undefined;
  const probeNamespace = settings.namespaces[0];
  const ops = watcherOps({
    registry: metrics.registry,
    clock,
    pingRedis: () => conn.probeRedis.ping(),
    listPodSets: (signal) => conn.kube.podSets.list(probeNamespace, { limit: 1, signal }),
    isLeader: () => elector.isLeader,
  });
  return await ops.listen({
    port: settings.httpPort,
    ...(settings.httpHost !== undefined ? { host: settings.httpHost } : {}),
  });
}
