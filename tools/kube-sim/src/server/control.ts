// kube-sim's own control API, for scripts in other processes (admin identity only): faults, the event
// history, restart and pause, the controllers' run-time options, the audit log. Not part of Kubernetes.
import { ApiError } from '../apimachinery/types.ts';
import { parseBody, readBody } from '../endpoints/request/request-body.ts';
import { sendJson } from '../endpoints/request/response.ts';
import { successStatus } from '../endpoints/request/status.ts';
import type { WatchHub } from '../storage/watch.ts';
import type { Audit, AuditQuery } from './filters/audit.ts';
import type { RequestContext } from './filters/chain.ts';
import type { Faults } from './filters/faults.ts';

export interface ControlDeps {
  faults: Faults;
  audit: Audit;
  hub: WatchHub;
  /** PUT /kube-sim/controllers: run-time controller options; returns the options in force. */
  configureControllers?: ((changes: Record<string, unknown>) => unknown) | undefined;
}

/** The listener, which restart and pause take down and bring back. */
export interface Listener {
  stopListening(): Promise<void>;
  relisten(): Promise<void>;
}

type Route = (ctx: RequestContext, deps: ControlDeps, listener: Listener) => Promise<void> | void;

async function body(ctx: RequestContext): Promise<Record<string, unknown>> {
  const buf = await readBody(ctx.req);
  return buf.length ? (parseBody(buf, 'application/json') as Record<string, unknown>) : {};
}

async function setFaults(ctx: RequestContext, { faults }: ControlDeps): Promise<void> {
  const b = await body(ctx);
  if (b.reset === true) faults.reset();
  faults.set(b);
  sendJson(ctx.res, 200, faults.snapshot());
}

async function history(ctx: RequestContext, { faults }: ControlDeps): Promise<void> {
  const b = await body(ctx);
  if (b.compact === true) faults.compactHistory();
  if (typeof b.limit === 'number') faults.setHistoryLimit(b.limit);
  sendJson(ctx.res, 200, successStatus());
}

/** Restart (the watch cache starts afresh) or pause for `ms`, once the 202 is sent. */
function restartOrPause(ctx: RequestContext, { faults, hub }: ControlDeps, listener: Listener): void {
  const q = ctx.url.searchParams;
  const restart = ctx.path === '/kube-sim/restart';
  const ms = Number(q.get('ms') ?? '1000');
  ctx.res.on('finish', () => {
    setTimeout(() => {
      void (async () => {
        await listener.stopListening();
        if (restart) hub.restartCache();
        if (q.get('compact') === 'true') faults.compactHistory();
        if (!restart) await new Promise((r) => setTimeout(r, ms));
        await listener.relisten();
      })();
    }, 10);
  });
  sendJson(ctx.res, 202, successStatus());
}

async function controllers(ctx: RequestContext, deps: ControlDeps): Promise<void> {
  const configure = deps.configureControllers;
  if (!configure) throw new ApiError(404, 'NotFound', 'no controllers are running');
  const b = await body(ctx);
  try {
    sendJson(ctx.res, 200, configure(b));
  } catch (e) {
    throw e instanceof ApiError
      ? e
      : new ApiError(400, 'BadRequest', e instanceof Error ? e.message : String(e));
  }
}

function auditQuery(ctx: RequestContext, { audit }: ControlDeps): void {
  const q = ctx.url.searchParams;
  const query: AuditQuery = {};
  for (const k of ['user', 'verb', 'resource', 'namespace', 'name', 'since'] as const) {
    const v = q.get(k);
    if (v) query[k] = v;
  }
  const code = q.get('code');
  if (code) query.code = Number(code);
  sendJson(ctx.res, 200, audit.query(query));
}

const ROUTES: Record<string, Record<string, Route>> = {
  '/kube-sim/faults': {
    GET: (ctx, { faults }) => sendJson(ctx.res, 200, faults.snapshot()),
    PUT: setFaults,
    POST: setFaults,
  },
  '/kube-sim/faults/expire-watches': {
    POST: (ctx, { faults }) => {
      faults.expireNextWatch(Number(ctx.url.searchParams.get('n') ?? '1'));
      sendJson(ctx.res, 200, faults.snapshot());
    },
  },
  '/kube-sim/faults/stall-watches': {
    POST: (ctx, { faults }) => sendJson(ctx.res, 200, { stalled: faults.stallWatches() }),
  },
  '/kube-sim/history': { POST: history },
  '/kube-sim/restart': { POST: restartOrPause },
  '/kube-sim/pause': { POST: restartOrPause },
  '/kube-sim/controllers': { PUT: controllers, POST: controllers },
  '/kube-sim/audit': { GET: auditQuery },
};

export async function serveControl(
  ctx: RequestContext,
  deps: ControlDeps,
  listener: Listener,
): Promise<void> {
  const user = ctx.attributes.user;
  if (user !== 'admin')
    throw new ApiError(403, 'Forbidden', `User "${user}" cannot use the kube-sim control API`);
  const route = ROUTES[ctx.path]?.[ctx.req.method ?? 'GET'];
  if (!route) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
  await route(ctx, deps, listener);
}
