// Who may see the dashboard: a bearer token (header, or a cookie set by the login form) or HTTP basic
// auth. Pure functions over request headers; server.ts applies them to every route.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Credentials } from './config.ts';

export const COOKIE_NAME = 'podset_dashboard';

/** Constant-time comparison of two strings (lengths may differ). */
export function safeEqual(a: string, b: string): boolean {
  const key = 'podset-dashboard-compare';
  const ha = createHmac('sha256', key).update(a).digest();
  const hb = createHmac('sha256', key).update(b).digest();
  return timingSafeEqual(ha, hb);
}

/**
 * The cookie the login form sets: an HMAC of the secret the user proved, never the secret itself.
 * Stateless (survives restarts and works across replicas) and invalidated when the secret changes.
 */
export function sessionValue(secret: string): string {
  return createHmac('sha256', secret).update('podset-dashboard-session-v1').digest('base64url');
}

/** Cookie values for every configured credential. */
function validSessions(creds: Credentials): string[] {
  const out: string[] = [];
  if (creds.token !== undefined) out.push(sessionValue(`token:${creds.token}`));
  if (creds.basic !== undefined) out.push(sessionValue(`basic:${creds.basic.user}:${creds.basic.password}`));
  return out;
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
  if (cookie !== undefined && cookie !== '') {
    let ok = false;
    for (const valid of validSessions(creds)) ok = safeEqual(cookie, valid) || ok;
    if (ok) return 'cookie';
  }
  return undefined;
}

/**
 * A login attempt from the form: the token, or a user and password. Returns the cookie value to set,
 * or undefined when the credentials are wrong.
 */
export function login(
  form: { token?: string | undefined; user?: string | undefined; password?: string | undefined },
  creds: Credentials,
): string | undefined {
  if (creds.token !== undefined && form.token !== undefined && form.token !== '') {
    if (safeEqual(form.token, creds.token)) return sessionValue(`token:${creds.token}`);
  }
  if (creds.basic !== undefined && form.user !== undefined && form.password !== undefined) {
    const userOk = safeEqual(form.user, creds.basic.user);
    const passOk = safeEqual(form.password, creds.basic.password);
    if (userOk && passOk) return sessionValue(`basic:${creds.basic.user}:${creds.basic.password}`);
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

/** A path to return to after login: only a local absolute path (no open redirect). */
export function safeNext(next: string | undefined): string {
  if (next === undefined || !next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return '/';
  return next;
}
