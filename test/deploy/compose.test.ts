// docker-compose.yml (and the kind override), checked without a Docker engine: services, dependencies,
// published ports, and every app's environment against the app's own env spec; then kube-sim's compose
// command line is run for real (on a loopback address its certificate doesn't name, like the
// `kube-sim` service name) and the kubeconfigs it writes serve kubectl and a worker started with the
// compose environment. `docker compose config` runs too when the compose plugin is installed.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { freePort, kubectl, startRedis, waitFor, type RedisServer } from '@podset/testkit';
import { parse } from 'yaml';
import { envProblems, loadAppEnv, type PortUse, type Setting } from './env-specs.ts';
import {
  ENTRIES,
  KUBE_SIM_TARGET,
  PRODUCTION_TARGET,
  REPO,
  TARGET_OF,
  parseDockerfile,
  readRepo,
  stages,
} from './support.ts';

interface Service {
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

interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const compose = parse(readRepo('docker-compose.yml'), { merge: true }) as Compose;
const services = compose.services;
const APPS = ['watcher', 'worker', 'dashboard'] as const;
const NODE = path.join(REPO, 'node_modules/.bin/node');
/** Children exit by themselves should this test process die without cleaning up. */
const PRELOAD = ['--import', pathToFileURL(path.join(REPO, 'test/e2e/support/die-with-parent.ts')).href];

/** The app a service runs (`node apps/<app>/src/main.ts`), if any. */
function appOf(s: Service): string | undefined {
  const entry = (s.command ?? []).find((a) => Object.values(ENTRIES).includes(a));
  return Object.entries(ENTRIES).find(([, e]) => e === entry)?.[0];
}

/** The port a healthcheck asks on (fetch('http://127.0.0.1:PORT/…')). */
function healthPort(s: Service): number | undefined {
  const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec((s.healthcheck?.test ?? []).join(' '));
  return m ? Number(m[1]) : undefined;
}

/** "127.0.0.1:8082:8082" → { host: '127.0.0.1', published: 8082, target: 8082 }. */
function parsePort(p: string): { host: string | undefined; published: number; target: number } {
  const parts = p.split(':');
  if (parts.length !== 3)
    return { host: undefined, published: Number(parts[0]), target: Number(parts.at(-1)) };
  return { host: parts[0], published: Number(parts[1]), target: Number(parts[2]) };
}

/** "name:/path[:ro]" → { source, target }. */
function mounts(s: Service): { source: string; target: string; ro: boolean }[] {
  return (s.volumes ?? []).map((v) => {
    // An interpolated source (`${VAR:-default}`) may hold colons of its own.
    const interpolated = /^\$\{[^}]*\}/.exec(v)?.[0] ?? '';
    const [rest = '', target = '', mode] = v.slice(interpolated.length).split(':');
    const source = interpolated + rest;
    return { source, target, ro: mode === 'ro' };
  });
}

function argAfter(argv: string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
}

test('compose: redis with AOF and a redis-cli ping healthcheck, on a named volume', () => {
  const redis = services.redis;
  assert.ok(redis);
  assert.equal(argAfter(redis.command ?? [], '--appendonly'), 'yes');
  assert.equal(argAfter(redis.command ?? [], '--maxmemory-policy'), 'noeviction');
  assert.deepEqual(redis.healthcheck?.test, ['CMD', 'redis-cli', 'ping']);
  const data = mounts(redis).find((m) => m.target === '/data');
  assert.ok(data && compose.volumes && data.source in compose.volumes, 'AOF lives on a named volume');
});

