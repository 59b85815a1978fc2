// apps/watcher: config → dependencies → health/metrics server → leader election → (while leader)
// watch and enqueue. SIGTERM/SIGINT: stop watching, write the checkpoint, release the lease, exit 0.
import os from 'node:os';
import { createKube } from '@podset/kube';
import { jobPrefixOf, LIVE_COVER_LUA, ReconcileQueue } from '@podset/queue';
import { queueBase } from '@podset/redis';
import { EntryTags, ProjectionWriter, projectionKeys } from '@podset/state';
import {
  API_PROBE_TIMEOUT_MS,
  openApp,
  readRedisMemory,
  redisMemoryGauges,
  REDIS_PROBE_TIMEOUT_MS,
  SHUTDOWN_LIMIT_MS,
  httpHostOf,
  withTimeout,
  type Shutdown,
} from '@podset/runtime';
import { DataLossDetector, RedisCheckpoint } from './checkpoint.ts';
import { ownNamespaceProblems, redisKeys, retiredSettings, watcherEnv } from './config.ts';
import { EventLog } from './event-log.ts';
import { eventTracing } from './event-tracing.ts';
import { startHealthServer, type HealthServer } from './http.ts';
import { leaseApiOf, watchApiOf } from './kube-api.ts';
import { LeaderElector } from './leader.ts';
import { createWatcherMetrics } from './metrics.ts';
import { PodSetChangeFilter } from './change-filter.ts';
import { Projector } from './projector.ts';
import { Watcher, type WatcherOptions } from './watcher.ts';

