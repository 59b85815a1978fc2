// podset-dashboard: config → dependencies → start. Refuses to start without credentials.
// SIGTERM/SIGINT: stop serving, close connections, exit 0.
import { httpHostOf, openApp, SHUTDOWN_LIMIT_MS, type Shutdown } from '@podset/runtime';
import { eventLogKeyOf } from '@podset/redis';
import { credentialsOf, dashboardEnv } from './config.ts';
import { startDashboard } from './server.ts';

export async function main(shutdown: Shutdown): Promise<void> {
  const { config, redis, kubeConfig, log } = await openApp('podset-dashboard', dashboardEnv, {
    signal: shutdown.signal,
    check: (c) => credentialsOf(c).problems,
  });
  const { credentials } = credentialsOf(config);

  const dashboard = await startDashboard(
    {
      kubeConfig,
      redis,
      queueName: config.QUEUE_NAME,
      queuePrefix: config.QUEUE_PREFIX,
      eventLogKeys: [eventLogKeyOf(config)],
      port: config.DASHBOARD_PORT,
      host: config.DASHBOARD_HOST,
      credentials,
      readOnly: config.DASHBOARD_READ_ONLY,
      secureCookie: config.DASHBOARD_SECURE_COOKIE,
      sessionMaxAgeSeconds: config.DASHBOARD_SESSION_MAX_AGE,
      eventsPerPodSet: config.EVENTS_PER_PODSET,
      eventLogScan: config.EVENT_LOG_SCAN,
      jobScan: config.JOB_SCAN,
      lease: { namespace: config.LEASE_NAMESPACE, name: config.LEASE_NAME },
      namespaces: config.WATCH_NAMESPACES,
      httpPort: config.HTTP_PORT,
      httpHost: httpHostOf(config.HTTP_HOST),
      kubeQps: config.KUBE_QPS,
      kubeBurst: config.KUBE_BURST,
    },
    { log },
  );

  shutdown.onStop(() => dashboard.close(), { log, timeoutMs: SHUTDOWN_LIMIT_MS });
}
