// The dashboard's environment, declared once: validated at start with a message naming the variable.
import { bool, int, list, optionalStr, str, type Config } from '@podset/config';
import { kubeAccessEnv, kubeRateEnv } from '@podset/kube';
import { httpHostEnv, logEnv } from '@podset/runtime';
import { queueEnv } from '@podset/queue';
import { redisEnv } from '@podset/redis';

/** How long a login lasts unless DASHBOARD_SESSION_MAX_AGE says otherwise: a working day. */
export const DEFAULT_SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;

export const dashboardEnv = {
  ...kubeAccessEnv,
  ...redisEnv,
  ...queueEnv,
  DASHBOARD_PORT: int({
    description: 'Port of the dashboard (UI, API, /metrics, probes)',
    default: 3000,
    min: 0,
    max: 65535,
  }),
  DASHBOARD_HOST: str({ description: 'Address the dashboard listens on', default: '0.0.0.0' }),
  DASHBOARD_TOKEN: optionalStr({
    description:
      'Bearer token for the dashboard (Authorization: Bearer, or the login form); this or DASHBOARD_USER/DASHBOARD_PASSWORD is required',
  }),
  DASHBOARD_USER: optionalStr({ description: 'Basic-auth user name (with DASHBOARD_PASSWORD)' }),
  DASHBOARD_PASSWORD: optionalStr({
    description: 'Basic-auth password (with DASHBOARD_USER), at least 12 characters',
  }),
  DASHBOARD_READ_ONLY: bool({
    description: 'false: allow queue actions (retry, promote, clean) in bull-board',
    default: true,
  }),
  DASHBOARD_SECURE_COOKIE: bool({
    description:
      'Mark the login cookie Secure (sent over HTTPS only); false only for plain-HTTP local use (compose, npm run demo)',
    default: true,
  }),
  DASHBOARD_SESSION_MAX_AGE: int({
    description:
      'Seconds a login cookie is honoured after it was issued, checked by the dashboard on every request',
    default: DEFAULT_SESSION_MAX_AGE_SECONDS,
    min: 60,
    max: 7 * 24 * 60 * 60,
  }),
  EVENTS_PER_PODSET: int({
    description: 'Event-log entries shown per PodSet on the overview',
    default: 5,
    min: 0,
    max: 100,
  }),
  EVENT_LOG_SCAN: int({
    description:
      'How many of the newest event-log entries the overview and a PodSet page read (and at most as many of their records)',
    default: 2000,
    min: 1,
    max: 100_000,
  }),
  JOB_SCAN: int({
    description:
      'How many of the newest jobs of each state the overview and a PodSet page read (last reconciles, job history)',
    default: 1000,
    min: 1,
    max: 100_000,
  }),
  WATCH_NAMESPACES: list({
    description:
      "Comma-separated namespaces whose PodSets are shown (the watcher's; a namespaced install has Roles only there); empty: all namespaces",
    default: [],
    item: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
  }),
  LEASE_NAMESPACE: str({
    description: "Namespace of the watcher's leader-election Lease (shown as the leading watcher)",
    default: 'default',
    pattern: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
  }),
  LEASE_NAME: str({
    description: "Name of the watcher's leader-election Lease (the watcher's LEASE_NAME)",
    default: 'podset-watcher',
  }),
  HTTP_PORT: int({
    description:
      'Extra port serving only /metrics, /healthz, /readyz without authentication, for probes and scrapers (0: none)',
    default: 0,
    min: 0,
    max: 65535,
  }),
  ...kubeRateEnv({ qps: 5, burst: 10 }),
  ...httpHostEnv,
  ...logEnv,
} as const;

export type DashboardConfig = Config<typeof dashboardEnv>;

/** Basic auth is open to guessing (a browser's prompt, no lockout): a short password is refused. */
export const MIN_PASSWORD_LENGTH = 12;

export interface Credentials {
  token?: string;
  basic?: { user: string; password: string };
}

/**
 * The credentials the dashboard accepts, or the problems (each naming its variable): at least one of
 * DASHBOARD_TOKEN or DASHBOARD_USER + DASHBOARD_PASSWORD is required; a half-set pair is an error.
 */
export function credentialsOf(
  cfg: Pick<DashboardConfig, 'DASHBOARD_TOKEN' | 'DASHBOARD_USER' | 'DASHBOARD_PASSWORD'>,
): { credentials: Credentials; problems: { variable: string; message: string }[] } {
  const problems: { variable: string; message: string }[] = [];
  const credentials: Credentials = {};
  if (cfg.DASHBOARD_TOKEN !== undefined) {
    if (cfg.DASHBOARD_TOKEN.length < 16) {
      problems.push({ variable: 'DASHBOARD_TOKEN', message: 'must be at least 16 characters long' });
    } else credentials.token = cfg.DASHBOARD_TOKEN;
  }
  const user = cfg.DASHBOARD_USER;
  const password = cfg.DASHBOARD_PASSWORD;
  if (user !== undefined && password === undefined) {
    problems.push({ variable: 'DASHBOARD_PASSWORD', message: 'is required when DASHBOARD_USER is set' });
  } else if (user === undefined && password !== undefined) {
    problems.push({ variable: 'DASHBOARD_USER', message: 'is required when DASHBOARD_PASSWORD is set' });
  } else if (user !== undefined && password !== undefined) {
    const before = problems.length;
    if (user.includes(':')) problems.push({ variable: 'DASHBOARD_USER', message: 'must not contain ":"' });
    if (password.length < MIN_PASSWORD_LENGTH) {
      problems.push({
        variable: 'DASHBOARD_PASSWORD',
        message: `must be at least ${MIN_PASSWORD_LENGTH} characters long`,
      });
    }
    if (problems.length === before) credentials.basic = { user, password };
  }
  if (problems.length === 0 && credentials.token === undefined && credentials.basic === undefined) {
    problems.push({
      variable: 'DASHBOARD_TOKEN',
      message:
        'authentication is required: set DASHBOARD_TOKEN, or DASHBOARD_USER and DASHBOARD_PASSWORD (or both)',
    });
  }
  return { credentials, problems };
}