test('compose: watcher, 3 workers and the dashboard run the production image; only 127.0.0.1 is published', () => {
  for (const app of APPS) {
    const s = services[app];
    assert.ok(s, `service ${app}`);
    assert.equal(appOf(s), app, `${app} runs node ${ENTRIES[app]}`);
    assert.ok(s.build !== undefined && s.image !== undefined, `${app} is built from ./Dockerfile`);
    assert.match(s.user ?? '', /^[1-9]\d*:[1-9]\d*$/, `${app} runs as a numeric non-root user`);
    assert.equal(s.read_only, true, `${app} has a read-only root filesystem`);
    assert.deepEqual(s.cap_drop, ['ALL']);
  }
  const images = new Set(APPS.map((n) => services[n]?.image));
  assert.equal(images.size, 1, 'one image for the operator apps');
  assert.equal(services.worker?.deploy?.replicas, 3);
  for (const [name, s] of Object.entries(services)) {
    for (const p of s.ports ?? []) {
      assert.equal(parsePort(p).host, '127.0.0.1', `${name}: ${p} is published on 127.0.0.1 only`);
    }
  }
  assert.ok((services.dashboard?.ports ?? []).length > 0, 'the dashboard is published');
});

test("compose: each app's image is built from its Dockerfile target: production for the operator, kube-sim's own for kube-sim", () => {
  const dockerfileStages = stages(parseDockerfile(readRepo('Dockerfile')));
  assert.equal(
    dockerfileStages.at(-1)?.name,
    PRODUCTION_TARGET,
    "production is the Dockerfile's default target",
  );
  const built = Object.entries(services).filter(([, s]) => s.build !== undefined);
  assert.deepEqual(built.map(([n]) => n).sort(), [...APPS, 'kube-sim'].sort());
  const imageOf = new Map<string, string | undefined>();
  for (const [name, s] of built) {
    const app = appOf(s) ?? name;
    const build = s.build as { context?: string; dockerfile?: string; target?: string };
    assert.equal(typeof build, 'object', `${name}: build is a mapping (it names a target)`);
    assert.equal(build.context, '.', `${name}: built from the repository`);
    assert.equal(build.dockerfile ?? 'Dockerfile', 'Dockerfile');
    // An explicit target: without one compose builds the last stage, which would hide a wrong order.
    assert.equal(build.target, TARGET_OF[app], `${name} is built from target ${TARGET_OF[app]}`);
    assert.ok(
      dockerfileStages.some((st) => st.name === build.target),
      `${name}: the Dockerfile has a stage ${build.target}`,
    );
    // One image name per target, so a kube-sim build never stands in for the production image.
    const prev = imageOf.get(build.target as string);
    if (imageOf.has(build.target as string)) assert.equal(s.image, prev, `${name}: one image per target`);
    imageOf.set(build.target as string, s.image);
  }
  assert.notEqual(
    imageOf.get(KUBE_SIM_TARGET),
    imageOf.get(PRODUCTION_TARGET),
    'kube-sim has an image of its own',
  );
});

test('compose: dependencies wait for health (and for the CRD) where it matters', () => {
  for (const [name, s] of Object.entries(services)) {
    for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
      const target = services[dep];
      assert.ok(target, `${name} depends on an existing service ${dep}`);
      assert.ok(
        ['service_healthy', 'service_completed_successfully', 'service_started'].includes(condition),
        `${name} → ${dep}: ${condition}`,
      );
      if (condition === 'service_healthy') assert.ok(target.healthcheck, `${dep} has a healthcheck`);
    }
  }
  for (const app of ['watcher', 'worker']) {
    const deps = services[app]?.depends_on ?? {};
    assert.equal(deps.redis?.condition, 'service_healthy', `${app} waits for redis`);
    assert.equal(deps['kube-sim']?.condition, 'service_healthy', `${app} waits for kube-sim`);
    assert.equal(deps.crd?.condition, 'service_completed_successfully', `${app} waits for the CRD`);
  }
  assert.equal(services.dashboard?.depends_on?.redis?.condition, 'service_healthy');
});

