// Authentication in front of every route: the security headers on every response, the login form (the one
// route that takes credentials in its body), then a middleware that lets through only a valid bearer token,
// Basic credentials or login cookie, refuses cross-site writes and, when read-only, the queue's actions.
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { Logger } from '@podset/log';
import { authenticate, challenges, COOKIE_NAME, login, nowSeconds, safeNext } from './auth.ts';
import type { Credentials } from './config.ts';
import { loginPage } from './html.ts';
import { securityHeaders } from './security-headers.ts';

export interface AuthSettings {
  credentials: Credentials;
  readOnly: boolean;
  /** Mark the login cookie Secure (HTTPS); false only for plain-HTTP local use. */
  secureCookie: boolean;
  /** How long a login cookie is honoured after it was issued, checked on every request. */
  sessionMaxAgeSeconds: number;
  /** Where bull-board is mounted: its pages get their own CSP, its writes are refused when read-only. */
  boardPath: string;
}

/** How a request was authenticated, for the pages (a cookie session shows a log-out button). */
export const AUTH_METHOD = 'authMethod';

/** Adds the security headers, the login and logout routes and the authentication middleware to `app`. */
export function installAuth(app: Hono, settings: AuthSettings, log: Logger): void {
  // Every response, the login page and errors included: no framing, no referrer beyond our origin, and
  // a CSP (ours: no script at all; bull-board's: its own scripts, inline styles).
  app.use('*', async (c, next) => {
    await next();
    const board = c.req.path === settings.boardPath || c.req.path.startsWith(`${settings.boardPath}/`);
    for (const [name, value] of securityHeaders(board)) c.res.headers.set(name, value);
  });
  app.post('/login', (c) => loginRoute(c, settings, log));
  // Everything else: authenticated, assets included.
  app.use('*', authMiddleware(settings));
  app.get('/login', (c) => c.redirect('/', 303));
  app.post('/logout', (c) => {
    c.header('Set-Cookie', `${COOKIE_NAME}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`);
    return c.redirect('/', 303);
  });
}

function unauthorized(c: Context, creds: Credentials, failed = false): Response {
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
}

// Wrong credentials answer 401 after a pause, which slows guessing.
async function loginRoute(c: Context, settings: AuthSettings, log: Logger): Promise<Response> {
  const creds = settings.credentials;
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
}

function authMiddleware(settings: AuthSettings): MiddlewareHandler {
  return async (c, next) => {
    const method = authenticate(
      { authorization: c.req.header('authorization'), cookie: c.req.header('cookie') },
      settings.credentials,
      { nowSeconds: nowSeconds(), maxAgeSeconds: settings.sessionMaxAgeSeconds },
    );
    if (method === undefined) return unauthorized(c, settings.credentials);
    const safeMethod = c.req.method === 'GET' || c.req.method === 'HEAD';
    // A cookie, and Basic credentials a browser has cached, ride along on cross-site requests: writes
    // must come from our own pages. (A bearer token is never sent by the browser on its own.)
    if (!safeMethod && (method === 'cookie' || method === 'basic') && !sameOrigin(c)) {
      return c.text('403 Forbidden: cross-site request\n', 403);
    }
    if (!safeMethod && settings.readOnly && c.req.path.startsWith(`${settings.boardPath}/`)) {
      return c.text(
        '403 Forbidden: the dashboard is read-only (DASHBOARD_READ_ONLY=false allows queue actions)\n',
        403,
      );
    }
    c.set(AUTH_METHOD as never, method as never);
    c.header('Cache-Control', 'no-store');
    await next();
  };
}

function sameOrigin(c: Context): boolean {
  const origin = c.req.header('origin');
  const host = c.req.header('host');
  const site = c.req.header('sec-fetch-site');
  // An opaque origin ("null": a sandboxed frame, a redirect across sites) is never ours.
  return origin !== undefined
    ? host !== undefined && URL.canParse(origin) && new URL(origin).host === host
    : site === undefined || site === 'same-origin';
}
