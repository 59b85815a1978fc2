// podset-worker: config → dependencies → start. SIGTERM/SIGINT: stop taking work, finish what is
// active (bounded by SHUTDOWN_TIMEOUT_SECONDS), close connections, exit 0.
import * as reconcileLib from '@podset/reconcile';
import { httpHostOf, openApp, ownNamespaceProblems, SHUTDOWN_LIMIT_MS, type Shutdown } from '@podset/runtime';
import { projectionHmacKeys } from '@podset/state';
import { bulkConcurrency, workerEnv } from './config.ts';
import { defaultInstance, startWorker } from './worker.ts';

export async function main(shutdown: Shutdown): Promise<void> {
  const { config, redis, kubeConfig, log, tracing } = await openApp('podset-worker', workerEnv, {
    signal: shutdown.signal,
    check: (c) => {
      bulkConcurrency(c);
      projectionHmacKeys(c);
      return ownNamespaceProblems(c, {
        own: "the worker's own namespace",
        instead: 'reconcile in other namespaces only',
      });
    },
    tracing: true,
  });
  const bulkShare = bulkConcurrency(config);
  const keys = projectionHmacKeys(config);

  const worker = await startWorker(
    {
      kubeConfig,
      redis,
      queueName: config.QUEUE_NAME,
      queuePrefix: config.QUEUE_PREFIX,
      concurrency: config.WORKER_CONCURRENCY,
      bulkConcurrency: bulkShare,
      kubeQps: config.KUBE_QPS,
      kubeBurst: config.KUBE_BURST,
      createBurst: config.CREATE_BURST,
      requeuePendingMs: Math.round(config.REQUEUE_PENDING_SECONDS * 1000),
      maxAttempts: config.MAX_ATTEMPTS,
      parkedRetryMs: config.PARKED_RETRY_SECONDS * 1000,
      finishedPodsToKeep: config.FINISHED_PODS_TO_KEEP,
      shutdownTimeoutMs: Math.round(config.SHUTDOWN_TIMEOUT_SECONDS * 1000),
      httpPort: config.HTTP_PORT,
      httpHost: httpHostOf(config.HTTP_HOST),
      instance: config.POD_NAME ?? defaultInstance(),
      events: config.EVENTS,
      stateSource: config.STATE_SOURCE,
      watchNamespaces: config.WATCH_NAMESPACES,
      ...(keys !== undefined ? { projectionHmacKeys: keys } : {}),
      ...(config.EVENT_LOG_KEY !== undefined ? { eventLogKey: config.EVENT_LOG_KEY } : {}),
    },
    { planner: reconcileLib, log, ...(tracing !== undefined ? { tracer: tracing.tracer } : {}) },
  );

  const stop = async () => {
    await worker.close();
    // The spans not sent yet (the exporter's own timeout bounds the wait).
    await tracing
      ?.shutdown()
      .catch((err: unknown) => log.warn({ err: String(err) }, 'tracing: could not flush spans'));
  };
  shutdown.onStop(stop, {
    log,
    // A hard limit in case close() itself hangs (Redis gone): exit non-zero rather than never.
    timeoutMs: Math.round(config.SHUTDOWN_TIMEOUT_SECONDS * 1000) + SHUTDOWN_LIMIT_MS,
  });
}
