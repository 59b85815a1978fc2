// What the tests of docker-compose.yml share: the file parsed (no Docker engine needed), and readers of its
// services: the app a service runs, its healthcheck port, published ports, mounts and the named volumes
// behind them, kube-sim's kubeconfig files, and a service's environment with no variable set.
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { ENTRIES, readRepo } from './support.ts';

export interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number };
  user?: string;
  read_only?: boolean;
  cap_drop?: string[];
  profiles?: string[];
  networks?: unknown;
}

interface Volume {
  driver_opts?: { type?: string; device?: string; o?: string };
}

export interface Compose {
  name?: string;
  services: Record<string, Service>;
  volumes?: Record<string, Volume | null>;
}

export const compose = parse(readRepo('docker-compose.yml'), { merge: true }) as Compose;
export const services = compose.services;
export const APPS = ['watcher', 'worker', 'dashboard'] as const;

/** The app a service runs (`node apps/<app>/src/main.ts`), if any. */
export function appOf(s: Service): string | undefined {
  const entry = (s.command ?? []).find((a) => Object.values(ENTRIES).includes(a));
  return Object.entries(ENTRIES).find(([, e]) => e === entry)?.[0];
}

/** The port a healthcheck asks on (fetch('http://127.0.0.1:PORT/…')). */
export function healthPort(s: Service): number | undefined {
  const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec((s.healthcheck?.test ?? []).join(' '));
  return m ? Number(m[1]) : undefined;
}

/** "127.0.0.1:8082:8082" → { host: '127.0.0.1', published: 8082, target: 8082 } (`${VAR:-8082}`: its default). */
export function parsePort(p: string): { host: string | undefined; published: number; target: number } {
  const parts = p.replace(/\$\{\w+:-([^}]*)\}/g, '$1').split(':');
  if (parts.length !== 3)
    return { host: undefined, published: Number(parts[0]), target: Number(parts.at(-1)) };
  return { host: parts[0], published: Number(parts[1]), target: Number(parts[2]) };
}

/** "name:/path[:ro]" → { source, target }. */
export function mounts(s: Service): { source: string; target: string; ro: boolean }[] {
  return (s.volumes ?? []).map((v) => {
    // An interpolated source (`${VAR:-default}`) may hold colons of its own.
    const interpolated = /^\$\{[^}]*\}/.exec(v)?.[0] ?? '';
    const [rest = '', target = '', mode] = v.slice(interpolated.length).split(':');
    const source = interpolated + rest;
    return { source, target, ro: mode === 'ro' };
  });
}

export function argAfter(argv: string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
}

/** kube-sim's `--kubeconfig-for IDENTITY=FILE` pairs: identity → file. */
export function kubeconfigFiles(argv: string[]): Map<string, string> {
  const out = new Map<string, string>();
  argv.forEach((a, i) => {
    if (argv[i - 1] !== '--kubeconfig-for') return;
    const eq = a.indexOf('=');
    out.set(a.slice(0, eq), a.slice(eq + 1));
  });
  return out;
}

/** The named volume holding a path of a service's container, and the path inside that volume. */
export function volumeOf(s: Service, file: string): { source: string; rel: string; ro: boolean } | undefined {
  const m = mounts(s).find(
    (v) => compose.volumes && v.source in compose.volumes && file.startsWith(`${v.target}/`),
  );
  return m && { source: m.source, rel: file.slice(m.target.length), ro: m.ro };
}

/** Where kube-sim writes each identity's kubeconfig: identity → { volume, path in it }. */
export function kubeconfigVolumes(): Map<string, { source: string; rel: string }> {
  const sim = services['kube-sim'] as Service;
  const out = new Map<string, { source: string; rel: string }>();
  for (const [identity, file] of kubeconfigFiles(sim.command ?? [])) {
    const v = volumeOf(sim, file);
    assert.ok(v, `kube-sim writes ${identity}'s kubeconfig ${file} into a named volume`);
    assert.ok(!v.ro, `kube-sim mounts ${v.source} writable`);
    out.set(identity, { source: v.source, rel: v.rel });
  }
  return out;
}

/** A service's environment as compose gives it when no variable is set (`${VAR:-default}`: the default). */
export function unsetEnvironment(service: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(services[service]?.environment ?? {}).map(([k, v]) => [
      k,
      String(v).replace(/\$\{\w+:-([^}]*)\}/g, '$1'),
    ]),
  );
}

/** The kube-sim identity each service's KUBECONFIG must be (the dashboard reads only: viewer). */
export const IDENTITY_OF: Record<string, string> = {
  watcher: 'watcher',
  worker: 'worker',
  dashboard: 'viewer',
  crd: 'admin',
};
