// docker-compose.yml (and the kind override), checked without a Docker engine: services, dependencies,
// published ports, and every app's environment against the app's own env spec; then kube-sim's compose
// command line is run for real (on a loopback address its certificate doesn't name, like the
// `kube-sim` service name) and the kubeconfigs it writes serve kubectl and a worker started with the
// compose environment. The compose this machine has (`docker compose` v2, else `docker-compose` 1.29) checks
// the files with `config` too. test/compose/stack.compose-test.ts runs the stack itself.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { freePort, kubectl, startRedis, waitFor, type RedisServer } from '@podset/testkit';
import { parse } from 'yaml';
import { redisAclFileText } from '../../libs/runtime/src/redis-acl-file.ts';
import { SECRET_VARS } from '../../scripts/compose-secrets.ts';
import { findCompose } from '../compose/cli.ts';
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

interface Volume {
  driver_opts?: { type?: string; device?: string; o?: string };
}

interface Compose {
  name?: string;
  services: Record<string, Service>;
  volumes?: Record<string, Volume | null>;
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

/** "127.0.0.1:8082:8082" → { host: '127.0.0.1', published: 8082, target: 8082 } (`${VAR:-8082}`: its default). */
function parsePort(p: string): { host: string | undefined; published: number; target: number } {
  const parts = p.replace(/\$\{\w+:-([^}]*)\}/g, '$1').split(':');
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

/** kube-sim's `--kubeconfig-for IDENTITY=FILE` pairs: identity → file. */
function kubeconfigFiles(argv: string[]): Map<string, string> {
  const out = new Map<string, string>();
  argv.forEach((a, i) => {
    if (argv[i - 1] !== '--kubeconfig-for') return;
    const eq = a.indexOf('=');
    out.set(a.slice(0, eq), a.slice(eq + 1));
  });
  return out;
}

/** The named volume holding a path of a service's container, and the path inside that volume. */
function volumeOf(s: Service, file: string): { source: string; rel: string; ro: boolean } | undefined {
  const m = mounts(s).find(
    (v) => compose.volumes && v.source in compose.volumes && file.startsWith(`${v.target}/`),
  );
  return m && { source: m.source, rel: file.slice(m.target.length), ro: m.ro };
}

/** Where kube-sim writes each identity's kubeconfig: identity → { volume, path in it }. */
function kubeconfigVolumes(): Map<string, { source: string; rel: string }> {
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
function unsetEnvironment(service: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(services[service]?.environment ?? {}).map(([k, v]) => [
      k,
      String(v).replace(/\$\{\w+:-([^}]*)\}/g, '$1'),
    ]),
  );
}

/** The kube-sim identity each service's KUBECONFIG must be (the dashboard reads only: viewer). */
const IDENTITY_OF: Record<string, string> = {
  watcher: 'watcher',
  worker: 'worker',
  dashboard: 'viewer',
  crd: 'admin',
};