export async function main(shutdown: Shutdown): Promise<void> {
  const {
    config: cfg,
    redis: redisConnector,
    kubeConfig,
    log,
    tracing,
  } = await openApp('podset-watcher', watcherEnv, {
    logBase: { app: 'watcher' },
    signal: shutdown.signal,
    // The key's own problems (it throws them) and the namespace rule.
    check: (c) => {
      projectionKeys(c);
      return ownNamespaceProblems(c);
    },
    tracing: true,
  });
  for (const message of retiredSettings(process.env)) log.warn(message);
  // Entries are tagged with the current key only; the previous one is the workers' (during a rotation).
  const tagKeys = projectionKeys(cfg);
  const tags = tagKeys === undefined ? undefined : new EntryTags({ current: tagKeys.current });
  if (cfg.STATE_SOURCE === 'projection' && tags === undefined) {
    log.warn(
      'PROJECTION_HMAC_KEY is not set: the projection is written without integrity tags, and the workers (which need the same key to check them) read every key from the API',
    );
  }
  // Made once: undefined with tracing off, and then the enqueuer makes no span at all.
  const eventSpans = tracing === undefined ? undefined : eventTracing(tracing.tracer);
  const identity = cfg.HOLDER_IDENTITY ?? cfg.POD_NAME ?? `${os.hostname()}-${process.pid}`;
  const keys = redisKeys(cfg);
  const metrics = createWatcherMetrics();

  const userAgent = `podset-watcher/${identity}`;
  const onRequest = metrics.onRequest;
  const kube = createKube(kubeConfig, { qps: cfg.KUBE_QPS, burst: cfg.KUBE_BURST, userAgent, onRequest });
  // Lease calls get their own client (own rate limiter): a 429 pause or a reconnect storm on the watches
  // must not delay renewals past the renew deadline.
  const leaseKube = createKube(kubeConfig, { qps: 5, burst: 10, userAgent, onRequest });
  // Event-log appends and checkpoints: many small commands per tick, sent as one write each tick.
  const redis = redisConnector.client({ maxRetriesPerRequest: 3, enableAutoPipelining: true });
  redis.on('error', (err) => log.warn({ err: err.message }, 'redis connection error'));
  // Readiness pings on a client that fails at once when disconnected (no offline queue).
  const probeRedis = redisConnector.client({ enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  probeRedis.on('error', () => undefined);
  // Redis's memory against its maxmemory, for the alert that warns before a full Redis refuses writes.
  redisMemoryGauges(metrics.registry, () => readRedisMemory(probeRedis, redisConnector.target));
  const queue = new ReconcileQueue({
    connection: redisConnector,
    queueName: cfg.QUEUE_NAME,
    prefix: cfg.QUEUE_PREFIX,
    attempts: cfg.MAX_ATTEMPTS,
    onError: (err) => log.warn({ err: err.message }, 'queue connection error'),
  });
  metrics.setQueueDepth(cfg.QUEUE_NAME, () =>
    queue.queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'failed', 'completed'),
  );
  const checkpoint = new RedisCheckpoint({
    redis,
    key: keys.checkpoint,
    everyEvents: cfg.CHECKPOINT_EVERY_EVENTS,
    everyMs: cfg.CHECKPOINT_INTERVAL_MS,
    logger: log,
  });
  const eventLog = new EventLog({ redis, key: keys.eventLog, maxLen: cfg.EVENT_LOG_MAXLEN });
  const api = watchApiOf(kube);
  // The one place the state source is chosen: each term folds every event into the projection, or (the
  // API fallback) filters PodSet events by their plan inputs.
  const gate: WatcherOptions['gate'] =
    cfg.STATE_SOURCE === 'projection'
      ? (streams) =>
          new Projector(
            new ProjectionWriter({
              client: redis,
              prefix: cfg.QUEUE_PREFIX,
              queueName: cfg.QUEUE_NAME,
              // An event whose PodSet's reconcile is already waiting in the queue requests nothing more.
              liveCover: { lua: LIVE_COVER_LUA, jobPrefix: jobPrefixOf(cfg.QUEUE_PREFIX, cfg.QUEUE_NAME) },
              ...(tags !== undefined ? { tags } : {}),
            }),
            streams,
            log,
          )
      : () => new PodSetChangeFilter();
  const elector = new LeaderElector({
    api: leaseApiOf(leaseKube),
    namespace: cfg.LEASE_NAMESPACE,
    name: cfg.LEASE_NAME,
    identity,
    leaseDurationMs: cfg.LEASE_DURATION_SECONDS * 1000,
    logger: log,
  });

  let health: HealthServer | undefined;
  if (cfg.HTTP_PORT > 0) {
    const probeNamespace = cfg.WATCH_NAMESPACES[0];
    health = await startHealthServer({
      port: cfg.HTTP_PORT,
      host: httpHostOf(cfg.HTTP_HOST),
      registry: metrics.registry,
      probes: [
        {
          name: 'redis',
          check: () => withTimeout(probeRedis.ping(), REDIS_PROBE_TIMEOUT_MS, 'redis').then(() => undefined),
        },
        {
          name: 'kubernetes',
          check: async () =>
            void (await kube.podSets.list(probeNamespace, {
              limit: 1,
              signal: AbortSignal.timeout(API_PROBE_TIMEOUT_MS),
            })),
        },
      ],
      status: () => ({ leader: elector.isLeader }),
    }).catch((err: unknown) => {
      process.stderr.write(`watcher: HTTP_PORT: cannot listen on ${cfg.HTTP_PORT}: ${String(err)}\n`);
      process.exit(2);
    });
  }

  log.info(
    {
      identity,
      namespaces: cfg.WATCH_NAMESPACES.length === 0 ? 'all' : cfg.WATCH_NAMESPACES,
      lease: `${cfg.LEASE_NAMESPACE}/${cfg.LEASE_NAME}`,
      queue: queueBase(cfg.QUEUE_PREFIX, cfg.QUEUE_NAME),
      stateSource: cfg.STATE_SOURCE,
      redis: redisConnector.target,
      eventLog: keys.eventLog,
      server: kube.client.server,
      httpPort: health?.port ?? 0,
      ...(health !== undefined ? { httpHost: health.host } : {}),
    },
    'watcher starting',
  );

  // Runs until the first signal (already aborted when one came during start-up).
  const running = (async () => {
    await elector.run(shutdown.signal, async (leaderSignal) => {
      metrics.setLeader(true);
      const watcher = new Watcher({
        api,
        queue,
        checkpoint,
        eventLog,
        namespaces: cfg.WATCH_NAMESPACES,
        resyncPeriodMs: cfg.RESYNC_PERIOD_SECONDS * 1000,
        watchTimeoutSeconds: cfg.WATCH_TIMEOUT_SECONDS,
        stallGraceMs: cfg.WATCH_STALL_GRACE_SECONDS * 1000,
        logger: log,
        hooks: metrics.hooks,
        onEnqueued: metrics.onEnqueued,
        onEventOutcomes: metrics.onEventOutcomes,
        gate,
        ...(eventSpans !== undefined ? { tracing: eventSpans } : {}),
        watchDataLoss: async (onLoss) => {
          const detector = new DataLossDetector({ redis, key: keys.sentinel, logger: log, onLoss });
          await detector.start();
          return () => detector.stop();
        },
      });
      try {
        await watcher.run(leaderSignal);
      } finally {
        metrics.setLeader(false);
      }
    });

    // Stopped: the watches are closed and the checkpoint written; hand the lease over, then close.
    await elector.release();
    checkpoint.close();
    await health?.close();
    await queue.close().catch(() => undefined);
    redis.disconnect();
    probeRedis.disconnect();
    // The spans not sent yet (a bounded wait: an unreachable collector must not hold the stop).
    await tracing
      ?.shutdown()
      .catch((err: unknown) => log.warn({ err: String(err) }, 'tracing: could not flush spans'));
    log.info({}, 'watcher stopped');
  })();
  shutdown.onStop(() => running, { log, timeoutMs: SHUTDOWN_LIMIT_MS });
  await running;
  process.exit(0);
}
