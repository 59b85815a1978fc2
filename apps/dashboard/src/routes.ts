// The dashboard's pages and JSON API, behind the authentication middleware: the PodSet overview (with its
// filter), one PodSet's page, the probes, and bull-board with a way back to the overview.
import type { HonoAdapter } from '@bull-board/hono';
import type { Kube } from '@podset/kube';
import type { RedisClient } from '@podset/redis';
import type { Queue } from 'bullmq';
import type { Context, Hono } from 'hono';
import type { OpsManager } from '@podset/runtime';
import type { Logger } from '@podset/log';
import { AUTH_METHOD } from './auth-middleware.ts';
import { BOARD_PATH } from './board.ts';
import { matches, parseFilter } from './filter.ts';
import {
  messagePage,
  overviewPage,
  withOverviewLink,
  withoutThirdPartyLinks,
  type PageContext,
} from './html.ts';
import { buildOverview } from './overview.ts';
import { podSetPage } from './podset-page.ts';
import { buildPodSetDetail, nameProblem } from './podset.ts';

/** What the pages read from, and how they are shown. */
export interface PageSources {
  kube: Kube;
  queue: Queue;
  redis: RedisClient;
  queueName: string;
  readOnly: boolean;
  eventLogKeys: string[];
  eventsPerPodSet: number;
  eventLogScan: number;
  jobScan: number;
  lease?: { namespace: string; name: string };
  namespaces: readonly string[];
}

export function installRoutes(
  app: Hono,
  deps: { sources: PageSources; ops: OpsManager; board: HonoAdapter; log: Logger },
): void {
  const { sources, ops, board, log } = deps;
  // The operations endpoint on the app too, behind its authentication.
  for (const path of ['/healthz', '/healthz/:name', '/readyz', '/readyz/:name', '/metrics']) {
    app.get(path, async (c) => {
      const url = new URL(c.req.url);
      const r = await ops.answer(url.pathname + url.search);
      if (r === undefined) return c.notFound();
      return c.body(r.body, r.status as 200, { 'Content-Type': r.type });
    });
  }
  installOverview(app, sources);
  installPodSetPage(app, sources);
  app.use(`${BOARD_PATH}/*`, backLink); // matches BOARD_PATH itself too
  app.route(BOARD_PATH, board.registerPlugin());
  app.notFound((c) => {
    if ((c.req.header('accept') ?? '').includes('text/html')) {
      return c.html(messagePage(pageContext(c, sources), 'Not found', `Nothing at ${c.req.path}.`), 404);
    }
    return c.text('404 Not Found\n', 404);
  });
  app.onError((err, c) => {
    log.error({ err: err.message, path: c.req.path }, 'request failed');
    return c.text('500 Internal Server Error\n', 500);
  });
}

function pageContext(c: Context, sources: PageSources): PageContext {
  return {
    boardPath: BOARD_PATH,
    queueName: sources.queueName,
    readOnly: sources.readOnly,
    cookieSession: c.get(AUTH_METHOD as never) === 'cookie',
  };
}

function installOverview(app: Hono, sources: PageSources): void {
  const overview = () =>
    buildOverview({
      kube: sources.kube,
      queue: sources.queue,
      redis: sources.redis,
      eventLogKeys: sources.eventLogKeys,
      eventsPerPodSet: sources.eventsPerPodSet,
      eventLogScan: sources.eventLogScan,
      jobScan: sources.jobScan,
      ...(sources.lease !== undefined ? { lease: sources.lease } : {}),
      namespaces: sources.namespaces,
    });
  app.get('/', async (c) => {
    const parsed = parseFilter(c.req.query());
    if ('problem' in parsed) {
      return c.html(
        messagePage(pageContext(c, sources), 'Bad filter', `Bad filter: ${parsed.problem}.`),
        400,
      );
    }
    const o = await overview();
    const view = {
      filter: parsed.filter,
      total: o.podSets.length,
      namespaces: [...new Set(o.podSets.map((r) => r.namespace))],
    };
    const shown = { ...o, podSets: o.podSets.filter((r) => matches(r, parsed.filter)) };
    return c.html(overviewPage(shown, pageContext(c, sources), view));
  });
  app.get('/api/overview', async (c) => {
    const parsed = parseFilter(c.req.query());
    if ('problem' in parsed) return c.json({ error: `bad filter: ${parsed.problem}` }, 400);
    const o = await overview();
    return c.json({ ...o, podSets: o.podSets.filter((r) => matches(r, parsed.filter)) });
  });
}

function installPodSetPage(app: Hono, sources: PageSources): void {
  const detail = (namespace: string, name: string) =>
    buildPodSetDetail(
      {
        kube: sources.kube,
        queue: sources.queue,
        redis: sources.redis,
        eventLogKeys: sources.eventLogKeys,
        eventLogScan: sources.eventLogScan,
        jobScan: sources.jobScan,
      },
      namespace,
      name,
    );
  app.get('/podsets/:namespace/:name', async (c) => {
    const { namespace, name } = c.req.param();
    const problem = nameProblem(namespace, name);
    if (problem !== undefined) {
      const page = messagePage(
        pageContext(c, sources),
        'Bad PodSet name',
        `${namespace}/${name}: ${problem}.`,
      );
      return c.html(page, 400);
    }
    const d = await detail(namespace, name);
    return c.html(podSetPage(d, pageContext(c, sources)), d.notFound ? 404 : 200);
  });
  app.get('/api/podsets/:namespace/:name', async (c) => {
    const { namespace, name } = c.req.param();
    const problem = nameProblem(namespace, name);
    if (problem !== undefined) return c.json({ error: `${namespace}/${name}: ${problem}` }, 400);
    const d = await detail(namespace, name);
    return c.json(d, d.notFound ? 404 : 200);
  });
}

// bull-board's pages get a visible way back to the overview (and lose their third-party fonts).
async function backLink(c: Context, next: () => Promise<void>): Promise<void> {
  await next();
  if (c.req.method !== 'GET' || !(c.res.headers.get('content-type') ?? '').includes('text/html')) return;
  const headers = new Headers(c.res.headers);
  headers.delete('content-length');
  const html = withOverviewLink(withoutThirdPartyLinks(await c.res.text()));
  c.res = new Response(html, { status: c.res.status, headers });
}
