// kube-sim in docker-compose.yml: each app mounts a volume with only its own identity's kubeconfig, which
// kube-sim writes, and kube-sim keeps its data in a volume of its own; then kube-sim's compose command line is
// run for real (on a loopback address its certificate doesn't name, like the `kube-sim` service name) and
// the kubeconfigs it writes serve kubectl and a worker started with the compose environment, also after a
// restart. No Docker engine needed.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { freePort, kubectl, startRedis, waitFor, type RedisServer } from '@podset/testkit';
import { redisAclFileText } from '../../apps/redis-init/src/redis-acl-file.ts';
import {
  IDENTITY_OF,
  appOf,
  argAfter,
  compose,
  kubeconfigVolumes,
  mounts,
  services,
  unsetEnvironment,
  volumeOf,
  type Service,
} from './compose-support.ts';
import { REPO } from './support.ts';

const NODE = path.join(REPO, 'node_modules/.bin/node');
/** Children exit by themselves should this test process die without cleaning up. */
const PRELOAD = ['--import', pathToFileURL(path.join(REPO, 'test/e2e/support/die-with-parent.ts')).href];

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
