// Who may see the dashboard: a bearer token (header, or a cookie set by the login form) or HTTP basic
// auth. Pure functions over request headers; server.ts applies them to every route.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DEFAULT_SESSION_MAX_AGE_SECONDS, type Credentials } from './config.ts';
import { systemClock, type Clock } from '@podset/clock';

export const COOKIE_NAME = 'podset_dashboard';

/** Constant-time comparison of two strings (lengths may differ). */
export function safeEqual(a: string, b: string): boolean {
  const key = 'podset-dashboard-compare';
  const ha = createHmac('sha256', key).update(a).digest();
  const hb = createHmac('sha256', key).update(b).digest();
  return timingSafeEqual(ha, hb);
}

/** Replicas' clocks may differ a little: an issue time this far ahead is still accepted. */
const CLOCK_SKEW_SECONDS = 60;

/**
 * The cookie the login form sets: the issue time (seconds) and an HMAC over it keyed by the secret the
 * user proved, never the secret itself. Stateless (survives restarts and works across replicas), expires
 * server-side after the max age whatever the browser keeps, and is invalidated when the secret changes.
 */
export function sessionValue(secret: string, issuedAtSeconds: number): string {
  const mac = createHmac('sha256', secret)
    .update(`podset-dashboard-session-v2\n${issuedAtSeconds}`)
    .digest('base64url');
  return `${issuedAtSeconds}.${mac}`;
}

/** The secrets a cookie may be keyed by: one per configured credential. */
function sessionSecrets(creds: Credentials): string[] {
  const out: string[] = [];
  if (creds.token !== undefined) out.push(`token:${creds.token}`);
  if (creds.basic !== undefined) out.push(`basic:${creds.basic.user}:${creds.basic.password}`);
  return out;
}

/** When to judge a cookie's age, and the longest a login lasts. */
export interface SessionClock {
  nowSeconds: number;
  maxAgeSeconds: number;
}

function cookieValid(cookie: string, creds: Credentials, clock: SessionClock): boolean {
  const dot = cookie.indexOf('.');
  const issued = cookie.slice(0, dot);
  if (dot < 0 || !/^\d{1,12}$/.test(issued)) return false;
  const issuedAt = Number(issued);
  if (issuedAt > clock.nowSeconds + CLOCK_SKEW_SECONDS) return false;
  if (clock.nowSeconds - issuedAt >= clock.maxAgeSeconds) return false;
  let ok = false;
  for (const secret of sessionSecrets(creds)) ok = safeEqual(cookie, sessionValue(secret, issuedAt)) || ok;
  return ok;
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (header === undefined) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name !== '' && !out.has(name)) out.set(name, value);
  }
  return out;
}

export type AuthMethod = 'bearer' | 'basic' | 'cookie';

/** How the request authenticated, or undefined when it did not. */
export function authenticate(
  headers: { authorization?: string | undefined; cookie?: string | undefined },
  creds: Credentials,
  clock: SessionClock = { nowSeconds: nowSeconds(), maxAgeSeconds: DEFAULT_SESSION_MAX_AGE_SECONDS },
): AuthMethod | undefined {
  const authz = headers.authorization?.trim();
  if (authz !== undefined && authz !== '') {
    const space = authz.indexOf(' ');
    const scheme = (space < 0 ? authz : authz.slice(0, space)).toLowerCase();
    const value = space < 0 ? '' : authz.slice(space + 1).trim();
    if (scheme === 'bearer' && creds.token !== undefined && safeEqual(value, creds.token)) return 'bearer';
    if (scheme === 'basic' && creds.basic !== undefined) {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) {
        const userOk = safeEqual(decoded.slice(0, colon), creds.basic.user);
        const passOk = safeEqual(decoded.slice(colon + 1), creds.basic.password);
        if (userOk && passOk) return 'basic';
      }
    }
  }
  const cookie = parseCookies(headers.cookie).get(COOKIE_NAME);
  if (cookie !== undefined && cookie !== '' && cookieValid(cookie, creds, clock)) return 'cookie';
  return undefined;
}

/**
 * A login attempt from the form: the token, or a user and password. Returns the cookie value to set,
 * or undefined when the credentials are wrong.
 */
export function login(
  form: { token?: string | undefined; user?: string | undefined; password?: string | undefined },
  creds: Credentials,
  issuedAtSeconds: number = nowSeconds(),
): string | undefined {
  if (creds.token !== undefined && form.token !== undefined && form.token !== '') {
    if (safeEqual(form.token, creds.token)) return sessionValue(`token:${creds.token}`, issuedAtSeconds);
  }
  if (creds.basic !== undefined && form.user !== undefined && form.password !== undefined) {
    const userOk = safeEqual(form.user, creds.basic.user);
    const passOk = safeEqual(form.password, creds.basic.password);
    if (userOk && passOk) {
      return sessionValue(`basic:${creds.basic.user}:${creds.basic.password}`, issuedAtSeconds);
    }
  }
  return undefined;
}

/** The WWW-Authenticate challenges for a 401. */
export function challenges(creds: Credentials): string[] {
  const out: string[] = [];
  if (creds.token !== undefined) out.push('Bearer realm="podset-dashboard"');
  if (creds.basic !== undefined) out.push('Basic realm="podset-dashboard", charset="UTF-8"');
  return out;
}

export function nowSeconds(clock: Pick<Clock, 'now'> = systemClock): number {
  return Math.floor(clock.now() / 1000);
}

/**
 * A path to return to after login: only a path on the dashboard's own origin (no open redirect). The
 * value is resolved the way a browser resolves a Location header (tabs and newlines dropped, a backslash
 * read as a slash), so "/\t/evil.example" or "/\\evil" cannot turn into another host; the answer is
 * the resolved path, query and fragment, starting with a single "/".
 */
export function safeNext(next: string | undefined, origin: string): string {
  if (next === undefined || !next.startsWith('/') || !URL.canParse(next, origin)) return '/';
  const url = new URL(next, origin);
  if (url.origin !== new URL(origin).origin || url.pathname.startsWith('//')) return '/';
  return url.pathname + url.search + url.hash;
}
