// Assembles the dashboard: Hono app with authentication in front of every route (auth-middleware.ts),
// bull-board for the reconcile queue (board.ts), the PodSet pages and API (routes.ts), /metrics and probes
// (ops.ts), on its listeners (listen.ts). main.ts calls this with the parsed environment; tests call it
// directly.
import type { KubeConfig } from '@kubernetes/client-node';
import { createKube, type Kube } from '@podset/kube';
import { Queue } from 'bullmq';
import { Hono } from 'hono';
import { type RedisClient } from '@podset/redis';
import { urlConnector, type RedisConnector } from '@podset/redis';
import { queueBase } from '@podset/redis';
import { createLogger } from '@podset/runtime';
import type { Logger } from '@podset/log';
import { installAuth } from './auth-middleware.ts';
import { BOARD_PATH, createBoard } from './board.ts';
import type { Credentials } from './config.ts';
import { listen } from './listen.ts';
import { createMetrics, type DashboardMetrics } from './metrics.ts';
import { dashboardOps } from './ops.ts';
import { listPodSetsInScope } from './podset-scope.ts';
import { installRoutes } from './routes.ts';

export { BOARD_PATH };

export interface DashboardSettings {
  kubeConfig: KubeConfig;
  /** Redis from configuration (single node, Sentinel or Cluster); wins over redisUrl. */
  redis?: RedisConnector;
  /** One Redis node (tests); used when `redis` is not given. */
  redisUrl?: string;
  queueName: string;
  queuePrefix: string;
  /** Event-log stream keys, first non-empty wins. */
  eventLogKeys: string[];
  /** 0: a free port. */
  port: number;
  host: string;
  credentials: Credentials;
  readOnly: boolean;
  /** Mark the login cookie Secure (HTTPS); false only for plain-HTTP local use. */
  secureCookie: boolean;
  /** How long a login cookie is honoured after it was issued, checked on every request. */
  sessionMaxAgeSeconds: number;
  eventsPerPodSet: number;
  eventLogScan: number;
  jobScan: number;
  /** The watcher's leader-election Lease, shown as the leading watcher. */
  lease?: { namespace: string; name: string };
  /** The namespaces whose PodSets are read (WATCH_NAMESPACES); empty: all. */
  namespaces?: readonly string[];
  /** Unauthenticated /metrics, /healthz, /readyz on their own port; 0: none, -1: a free port. */
  httpPort: number;
  /** Where that port listens (HTTP_HOST); default: the dashboard's host. */
  httpHost?: string;
  kubeQps: number;
  kubeBurst: number;
}

export interface RunningDashboard {
  /** The port the dashboard listens on. */
  port: number;
  url: string;
  /** The unauthenticated probes/metrics port, when enabled. */
  httpPort: number | undefined;
  close(): Promise<void>;
}

export async function startDashboard(
  settings: DashboardSettings,
  deps: { log?: Logger; kube?: Kube } = {},
): Promise<RunningDashboard> {
  const log: Logger = deps.log ?? createLogger({ name: 'podset-dashboard' });
  const namespaces = settings.namespaces ?? [];
  const creds = settings.credentials;
  if (creds.token === undefined && creds.basic === undefined) {
    throw new Error('dashboard: no credentials (DASHBOARD_TOKEN or DASHBOARD_USER/DASHBOARD_PASSWORD)');
  }
  const { queue, queueRedis, redis, metrics, kube } = openSources(settings, log, deps.kube);
  const ops = dashboardOps({ redis, kube, namespaces, metrics });
  const queueLabel = queueBase(settings.queuePrefix, settings.queueName);

  const app = new Hono();
  installAuth(app, { ...settings, boardPath: BOARD_PATH }, log);
  installRoutes(app, {
    sources: { ...settings, kube, queue, redis, namespaces },
    ops,
    board: createBoard(queue, { readOnly: settings.readOnly, queueLabel }),
    log,
  });
  const listeners = await listen(app, ops, settings);

  const shownHost = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${listeners.port}`;
  log.info(
    {
      url,
      httpPort: listeners.httpPort,
      ...(listeners.httpHost !== undefined ? { httpHost: listeners.httpHost } : {}),
      queue: queueLabel,
      eventLog: settings.eventLogKeys,
      readOnly: settings.readOnly,
      auth: [creds.token !== undefined ? 'token' : '', creds.basic !== undefined ? 'basic' : ''].filter(
        Boolean,
      ),
      server: kube.client?.server,
    },
    'dashboard started',
  );

  let closing: Promise<void> | undefined;
  return {
    port: listeners.port,
    url,
    httpPort: listeners.httpPort,
    close() {
      closing ??= (async () => {
        await listeners.close();
        await queue.close().catch(() => undefined);
        queueRedis.disconnect();
        redis.disconnect();
        log.info('dashboard stopped');
      })();
      return closing;
    },
  };
}

interface Sources {
  queue: Queue;
  /** BullMQ shares a client it is given: ours to disconnect on close. */
  queueRedis: RedisClient;
  /** Our own client for the event log and probes. */
  redis: RedisClient;
  metrics: DashboardMetrics;
  kube: Kube;
}

function openSources(settings: DashboardSettings, log: Logger, givenKube: Kube | undefined): Sources {
  let connector = settings.redis;
  if (connector === undefined) {
    if (settings.redisUrl === undefined)
      throw new Error('dashboard: give settings.redis or settings.redisUrl');
    connector = urlConnector(settings.redisUrl);
  }
  // Read-only: scripts as EVALSHA_RO, so Redis refuses any write one tries.
  const queueRedis = connector.client({ maxRetriesPerRequest: null, readOnlyScripts: settings.readOnly });
  const queue = new Queue(settings.queueName, { connection: queueRedis, prefix: settings.queuePrefix });
  let lastRedisError = '';
  const redisError = (err: Error) => {
    if (err.message !== lastRedisError) log.warn({ err: err.message }, 'redis error');
    lastRedisError = err.message;
  };
  queue.on('error', redisError);
  queueRedis.on('error', redisError);
  // A command waits for at most one reconnect attempt (and every caller bounds it with a timeout) instead
  // of queueing while Redis is away.
  const redis = connector.client({ maxRetriesPerRequest: 1, readOnlyScripts: settings.readOnly });
  redis.on('error', redisError);

  // Scrape-time reads: the queue from Redis, the PodSets from the API (kube is built below, with the
  // metrics' request counter; the reader runs only at scrape time).
  const namespaces = settings.namespaces ?? [];
  const metrics = createMetrics(queue, settings.queueName, redisError, {
    list: async () => (await listPodSetsInScope(kube, namespaces, { limit: 500 })).items,
    onError: (err) => log.warn({ err: err.message }, 'podset_converged: cannot list PodSets'),
  });
  const kube =
    givenKube ??
    createKube(settings.kubeConfig, {
      qps: settings.kubeQps,
      burst: settings.kubeBurst,
      userAgent: 'podset-dashboard',
      timeoutMs: 10_000,
      onRequest: metrics.onKubeRequest,
    });
  return { queue, queueRedis, redis, metrics, kube };
}