for (const app of APPS) {
  test(`compose: ${app}'s environment is what ${app} declares; its port is the probed and published one`, async () => {
    const s = services[app] as Service;
    const env = await loadAppEnv(app);
    if (typeof env === 'string') assert.fail(`${app}'s environment could not be loaded: ${env}`);
    const set = new Map<string, Setting>(
      Object.entries(s.environment ?? {}).map(([k, v]) => [
        k,
        String(v).includes('${') ? { from: v } : { literal: String(v) },
      ]),
    );
    const probe = healthPort(s);
    assert.ok(probe !== undefined, `${app} has an HTTP healthcheck`);
    const uses: PortUse[] = [
      { variable: env.probeVar, port: probe, what: 'the healthcheck' },
      ...(s.ports ?? []).map((p) => ({
        variable: env.serveVar,
        port: parsePort(p).target,
        what: `published ${p}`,
      })),
    ];
    assert.deepEqual(envProblems(env, set, uses, `docker-compose.yml ${app}`), []);
  });
}

test('compose: the apps read the kubeconfigs kube-sim writes into the shared volume', () => {
  const sim = services['kube-sim'] as Service;
  const argv = sim.command ?? [];
  assert.equal(appOf(sim), 'kube-sim');
  const dir = argAfter(argv, '--kubeconfig-dir');
  assert.ok(dir, 'kube-sim writes one kubeconfig per identity');
  assert.match(
    argAfter(argv, '--advertise-url') ?? '',
    /^https:\/\/kube-sim:6443$/,
    'reachable by service name',
  );
  assert.equal(argAfter(argv, '--host'), '0.0.0.0', 'listens beyond its own loopback');
  const simVolume = mounts(sim).find((m) => dir.startsWith(`${m.target}/`) || dir === m.target);
  assert.ok(simVolume && compose.volumes && simVolume.source in compose.volumes, 'into a named volume');
  for (const name of ['watcher', 'worker', 'crd']) {
    const s = services[name] as Service;
    const kubeconfig = s.environment?.KUBECONFIG ?? '';
    assert.equal(path.posix.dirname(kubeconfig), dir, `${name}: KUBECONFIG is one of kube-sim's kubeconfigs`);
    const m = mounts(s).find((v) => v.source === simVolume.source);
    assert.ok(
      m && m.target === simVolume.target,
      `${name} mounts the kubeconfig volume where kube-sim writes it`,
    );
    assert.ok(m.ro, `${name} mounts it read-only`);
  }
  assert.equal(path.posix.basename(services.watcher?.environment?.KUBECONFIG ?? ''), 'watcher');
  assert.equal(path.posix.basename(services.worker?.environment?.KUBECONFIG ?? ''), 'worker');
});

test('docker-compose.kind.yml: kube-sim and its CRD job are off, the apps use a mounted kubeconfig', () => {
  const kind = parse(readRepo('docker-compose.kind.yml'), { merge: true, logLevel: 'error' }) as Compose;
  for (const name of ['kube-sim']) {
    assert.ok(
      (kind.services[name]?.profiles ?? []).length > 0,
      `${name} is moved to a profile (not started)`,
    );
  }
  for (const name of ['watcher', 'worker', 'crd']) {
    const s = kind.services[name] as Service;
    assert.ok(s, `${name} is overridden`);
    const kubeconfig = s.environment?.KUBECONFIG ?? '';
    const m = mounts(s).find((v) => v.target === kubeconfig);
    assert.ok(m && m.ro, `${name}: KUBECONFIG ${kubeconfig} is a read-only mounted file`);
    assert.ok(!Object.keys(s.depends_on ?? {}).includes('kube-sim'), `${name} no longer waits for kube-sim`);
  }
  for (const [name, s] of Object.entries(kind.services)) {
    assert.ok(
      s.build === undefined && s.image === undefined,
      `${name}: the image and its target stay compose's`,
    );
  }
});

