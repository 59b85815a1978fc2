// Assembles the dashboard: Hono app with authentication in front of every route, bull-board for the
// reconcile queue, the PodSet overview, /metrics and probes. main.ts calls this with the parsed
// environment; tests call it directly.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serve, type ServerType } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import type { KubeConfig } from '@kubernetes/client-node';
import { createKube, type Kube } from '@podset/kube';
import { Queue } from 'bullmq';
import { Hono, type Context } from 'hono';
import { urlConnector, type RedisConnector } from '@podset/queue';
import { queueBase } from '@podset/redis';
import { API_PROBE_TIMEOUT_MS, createLogger, REDIS_PROBE_TIMEOUT_MS, withTimeout } from '@podset/runtime';
import type { Logger } from 'pino';
import { authenticate, challenges, COOKIE_NAME, login, nowSeconds, safeNext } from './auth.ts';
import type { Credentials } from './config.ts';
import { matches, parseFilter } from './filter.ts';
import {
  loginPage,
  messagePage,
  overviewPage,
  withOverviewLink,
  withoutThirdPartyLinks,
  type PageContext,
} from './html.ts';
import { createMetrics } from './metrics.ts';
import { buildOverview } from './overview.ts';
import { securityHeaders } from './security-headers.ts';
import { podSetPage } from './podset-page.ts';
import { readOnlyScripts } from './read-only-scripts.ts';
import { buildPodSetDetail, nameProblem } from './podset.ts';
import { listPodSetsInScope, probePodSets } from './podset-scope.ts';

export const BOARD_PATH = '/queues';

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

interface Readiness {
  ready: boolean;
  checks: Record<string, string>;
}

