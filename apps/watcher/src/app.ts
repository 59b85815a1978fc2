// apps/watcher: the environment → startWatcher's settings (watcher.ts), and the stop at SIGTERM/SIGINT:
// stop watching, write the checkpoint, release the lease, flush the spans. Exit codes are main.ts's.
import os from 'node:os';
import { httpHostOf, openApp, ownNamespaceProblems, SHUTDOWN_LIMIT_MS, type Shutdown } from '@podset/runtime';
import { EntryTags, projectionHmacKeys } from '@podset/state';
import { redisKeys, retiredSettings, watcherEnv } from './config.ts';
import { startWatcher } from './watcher.ts';

/** Starts the watcher; it runs until the first signal (already stopping when one came during start-up). */
export async function main(shutdown: Shutdown): Promise<void> {
  const {
    config: cfg,
    redis,
    kubeConfig,
    log,
    tracing,
  } = await openApp('podset-watcher', watcherEnv, {
    logBase: { app: 'watcher' },
    signal: shutdown.signal,
    // The key's own problems (it throws them) and the namespace rule.
    check: (c) => {
      projectionHmacKeys(c);
      return ownNamespaceProblems(c, {
        own: "the operator's own namespace",
        instead: 'watch other namespaces only',
      });
    },
    tracing: true,
  });
  for (const message of retiredSettings(process.env)) log.warn(message);
  // Entries are tagged with the current key only; the previous one is the workers' (during a rotation).
  const tagKeys = projectionHmacKeys(cfg);
  const tags = tagKeys === undefined ? undefined : new EntryTags({ current: tagKeys.current });
  if (cfg.STATE_SOURCE === 'projection' && tags === undefined) {
    log.warn(
      'PROJECTION_HMAC_KEY is not set: the projection is written without integrity tags, and the workers (which need the same key to check them) read every key from the API',
    );
  }

  const watcher = await startWatcher(
    {
      kubeConfig,
      redis,
      queueName: cfg.QUEUE_NAME,
      queuePrefix: cfg.QUEUE_PREFIX,
      maxAttempts: cfg.MAX_ATTEMPTS,
      stateSource: cfg.STATE_SOURCE,
      ...(tags !== undefined ? { projectionTags: tags } : {}),
      namespaces: cfg.WATCH_NAMESPACES,
      resyncPeriodMs: cfg.RESYNC_PERIOD_SECONDS * 1000,
      watchTimeoutSeconds: cfg.WATCH_TIMEOUT_SECONDS,
      stallGraceMs: cfg.WATCH_STALL_GRACE_SECONDS * 1000,
      statusCollapseMs: cfg.STATUS_COLLAPSE_MS,
      statusCollapsePartialMs: cfg.STATUS_COLLAPSE_PARTIAL_MS,
      quietHoldMs: cfg.QUIET_EVENT_HOLD_MS,
      podWatchReadPauseMs: cfg.POD_WATCH_READ_PAUSE_MS,
      podWatchEncoding: cfg.POD_WATCH_ENCODING,
      lease: {
        namespace: cfg.LEASE_NAMESPACE,
        name: cfg.LEASE_NAME,
        durationMs: cfg.LEASE_DURATION_SECONDS * 1000,
      },
      identity: cfg.HOLDER_IDENTITY ?? cfg.POD_NAME ?? `${os.hostname()}-${process.pid}`,
      keys: redisKeys(cfg),
      eventLogMaxLen: cfg.EVENT_LOG_MAXLEN,
      checkpointEveryEvents: cfg.CHECKPOINT_EVERY_EVENTS,
      checkpointEveryMs: cfg.CHECKPOINT_INTERVAL_MS,
      kubeQps: cfg.KUBE_QPS,
      kubeBurst: cfg.KUBE_BURST,
      httpPort: cfg.HTTP_PORT,
      httpHost: httpHostOf(cfg.HTTP_HOST),
    },
    { log, ...(tracing !== undefined ? { tracer: tracing.tracer } : {}) },
  );

  const stop = async () => {
    await watcher.close();
    // The spans not sent yet (a bounded wait: an unreachable collector must not hold the stop).
    await tracing
      ?.shutdown()
      .catch((err: unknown) => log.warn({ err: String(err) }, 'tracing: could not flush spans'));
  };
  shutdown.onStop(stop, { log, timeoutMs: SHUTDOWN_LIMIT_MS });
}
