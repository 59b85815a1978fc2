// podset-dashboard: config → dependencies → start. Refuses to start without credentials.
// SIGTERM/SIGINT: stop serving, close connections, exit 0.
import { ConfigError, loadConfigOrExit } from '@podset/config';
import { loadKubeConfigOrExit } from '@podset/kube';
import { redisConnectorOrExit } from '@podset/queue';
import { createLogger, type Shutdown } from '@podset/runtime';
import { credentialsOf, dashboardEnv, eventLogKeys } from './config.ts';
import { startDashboard } from './server.ts';

export async function main(shutdown: Shutdown): Promise<void> {
  const config = loadConfigOrExit('podset-dashboard', dashboardEnv);
  const redis = redisConnectorOrExit('podset-dashboard', config);
  const { credentials, problems } = credentialsOf(config);
  if (problems.length > 0) {
    process.stderr.write(`podset-dashboard: ${new ConfigError(problems).message}\n`);
    process.exit(2);
  }
  const log = createLogger({ name: 'podset-dashboard', level: config.LOG_LEVEL });

  const kubeConfig = loadKubeConfigOrExit('podset-dashboard', {
    ...(config.KUBECONFIG !== undefined ? { kubeconfig: config.KUBECONFIG } : {}),
    inCluster: config.KUBE_IN_CLUSTER,
  });

  const dashboard = await startDashboard(
    {
      kubeConfig,
      redis,
      queueName: config.QUEUE_NAME,
      queuePrefix: config.QUEUE_PREFIX,
      eventLogKeys: eventLogKeys(config),
      port: config.DASHBOARD_PORT,
      host: config.DASHBOARD_HOST,
      credentials,
      readOnly: config.DASHBOARD_READ_ONLY,
      secureCookie: config.DASHBOARD_SECURE_COOKIE,
      eventsPerPodSet: config.EVENTS_PER_PODSET,
      eventLogScan: config.EVENT_LOG_SCAN,
      jobScan: config.JOB_SCAN,
      httpPort: config.HTTP_PORT,
      kubeQps: config.KUBE_QPS,
      kubeBurst: config.KUBE_BURST,
    },
    { log },
  );

  shutdown.onStop(() => dashboard.close(), { log, timeoutMs: 10_000 });
}