describe("kube-sim started with compose's command line", () => {
  let redis: RedisServer;
  let dir: string;
  let sim: ChildProcess | undefined;
  let worker: ChildProcess | undefined;
  let port: number;
  const HOST = '127.0.0.2'; // loopback, but not a name in kube-sim's certificate (like `kube-sim`)

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'podset-deploy-compose-'));
    redis = await startRedis();
    port = await freePort();
  });
  after(async () => {
    for (const p of [worker, sim]) {
      if (p && p.exitCode === null && p.signalCode === null) {
        const exited = new Promise((r) => p.once('exit', r));
        p.kill('SIGTERM');
        const timer = setTimeout(() => p.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
    }
    await redis?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The compose argv with the host, port, advertised URL and paths of this machine. */
  function localArgv(argv: string[]): string[] {
    const volume = mounts(services['kube-sim'] as Service)[0]?.target ?? '';
    return argv.map((a, i) => {
      const prev = argv[i - 1];
      if (prev === '--host') return HOST;
      if (prev === '--port') return String(port);
      if (prev === '--advertise-url') return `https://${HOST}:${port}`;
      return a.startsWith(volume) ? path.join(dir, a.slice(volume.length)) : a;
    });
  }
  const localPath = (p: string) =>
    path.join(dir, p.slice((mounts(services['kube-sim'] as Service)[0]?.target ?? '').length));

  test('it starts, and the CRD job and the apps can use the kubeconfigs it wrote', async () => {
    const argv = localArgv(services['kube-sim']?.command ?? []);
    assert.equal(argv[0], 'node');
    sim = spawn(NODE, [...PRELOAD, ...argv.slice(1)], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    sim.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    sim.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    await waitFor(
      'kube-sim to listen or exit',
      () => /listening/.test(out) || sim?.exitCode !== null,
      30_000,
    );
    assert.match(out, /listening/, `kube-sim accepted compose's flags:\n${out}`);

    // The CRD job: kubectl with the admin kubeconfig (server https://127.0.0.2:PORT, TLS verified by name).
    const crd = services.crd as Service;
    const crdArgs = (crd.command ?? []).map((a) =>
      a.startsWith('/crds/') ? path.join(REPO, 'crds', a.slice(6)) : a,
    );
    await kubectl(crdArgs, {
      kubeconfig: localPath(crd.environment?.KUBECONFIG ?? ''),
      cacheDir: path.join(dir, 'cache'),
    });

    // The worker, with compose's environment (local paths, a test Redis, a free HTTP port).
    const env = { ...(services.worker?.environment ?? {}) };
    const httpPort = await freePort();
    worker = spawn(NODE, [...PRELOAD, 'apps/worker/src/main.ts'], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        ...env,
        KUBECONFIG: localPath(env.KUBECONFIG ?? ''),
        REDIS_URL: redis.url,
        HTTP_PORT: String(httpPort),
      },
    });
    let wout = '';
    worker.stdout?.on('data', (c: Buffer) => (wout += c.toString()));
    worker.stderr?.on('data', (c: Buffer) => (wout += c.toString()));
    let ready = false;
    await waitFor(
      'the worker to become ready or exit',
      async () => {
        if (worker?.exitCode !== null) return true;
        try {
          ready = (await fetch(`http://127.0.0.1:${httpPort}/readyz`)).ok;
        } catch {
          ready = false;
        }
        return ready;
      },
      { timeoutMs: 60_000, describe: () => wout.slice(-3000) },
    );
    assert.ok(ready, `the worker became ready with compose's environment; its output:\n${wout.slice(-3000)}`);
    // Its requests reached kube-sim as the `worker` identity over TLS.
    await kubectl(['get', 'podsets', '-A'], {
      kubeconfig: localPath(env.KUBECONFIG ?? ''),
      cacheDir: path.join(dir, 'cache'),
    });
  });
});

test('docker compose config accepts both files', (t) => {
  const probe = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    t.skip(
      'the docker compose plugin is not installed here (only the docker client is); the checks above stand in',
    );
    return;
  }
  const env = { ...process.env, DASHBOARD_TOKEN: 'test-token' };
  for (const files of [['docker-compose.yml'], ['docker-compose.yml', 'docker-compose.kind.yml']]) {
    const args = ['compose', ...files.flatMap((f) => ['-f', f]), 'config', '-q'];
    const res = spawnSync('docker', args, { cwd: REPO, encoding: 'utf8', env });
    assert.equal(res.status, 0, `docker ${args.join(' ')}: ${res.stderr}`);
  }
});