export async function startDashboard(
  settings: DashboardSettings,
  deps: { log?: Logger; kube?: Kube } = {},
): Promise<RunningDashboard> {
  const log = deps.log ?? createLogger({ name: 'podset-dashboard' });
  const namespaces = settings.namespaces ?? [];
  const creds = settings.credentials;
  if (creds.token === undefined && creds.basic === undefined) {
    throw new Error('dashboard: no credentials (DASHBOARD_TOKEN or DASHBOARD_USER/DASHBOARD_PASSWORD)');
  }

  let connector = settings.redis;
  if (connector === undefined) {
    if (settings.redisUrl === undefined)
      throw new Error('dashboard: give settings.redis or settings.redisUrl');
    connector = urlConnector(settings.redisUrl);
  }
  // BullMQ shares a client it is given: ours to disconnect on close.
  const queueRedis = connector.client({ maxRetriesPerRequest: null });
  if (settings.readOnly) readOnlyScripts(queueRedis);
  const queue = new Queue(settings.queueName, { connection: queueRedis, prefix: settings.queuePrefix });
  let lastRedisError = '';
  const redisError = (err: Error) => {
    if (err.message !== lastRedisError) log.warn({ err: err.message }, 'redis error');
    lastRedisError = err.message;
  };
  queue.on('error', redisError);
  queueRedis.on('error', redisError);
  // Our own client for the event log and probes: a command waits for at most one reconnect attempt
  // (and every caller bounds it with a timeout) instead of queueing while Redis is away.
  const redis = connector.client({ maxRetriesPerRequest: 1 });
  if (settings.readOnly) readOnlyScripts(redis);
  redis.on('error', redisError);

  // Scrape-time reads: the queue from Redis, the PodSets from the API (kube is built below, with the
  // metrics' request counter; the reader runs only at scrape time).
  const metrics = createMetrics(queue, settings.queueName, redisError, {
    list: async () => (await listPodSetsInScope(kube, namespaces, { limit: 500 })).items,
    onError: (err) => log.warn({ err: err.message }, 'podset_converged: cannot list PodSets'),
  });
  const kube =
    deps.kube ??
    createKube(settings.kubeConfig, {
      qps: settings.kubeQps,
      burst: settings.kubeBurst,
      userAgent: 'podset-dashboard',
      timeoutMs: 10_000,
      onRequest: metrics.onKubeRequest,
    });

  async function readiness(): Promise<Readiness> {
    const [r, k] = await Promise.allSettled([
      withTimeout(redis.ping(), REDIS_PROBE_TIMEOUT_MS, 'redis'),
      probePodSets(kube, namespaces, AbortSignal.timeout(API_PROBE_TIMEOUT_MS)),
    ]);
    const checks: Record<string, string> = {
      redis: r.status === 'fulfilled' ? 'ok' : String((r.reason as Error)?.message ?? r.reason),
      kubernetes: k.status === 'fulfilled' ? 'ok' : String((k.reason as Error)?.message ?? k.reason),
    };
    metrics.dependencyUp.set({ dependency: 'redis' }, checks.redis === 'ok' ? 1 : 0);
    metrics.dependencyUp.set({ dependency: 'kubernetes' }, checks.kubernetes === 'ok' ? 1 : 0);
    return { ready: checks.redis === 'ok' && checks.kubernetes === 'ok', checks };
  }

  async function probe(path: string): Promise<{ status: number; type: string; body: string } | undefined> {
    if (path === '/healthz') return { status: 200, type: 'text/plain', body: 'ok\n' };
    if (path === '/readyz') {
      const r = await readiness();
      const body = Object.entries(r.checks)
        .map(([name, v]) => `${name}: ${v}`)
        .join('\n');
      return {
        status: r.ready ? 200 : 503,
        type: 'text/plain',
        body: `${r.ready ? 'ready' : 'not ready'}\n${body}\n`,
      };
    }
    if (path === '/metrics') {
      return { status: 200, type: metrics.registry.contentType, body: await metrics.registry.metrics() };
    }
    return undefined;
  }

  // bull-board, read-only unless configured otherwise (enforced by bull-board and by us, below).
  const boardAdapter = new HonoAdapter(serveStatic);
  boardAdapter.setBasePath(BOARD_PATH);
  createBullBoard({
    queues: [
      new BullMQAdapter(queue, {
        readOnlyMode: settings.readOnly,
        allowRetries: !settings.readOnly,
        prefix: '',
        description: `PodSet reconcile requests (${queueBase(settings.queuePrefix, settings.queueName)}); job name = PodSet key`,
      }),
    ],
    serverAdapter: boardAdapter,
    options: {
      uiConfig: {
        boardTitle: 'PodSet queue',
        miscLinks: [{ text: 'PodSet overview', url: '/' }],
        hideDocsLink: true,
        // bull-board's badge takes the theme's text colour unless told: dark on this dark background.
        ...(settings.readOnly
          ? { environment: { label: 'read-only', color: '#1d2330', textColor: '#ffffff' } }
          : {}),
      },
    },
  });

  const pageCtx = (cookieSession: boolean): PageContext => ({
    boardPath: BOARD_PATH,
    queueName: settings.queueName,
    readOnly: settings.readOnly,
    cookieSession,
  });

  const app = new Hono();
  const unauthorized = (c: Context, failed = false) => {
    for (const challenge of challenges(creds)) c.header('WWW-Authenticate', challenge, { append: true });
    c.header('Cache-Control', 'no-store');
    const accept = c.req.header('accept') ?? '';
    if (c.req.method === 'GET' && accept.includes('text/html')) {
      const url = new URL(c.req.url);
      const next = c.req.path === '/login' ? '/' : safeNext(c.req.path + url.search, url.origin);
      return c.html(
        loginPage({ token: creds.token !== undefined, basic: creds.basic !== undefined, next, failed }),
        401,
      );
    }
    return c.text('401 Unauthorized: send Authorization: Bearer <DASHBOARD_TOKEN> or basic auth\n', 401);
  };

  // Every response, the login page and errors included: no framing, no referrer beyond our origin, and
  // a CSP (ours: no script at all; bull-board's: its own scripts, inline styles).
  app.use('*', async (c, next) => {
    await next();
    const board = c.req.path === BOARD_PATH || c.req.path.startsWith(`${BOARD_PATH}/`);
    for (const [name, value] of securityHeaders(board)) c.res.headers.set(name, value);
  });

  // The login form is the one route that takes credentials in its body; wrong ones answer 401.
  app.post('/login', async (c) => {
    const body = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const field = (name: string) => (typeof body[name] === 'string' ? body[name] : undefined);
    const session = login({ token: field('token'), user: field('user'), password: field('password') }, creds);
    const next = safeNext(field('next'), new URL(c.req.url).origin);
    if (session === undefined) {
      log.warn({ ip: c.req.header('x-forwarded-for') }, 'failed dashboard login');
      await new Promise((r) => setTimeout(r, 300));
      c.header('Cache-Control', 'no-store');
      return c.html(
        loginPage({ token: creds.token !== undefined, basic: creds.basic !== undefined, next, failed: true }),
        401,
      );
    }
    const cookie = [
      `${COOKIE_NAME}=${session}`,
      'Path=/',
      'HttpOnly',
      'SameSite=Strict',
      `Max-Age=${settings.sessionMaxAgeSeconds}`,
      ...(settings.secureCookie ? ['Secure'] : []),
    ].join('; ');
    c.header('Set-Cookie', cookie);
    return c.redirect(next, 303);
  });

  // Everything else: authenticated, assets included.
  app.use('*', async (c, next) => {
    const method = authenticate(
      { authorization: c.req.header('authorization'), cookie: c.req.header('cookie') },
      creds,
      { nowSeconds: nowSeconds(), maxAgeSeconds: settings.sessionMaxAgeSeconds },
    );
    if (method === undefined) return unauthorized(c);
    const safeMethod = c.req.method === 'GET' || c.req.method === 'HEAD';
    if (!safeMethod && (method === 'cookie' || method === 'basic')) {
      // A cookie, and Basic credentials a browser has cached, ride along on cross-site requests: writes
      // must come from our own pages. (A bearer token is never sent by the browser on its own.)
      const origin = c.req.header('origin');
      const host = c.req.header('host');
      const site = c.req.header('sec-fetch-site');
      // An opaque origin ("null": a sandboxed frame, a redirect across sites) is never ours.
      const sameOrigin =
        origin !== undefined
          ? host !== undefined && URL.canParse(origin) && new URL(origin).host === host
          : site === undefined || site === 'same-origin';
      if (!sameOrigin) return c.text('403 Forbidden: cross-site request\n', 403);
    }
    if (!safeMethod && settings.readOnly && c.req.path.startsWith(`${BOARD_PATH}/`)) {
      return c.text(
        '403 Forbidden: the dashboard is read-only (DASHBOARD_READ_ONLY=false allows queue actions)\n',
        403,
      );
    }
    c.set('authMethod' as never, method as never);
    c.header('Cache-Control', 'no-store');
    await next();
  });

  for (const path of ['/healthz', '/readyz', '/metrics']) {
    app.get(path, async (c) => {
      const r = await probe(path);
      return c.body(r!.body, r!.status as 200, { 'Content-Type': r!.type });
    });
  }
  app.get('/login', (c) => c.redirect('/', 303));
  app.post('/logout', (c) => {
    c.header('Set-Cookie', `${COOKIE_NAME}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`);
    return c.redirect('/', 303);
  });
  const overview = () =>
    buildOverview({
      kube,
      queue,
      redis,
      eventLogKeys: settings.eventLogKeys,
      eventsPerPodSet: settings.eventsPerPodSet,
      eventLogScan: settings.eventLogScan,
      jobScan: settings.jobScan,
      ...(settings.lease !== undefined ? { lease: settings.lease } : {}),
      namespaces,
    });
  const ctxOf = (c: Context) => pageCtx(c.get('authMethod' as never) === 'cookie');
  app.get('/', async (c) => {
    const parsed = parseFilter(c.req.query());
    if ('problem' in parsed) {
      return c.html(messagePage(ctxOf(c), 'Bad filter', `Bad filter: ${parsed.problem}.`), 400);
    }
    const o = await overview();
    const view = {
      filter: parsed.filter,
      total: o.podSets.length,
      namespaces: [...new Set(o.podSets.map((r) => r.namespace))],
    };
    const shown = { ...o, podSets: o.podSets.filter((r) => matches(r, parsed.filter)) };
    return c.html(overviewPage(shown, ctxOf(c), view));
  });
  app.get('/api/overview', async (c) => {
    const parsed = parseFilter(c.req.query());
    if ('problem' in parsed) return c.json({ error: `bad filter: ${parsed.problem}` }, 400);
    const o = await overview();
    return c.json({ ...o, podSets: o.podSets.filter((r) => matches(r, parsed.filter)) });
  });
  const detail = (namespace: string, name: string) =>
    buildPodSetDetail(
      {
        kube,
        queue,
        redis,
        eventLogKeys: settings.eventLogKeys,
        eventLogScan: settings.eventLogScan,
        jobScan: settings.jobScan,
      },
      namespace,
      name,
    );
  app.get('/podsets/:namespace/:name', async (c) => {
    const { namespace, name } = c.req.param();
    const problem = nameProblem(namespace, name);
    if (problem !== undefined) {
      return c.html(messagePage(ctxOf(c), 'Bad PodSet name', `${namespace}/${name}: ${problem}.`), 400);
    }
    const d = await detail(namespace, name);
    return c.html(podSetPage(d, ctxOf(c)), d.notFound ? 404 : 200);
  });
  app.get('/api/podsets/:namespace/:name', async (c) => {
    const { namespace, name } = c.req.param();
    const problem = nameProblem(namespace, name);
    if (problem !== undefined) return c.json({ error: `${namespace}/${name}: ${problem}` }, 400);
    const d = await detail(namespace, name);
    return c.json(d, d.notFound ? 404 : 200);
  });
  // bull-board's pages get a visible way back to the overview (and lose their third-party fonts).
  const backLink = async (c: Context, next: () => Promise<void>) => {
    await next();
    if (c.req.method !== 'GET' || !(c.res.headers.get('content-type') ?? '').includes('text/html')) return;
    const headers = new Headers(c.res.headers);
    headers.delete('content-length');
    const html = withOverviewLink(withoutThirdPartyLinks(await c.res.text()));
    c.res = new Response(html, { status: c.res.status, headers });
  };
  app.use(`${BOARD_PATH}/*`, backLink); // matches BOARD_PATH itself too
  app.route(BOARD_PATH, boardAdapter.registerPlugin());
  app.notFound((c) => {
    if ((c.req.header('accept') ?? '').includes('text/html')) {
      return c.html(messagePage(ctxOf(c), 'Not found', `Nothing at ${c.req.path}.`), 404);
    }
    return c.text('404 Not Found\n', 404);
  });
  app.onError((err, c) => {
    log.error({ err: err.message, path: c.req.path }, 'request failed');
    return c.text('500 Internal Server Error\n', 500);
  });

  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: settings.port, hostname: settings.host }, () => resolve(s));
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;

  let probeServer: http.Server | undefined;
  let httpPort: number | undefined;
  if (settings.httpPort !== 0) {
    probeServer = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      probe(path).then(
        (r) => {
          if (r === undefined) {
            res.statusCode = 404;
            res.end('not found\n');
            return;
          }
          res.statusCode = r.status;
          res.setHeader('Content-Type', r.type);
          res.end(r.body);
        },
        (err: unknown) => {
          res.statusCode = 500;
          res.end(`${String(err)}\n`);
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      probeServer!.once('error', reject);
      probeServer!.listen(
        settings.httpPort === -1 ? 0 : settings.httpPort,
        settings.httpHost ?? settings.host,
        resolve,
      );
    });
    httpPort = (probeServer.address() as AddressInfo).port;
  }

  const shownHost = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  log.info(
    {
      url,
      httpPort,
      ...(probeServer !== undefined ? { httpHost: (probeServer.address() as AddressInfo).address } : {}),
      queue: queueBase(settings.queuePrefix, settings.queueName),
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
    port,
    url,
    httpPort,
    close() {
      closing ??= (async () => {
        const closeServer = (s: { close(cb: () => void): unknown; closeAllConnections?: () => void }) =>
          new Promise<void>((resolve) => {
            s.close(() => resolve());
            s.closeAllConnections?.();
          });
        await closeServer(server as http.Server);
        if (probeServer !== undefined) await closeServer(probeServer);
        await queue.close().catch(() => undefined);
        queueRedis.disconnect();
        redis.disconnect();
        log.info('dashboard stopped');
      })();
      return closing;
    },
  };
}
