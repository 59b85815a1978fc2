// Shared by the ops tests: the e2e process harness plus the dashboard as a child process, and small
// HTTP helpers (scrape /metrics, wait for a log line carrying a field).
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Proc, REPO, type OperatorEnv } from '../e2e/support/harness.ts';
import { waitFor } from '@podset/testkit';

export const DASHBOARD_MAIN = path.join(REPO, 'apps/dashboard/src/main.ts');

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Starts apps/dashboard as a child (read-only kube identity "viewer"); it picks a free port. */
export function startDashboardProc(env: OperatorEnv, name: string, extra: Record<string, string>): Proc {
  const proc = new Proc(
    name,
    [DASHBOARD_MAIN],
    {
      KUBECONFIG: env.sim.kubeconfigFor('viewer'),
      REDIS_URL: env.redis.url,
      DASHBOARD_PORT: '0',
      DASHBOARD_HOST: '127.0.0.1',
      // Plain HTTP on 127.0.0.1: the documented switch for local use (the default is a Secure cookie).
      DASHBOARD_SECURE_COOKIE: 'false',
      LOG_LEVEL: 'info',
      ...extra,
    },
    env.logDir,
  );
  env.procs.push(proc);
  return proc;
}

/** Waits for a JSON log line whose msg is `msg`; returns it parsed. */
export async function waitForLog(
  proc: Proc,
  msg: string,
  timeoutMs = 120_000,
): Promise<Record<string, unknown>> {
  const logged = () => {
    for (const line of proc.lines()) {
      if (!line.startsWith('{')) continue;
      try {
        const obj = JSON.parse(line) as Record<string, unknown>;
        if (obj.msg === msg) return obj;
      } catch {
        // not JSON
      }
    }
    return undefined;
  };
  return await waitFor(`${proc.name} to log "${msg}"`, logged, {
    timeoutMs,
    intervalMs: 100,
    describe: () => proc.describe(),
    giveUp: () => (proc.running ? undefined : `${proc.name} exited`),
  });
}

/** The dashboard's URL, from its "dashboard started" log line. */
export async function dashboardUrl(proc: Proc): Promise<string> {
  const line = await waitForLog(proc, 'dashboard started');
  if (typeof line.url !== 'string') throw new Error(`no url in ${JSON.stringify(line)}`);
  return line.url;
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses Prometheus text exposition (enough for prom-client's output). */
export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (m === null) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!;
    const raw = m[3]!;
    out.push({
      name: m[1]!,
      labels,
      value: raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw),
    });
  }
  return out;
}

export function samples(all: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return all.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

export function sum(all: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples(all, name, labels).reduce((a, s) => a + s.value, 0);
}

export async function scrape(url: string, headers: Record<string, string> = {}): Promise<Sample[]> {
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return parseMetrics(await res.text());
}

export async function statusOf(url: string, headers: Record<string, string> = {}): Promise<number> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}