test('compose: redis with AOF and a redis-cli ping healthcheck, on a named volume', () => {
  const redis = services.redis;
  assert.ok(redis);
  assert.equal(argAfter(redis.command ?? [], '--appendonly'), 'yes');
  assert.equal(argAfter(redis.command ?? [], '--maxmemory-policy'), 'noeviction');
  // As the probes' user (PING only): the default user is off (test/deploy/redis-users.test.ts).
  assert.deepEqual(redis.healthcheck?.test, ['CMD', 'redis-cli', '-e', '--user', 'podset-health', 'ping']);
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
  assert.deepEqual(built.map(([n]) => n).sort(), [...APPS, 'kube-sim', 'redis-acl', 'redis-scripts'].sort());
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

test("compose: each app mounts one volume with only its own identity's kubeconfig, which kube-sim writes", () => {
  const sim = services['kube-sim'] as Service;
  const argv = sim.command ?? [];
  assert.equal(appOf(sim), 'kube-sim');
  assert.match(
    argAfter(argv, '--advertise-url') ?? '',
    /^https:\/\/kube-sim:6443$/,
    'reachable by service name',
  );
  assert.equal(argAfter(argv, '--host'), '0.0.0.0', 'listens beyond its own loopback');
  const written = kubeconfigVolumes();
  const sources = [...written.values()].map((v) => v.source);
  assert.equal(new Set(sources).size, sources.length, 'a volume of its own for each identity');
  for (const [name, identity] of Object.entries(IDENTITY_OF)) {
    const s = services[name] as Service;
    const kubeconfig = s.environment?.KUBECONFIG ?? '';
    const own = written.get(identity);
    assert.ok(own, `kube-sim writes the ${identity} kubeconfig ${name} uses`);
    const v = volumeOf(s, kubeconfig);
    assert.deepEqual(
      v && { source: v.source, rel: v.rel },
      own,
      `${name}: KUBECONFIG ${kubeconfig} is the ${identity} kubeconfig kube-sim writes`,
    );
    assert.ok(v?.ro, `${name} mounts it read-only`);
    const others = mounts(s).filter((m) => sources.includes(m.source) && m.source !== own.source);
    assert.deepEqual(others, [], `${name} mounts no other identity's kubeconfig`);
  }
  const admin = written.get('admin')?.source;
  for (const [name, s] of Object.entries(services)) {
    if (name === 'kube-sim' || name === 'crd') continue;
    assert.ok(!mounts(s).some((m) => m.source === admin), `${name} cannot read the admin kubeconfig`);
  }
  // The files are 0600 (kube-sim writes them so) in volumes owned by the uid every reader runs as.
  const uids = new Set(
    ['kube-sim', ...Object.keys(IDENTITY_OF)].map((n) => services[n]?.user?.split(':')[0]),
  );
  assert.equal(uids.size, 1, 'kube-sim and every reader of a kubeconfig run as one numeric uid');
  const [uid] = [...uids];
  for (const source of sources) {
    const opts = compose.volumes?.[source]?.driver_opts;
    assert.equal(opts?.type, 'tmpfs', `${source} is kept in memory (tmpfs)`);
    assert.match(opts?.o ?? '', new RegExp(`(^|,)uid=${uid}(,|$)`), `${source} is owned by uid ${uid}`);
    assert.match(opts?.o ?? '', /(^|,)mode=0?700(,|$)/, `${source} is open to its owner only`);
  }
});

test('compose: kube-sim keeps its identity and objects in a volume of its own (--data-dir), on disk', () => {
  const sim = services['kube-sim'] as Service;
  const dataDir = argAfter(sim.command ?? [], '--data-dir');
  assert.ok(dataDir, 'kube-sim is started with --data-dir');
  const m = mounts(sim).find((v) => v.target === dataDir || dataDir.startsWith(`${v.target}/`));
  assert.ok(m && compose.volumes && m.source in compose.volumes, `${dataDir} is on a named volume`);
  assert.ok(!m.ro, 'kube-sim writes it');
  assert.equal(compose.volumes?.[m.source]?.driver_opts, undefined, `${m.source} is on disk, not tmpfs`);
  for (const [name, s] of Object.entries(services)) {
    if (name !== 'kube-sim')
      assert.ok(!mounts(s).some((v) => v.source === m.source), `${name} cannot read it`);
  }
});

test('compose: one file for docker-compose 1.29 and docker compose v2: no top-level name, the project name in .env', () => {
  assert.equal(compose.name, undefined, 'docker-compose 1.29 refuses a top-level name');
  const dotenv = readRepo('.env')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  const vars = new Map(dotenv.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  assert.match(vars.get('COMPOSE_PROJECT_NAME') ?? '', /^[a-z0-9][a-z0-9_-]*$/);
  // .env is committed: settings of compose itself only, never a secret.
  assert.deepEqual(
    [...vars.keys()].filter((k) => !k.startsWith('COMPOSE_')),
    [],
    '.env sets nothing but compose settings',
  );
  const ignored = readRepo('.dockerignore').split('\n');
  assert.ok(ignored.includes('.env'), '.env stays out of the build context');
  for (const file of ['.gitignore', '.dockerignore']) {
    assert.ok(
      readRepo(file).split('\n').includes('.kube-sim.kubeconfig'),
      `${file} keeps out the admin kubeconfig the docs copy into the repository root`,
    );
  }
});

test('compose: the documented commands exist in both compose versions and copy the admin kubeconfig kube-sim writes', () => {
  const admin = kubeconfigFiles(services['kube-sim']?.command ?? []).get('admin');
  assert.ok(admin, 'kube-sim writes an admin kubeconfig');
  for (const file of ['docs/deployment.md', 'docker-compose.yml']) {
    const text = readRepo(file);
    // `compose cp` is v2 only; `exec -T … cat` works in both.
    assert.doesNotMatch(text, /compose cp\b/, `${file}: no \`compose cp\``);
    assert.ok(
      text.includes(`(umask 077; docker compose exec -T kube-sim cat ${admin} > .kube-sim.kubeconfig)`),
      `${file} shows how to copy ${admin} out of kube-sim, owner-readable`,
    );
  }
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
    // Redis with the users compose's redis-acl service makes (its environment, variables unset): the
    // worker below logs in as its own. `default` stays on here, for the harness's own readiness check.
    const aclEnv = unsetEnvironment('redis-acl');
    const aclFile = path.join(dir, 'users.acl');
    writeFileSync(
      aclFile,
      redisAclFileText(aclEnv).replace(/^user default .*$/m, 'user default on nopass ~* &* +@all'),
    );
    redis = await startRedis({ args: ['--aclfile', aclFile] });
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

  const simMounts = () => mounts(services['kube-sim'] as Service);
  /** A path of kube-sim's container, on this machine: under the test's dir, its mount point created. */
  function simPath(p: string): string {
    const m = simMounts().find((v) => p.startsWith(`${v.target}/`));
    if (m === undefined) return p;
    mkdirSync(path.join(dir, m.target), { recursive: true });
    return path.join(dir, p);
  }
  /** The compose argv with the host, port, advertised URL and paths of this machine. */
  function localArgv(argv: string[]): string[] {
    return argv.map((a, i) => {
      const prev = argv[i - 1];
      if (prev === '--host') return HOST;
      if (prev === '--port') return String(port);
      if (prev === '--advertise-url') return `https://${HOST}:${port}`;
      if (prev === '--kubeconfig-for')
        return `${a.slice(0, a.indexOf('='))}=${simPath(a.slice(a.indexOf('=') + 1))}`;
      return simPath(a);
    });
  }
  /** A service's KUBECONFIG, on this machine: where kube-sim wrote it into the volume they share. */
  function localKubeconfig(service: string): string {
    const s = services[service] as Service;
    const v = volumeOf(s, s.environment?.KUBECONFIG ?? '');
    const simMount = simMounts().find((m) => m.source === v?.source);
    assert.ok(v && simMount, `${service}'s kubeconfig is on a volume kube-sim mounts`);
    return path.join(dir, simMount.target, v.rel);
  }

  /** Starts kube-sim with compose's command line (local paths) until it listens. */
  async function startSim(): Promise<ChildProcess> {
    const argv = localArgv(services['kube-sim']?.command ?? []);
    assert.equal(argv[0], 'node');
    const p = spawn(NODE, [...PRELOAD, ...argv.slice(1)], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    await waitFor('kube-sim to listen or exit', () => /listening/.test(out) || p.exitCode !== null, 30_000);
    assert.match(out, /listening/, `kube-sim accepted compose's flags:\n${out}`);
    return p;
  }

  test('it starts, and the CRD job and the apps can use the kubeconfigs it wrote', async () => {
    sim = await startSim();

    // The CRD job: kubectl with the admin kubeconfig (server https://127.0.0.2:PORT, TLS verified by name).
    const crd = services.crd as Service;
    const crdArgs = (crd.command ?? []).map((a) =>
      a.startsWith('/crds/') ? path.join(REPO, 'crds', a.slice(6)) : a,
    );
    await kubectl(crdArgs, {
      kubeconfig: localKubeconfig('crd'),
      cacheDir: path.join(dir, 'cache'),
    });

    // The worker, with compose's environment (local paths, a test Redis, a free HTTP port).
    const env = unsetEnvironment('worker');
    const httpPort = await freePort();
    worker = spawn(NODE, [...PRELOAD, 'apps/worker/src/main.ts'], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        ...env,
        KUBECONFIG: localKubeconfig('worker'),
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
      kubeconfig: localKubeconfig('worker'),
      cacheDir: path.join(dir, 'cache'),
    });
  });

  test('restarted as compose restarts it, it keeps its identity and the CRD: nothing to apply again', async () => {
    assert.ok(sim, 'kube-sim ran');
    const before = new Map(
      Object.keys(IDENTITY_OF).map((n) => [n, readFileSync(localKubeconfig(n), 'utf8')]),
    );
    const exited = new Promise((r) => sim?.once('exit', r));
    sim.kill('SIGTERM');
    await exited;
    sim = await startSim();
    for (const [name, text] of before) {
      // The same CA and token: the kubeconfig an app holds, or a user copied, stays valid.
      assert.equal(readFileSync(localKubeconfig(name), 'utf8'), text, `${name}'s kubeconfig is unchanged`);
    }
    const crd = await kubectl(['get', 'crd', 'podsets.podset.io', '-o', 'name'], {
      kubeconfig: localKubeconfig('crd'),
      cacheDir: path.join(dir, 'cache'),
    });
    assert.equal(crd.stdout.trim(), 'customresourcedefinition.apiextensions.k8s.io/podsets.podset.io');
  });
});

test('the compose of this machine accepts docker-compose.yml (and, from v2.24, the kind override)', (t) => {
  const cli = findCompose();
  if (cli === undefined) {
    // CI installs docker-compose (.ci/run), so there this never skips.
    t.skip('neither docker compose (v2) nor docker-compose (1.29) is installed; the checks above stand in');
    return;
  }
  // The kind override requires the secrets `npm run compose:secrets` makes.
  const secrets = Object.fromEntries(Object.entries(SECRET_VARS).map(([k, make]) => [k, make()]));
  const env = { ...process.env, ...secrets, DASHBOARD_TOKEN: 'test-token-0123456789' };
  const [major = 0, minor = 0] = cli.version.split('.').map(Number);
  // The kind override needs !override/!reset (compose 2.24 and later).
  const kind = major > 2 || (major === 2 && minor >= 24);
  for (const files of [
    ['docker-compose.yml'],
    ...(kind ? [['docker-compose.yml', 'docker-compose.kind.yml']] : []),
  ]) {
    const args: string[] = [...cli.argv.slice(1), ...files.flatMap((f) => ['-f', f]), 'config', '-q'];
    const res: SpawnSyncReturns<string> = spawnSync(cli.argv[0] ?? '', args, {
      cwd: REPO,
      encoding: 'utf8',
      env,
    });
    assert.equal(res.status, 0, `${cli.argv[0]} ${args.join(' ')} (${cli.version}): ${res.stderr}`);
  }
});
