// One Redis user per app in every deployment form: k8s/ and each overlay, the chart with each kind of
// values, docker-compose.yml. Each app logs in as its own user (REDIS_USERNAME) with its own user's
// password and no other app's (nor the Redis probes'); the Redis pod's init container gets all four and
// makes the ACL file. Then that file, made as the pod makes it (the init container's own command and
// environment, the Secrets' passwords as secret-init makes them), loaded by a real redis-server started
// with the Redis container's own command: the `default` user is off, the dashboard's user is refused a
// write, the worker's a projected PodSet, the watcher writes the projection, the probe's command passes,
// the script loader (as the pod and compose run it) caches the operator's scripts with its user alone.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { parse } from 'yaml';
import { freePort, Proc, waitFor } from '@podset/testkit';
import { newPassword } from '../../libs/kube/src/redis-secret.ts';
import { operatorScripts } from '../../libs/runtime/src/redis-scripts.ts';
import { parseK8sYaml } from '../../scripts/k8s-yaml.ts';
import { CHART_DIR } from '../../scripts/gen-chart.ts';
import {
  allKustomizations,
  find,
  render,
  workloads,
  type Container,
  type K8sObject,
  type Workload,
} from './manifests.ts';
import { REPO, readRepo } from './support.ts';
import { needsHelm } from './helm-support.ts';

const APPS = ['watcher', 'worker', 'dashboard'] as const;
type App = (typeof APPS)[number];
/** The Secrets secret-init makes, one per Redis user (and the Redis pod's probes, loader, operations). */
const USER_SECRETS = ['watcher', 'worker', 'dashboard', 'health', 'scripts', 'ops'].map(
  (u) => `podset-redis-${u}`,
);
const exec = promisify(execFile);
const NODE = path.join(REPO, 'node_modules/.bin/node');

interface Volume {
  name: string;
  secret?: { secretName: string };
  projected?: { sources: { secret?: { name: string } }[] };
}

/** Every Secret these containers can read (env, envFrom), and the pod's Secret volumes. */
function secretsOf(containers: Container[], volumes: Volume[] = []): Set<string> {
  const out = new Set<string>();
  for (const c of containers) {
    for (const e of c.env ?? []) {
      const ref = (e.valueFrom as { secretKeyRef?: { name: string; key: string } } | undefined)?.secretKeyRef;
      // The single password of before (podset-redis, key password) counts as every user's.
      if (ref)
        out.add(ref.name === 'podset-redis' && ref.key === 'password' ? 'podset-redis#password' : ref.name);
    }
    for (const f of c.envFrom ?? []) if (f.secretRef) out.add(f.secretRef.name);
  }
  for (const v of volumes) {
    if (v.secret) out.add(v.secret.secretName);
    for (const s of v.projected?.sources ?? []) if (s.secret) out.add(s.secret.name);
  }
  return out;
}

/** Every Secret a pod can read, in any of its containers. */
function podSecrets(w: Workload): Set<string> {
  const pod = w.spec.template.spec as Workload['spec']['template']['spec'] & { volumes?: Volume[] };
  return secretsOf([...pod.containers, ...(pod.initContainers ?? [])], pod.volumes);
}

const componentOf = (w: Workload) => w.metadata.labels?.['app.kubernetes.io/component'];
const envOf = (c: Container | undefined, name: string) => c?.env?.find((e) => e.name === name);

/** The checks of one rendering (kustomize or helm): `aclUsers` false is the single-password fallback. */
function checkUsers(what: string, objects: K8sObject[], opts: { aclUsers?: boolean } = {}): void {
  const apps = workloads(objects).filter((w) => APPS.includes(componentOf(w) as App));
  assert.equal(apps.length, 3, `${what}: three apps`);
  for (const w of apps) {
    const app = componentOf(w) as App;
    const c = w.spec.template.spec.containers[0];
    const username = envOf(c, 'REDIS_USERNAME');
    if (opts.aclUsers === false) assert.equal(username, undefined, `${what} ${app}: no username`);
    else assert.deepEqual(username, { name: 'REDIS_USERNAME', value: `podset-${app}` }, `${what} ${app}`);
    assert.deepEqual(
      envOf(c, 'REDIS_PASSWORD')?.valueFrom,
      { secretKeyRef: { name: `podset-redis-${app}`, key: 'password' } },
      `${what} ${app}: its own user's password`,
    );
    const others = [...podSecrets(w)].filter(
      (s) => (USER_SECRETS.includes(s) && s !== `podset-redis-${app}`) || s === 'podset-redis#password',
    );
    assert.deepEqual(others, [], `${what} ${app}: no other user's password`);
  }
  const redis = find<Workload>(objects, 'StatefulSet', 'podset-redis');
  if (redis === undefined) {
    checkExternalLoader(what, objects, opts);
    return;
  }
  const init = redis.spec.template.spec.initContainers?.find((c) => c.name === 'redis-acl');
  assert.ok(init, `${what}: the Redis pod makes its ACL file`);
  assert.deepEqual(
    USER_SECRETS.map((s) => init.env?.some((e) => JSON.stringify(e.valueFrom ?? {}).includes(`"${s}"`))),
    [true, true, true, true, true, true],
    `${what}: the init container gets the six passwords`,
  );
  const server = redis.spec.template.spec.containers.find((c) => c.name === 'redis');
  assert.ok(server, `${what}: the redis container`);
  assert.deepEqual(
    [...secretsOf([server])],
    ['podset-redis-health'],
    `${what}: redis-server's container has the probes' password only`,
  );
  assert.ok(server?.command?.includes('--aclfile'), `${what}: redis-server loads the ACL file`);
  const loader = redis.spec.template.spec.containers.find((c) => c.name === 'redis-scripts');
  assert.ok(loader, `${what}: the script loader beside Redis`);
  assert.deepEqual(
    [...secretsOf([loader])],
    ['podset-redis-scripts', 'podset-redis-ops'],
    `${what}: the loader's password and its watchdog's (the operations user's) only`,
  );
  assert.equal(envOf(loader, 'REDIS_USERNAME')?.value, 'podset-scripts', `${what}: the loader's user`);
  assert.equal(envOf(loader, 'REDIS_OPS_USERNAME')?.value, 'podset-ops', `${what}: the watchdog's user`);
  const dashboard = apps.find((w) => componentOf(w) === 'dashboard')?.spec.template.spec.containers[0];
  assert.equal(
    envOf(init, 'DASHBOARD_READ_ONLY')?.value,
    envOf(dashboard, 'DASHBOARD_READ_ONLY')?.value,
    `${what}: the dashboard's user has the rights of the dashboard's mode`,
  );
}

/**
 * An external Redis: no Redis pod here, so the script loader is a Deployment of its own, pointed at the
 * apps' Redis (the URL Secret they read), as the loader's user with its Secret, and with the operations
 * user's Secret (optional) for its BUSY watchdog; no other password, no API token.
 */
function checkExternalLoader(what: string, objects: K8sObject[], opts: { aclUsers?: boolean }): void {
  const loader = find<Workload>(objects, 'Deployment', 'podset-redis-scripts');
  assert.ok(loader, `${what}: the script loader for the external Redis`);
  assert.equal(loader.spec.replicas, 1, `${what}: one loader`);
  const pod = loader.spec.template.spec as Workload['spec']['template']['spec'] & {
    automountServiceAccountToken?: boolean;
  };
  assert.equal(pod.automountServiceAccountToken, false, `${what}: the loader gets no API token`);
  assert.equal(pod.containers.length, 1);
  const c = pod.containers[0];
  assert.deepEqual(
    [...(c?.command ?? []), ...(c?.args ?? [])],
    ['node', 'libs/runtime/src/redis-scripts-main.ts'],
  );
  const watcher = find<Workload>(objects, 'Deployment', 'podset-watcher')?.spec.template.spec.containers[0];
  const url = envOf(c, 'REDIS_URL')?.valueFrom;
  assert.deepEqual(url, { secretKeyRef: { name: 'podset-redis', key: 'url' } }, `${what}: the external URL`);
  assert.deepEqual(url, envOf(watcher, 'REDIS_URL')?.valueFrom, `${what}: the Redis the apps use`);
  assert.deepEqual(
    envOf(c, 'REDIS_PASSWORD')?.valueFrom,
    { secretKeyRef: { name: 'podset-redis-scripts', key: 'password' } },
    `${what}: the loader's user's password`,
  );
  assert.deepEqual(
    envOf(c, 'REDIS_OPS_PASSWORD')?.valueFrom,
    { secretKeyRef: { name: 'podset-redis-ops', key: 'password', optional: true } },
    `${what}: the operations user's password for the watchdog, when its Secret exists`,
  );
  if (opts.aclUsers === false) {
    assert.equal(envOf(c, 'REDIS_USERNAME'), undefined, `${what}: no loader username without ACLs`);
    assert.equal(envOf(c, 'REDIS_OPS_USERNAME'), undefined, `${what}: no watchdog username without ACLs`);
  } else {
    assert.equal(envOf(c, 'REDIS_USERNAME')?.value, 'podset-scripts', `${what}: the loader's user`);
    assert.equal(envOf(c, 'REDIS_OPS_USERNAME')?.value, 'podset-ops', `${what}: the watchdog's user`);
  }
  const others = [...podSecrets(loader)].filter(
    (s) => USER_SECRETS.includes(s) && s !== 'podset-redis-scripts' && s !== 'podset-redis-ops',
  );
  assert.deepEqual(others, [], `${what}: no app's password in the loader`);
  assert.equal(c?.readinessProbe?.httpGet?.path, '/readyz', `${what}: ready once every script is cached`);
  assert.equal(c?.livenessProbe?.httpGet?.path, '/healthz');
  assert.ok(c?.resources?.limits?.memory, `${what}: a memory limit`);
}

const kustomized = new Map(allKustomizations().map((dir) => [dir, render(dir)]));

for (const [dir, objects] of kustomized) {
  test(`${dir}: each app has its own Redis user and password, the Redis pod the ACL file`, () => {
    checkUsers(dir, objects);
  });
}

test('k8s/overlays/namespaced: the worker gets the watched namespaces and its own namespace too', () => {
  const objects = kustomized.get('k8s/overlays/namespaced') ?? [];
  const worker = find<Workload>(objects, 'Deployment', 'podset-worker')?.spec.template.spec.containers[0];
  const watcher = find<Workload>(objects, 'Deployment', 'podset-watcher')?.spec.template.spec.containers[0];
  assert.equal(envOf(worker, 'WATCH_NAMESPACES')?.value, envOf(watcher, 'WATCH_NAMESPACES')?.value);
  assert.equal(envOf(worker, 'WATCH_NAMESPACES')?.value, 'team-a');
  assert.deepEqual(envOf(worker, 'POD_NAMESPACE')?.valueFrom, {
    fieldRef: { fieldPath: 'metadata.namespace' },
  });
});

const CHART_VALUES: [string, string[], { aclUsers?: boolean }][] = [
  ['default values', [], {}],
  ['namespaced', ['namespaced=true', 'watchNamespaces={team-a,team-b}'], {}],
  ['externalRedis', ['externalRedis.enabled=true'], {}],
  [
    'externalRedis, aclUsers=false',
    ['externalRedis.enabled=true', 'externalRedis.aclUsers=false'],
    { aclUsers: false },
  ],
];
for (const [what, values, opts] of CHART_VALUES) {
  test(`chart (${what}): each app has its own Redis user and password`, needsHelm, async () => {
    const set = values.flatMap((v) => ['--set', v]);
    const r = await exec('helm', ['template', 'podset-operator', CHART_DIR, '-n', 'podset-system', ...set], {
      maxBuffer: 64 << 20,
    });
    const objects = parseK8sYaml<K8sObject>(r.stdout);
    checkUsers(`chart ${what}`, objects, opts);
    if (what === 'namespaced') {
      const worker = find<Workload>(objects, 'Deployment', 'podset-worker')?.spec.template.spec.containers[0];
      assert.equal(envOf(worker, 'WATCH_NAMESPACES')?.value, 'team-a,team-b');
    }
  });
}

interface ComposeService {
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  healthcheck?: { test: string[] };
}
const compose = parse(readRepo('docker-compose.yml'), { merge: true }) as {
  services: Record<string, ComposeService>;
};

test('compose: each app has its own Redis user and password, which the ACL file is made with', () => {
  const acl = compose.services['redis-acl']?.environment ?? {};
  for (const app of APPS) {
    const env = compose.services[app]?.environment ?? {};
    assert.equal(env.REDIS_USERNAME, `podset-${app}`, app);
    const password = env.REDIS_PASSWORD ?? '';
    assert.equal(acl[`REDIS_${app.toUpperCase()}_PASSWORD`], password, `${app}: the ACL file's password`);
    const others = Object.entries(acl).filter(
      ([k, v]) => k.endsWith('_PASSWORD') && k !== `REDIS_${app.toUpperCase()}_PASSWORD` && v === password,
    );
    assert.deepEqual(others, [], `${app}: not another user's password`);
  }
  assert.equal(acl.DASHBOARD_READ_ONLY, compose.services.dashboard?.environment?.DASHBOARD_READ_ONLY);
  const redis = compose.services.redis;
  assert.equal(
    redis?.environment?.REDISCLI_AUTH,
    acl.REDIS_HEALTH_PASSWORD,
    'the healthcheck is the probe user',
  );
  assert.deepEqual(redis?.healthcheck?.test, ['CMD', 'redis-cli', '-e', '--user', 'podset-health', 'ping']);
  const loader = compose.services['redis-scripts']?.environment ?? {};
  assert.equal(loader.REDIS_USERNAME, 'podset-scripts');
  assert.equal(loader.REDIS_PASSWORD, acl.REDIS_SCRIPTS_PASSWORD, "the loader's user's password");
  assert.equal(loader.REDIS_OPS_USERNAME, 'podset-ops', "the watchdog's user");
  assert.equal(loader.REDIS_OPS_PASSWORD, acl.REDIS_OPS_PASSWORD, "the watchdog's user's password");
});

/** `${VAR:-default}` → default: what compose gives when the variable is unset. */
const composeDefault = (v: string) => v.replace(/\$\{\w+:-([^}]*)\}/g, '$1');

/** The k8s/ Redis pod's parts: its init container's argv and env, redis-server's argv and probe. */
function k8sRedisPod(passwords: Map<string, string>) {
  const objects = kustomized.get('k8s') ?? [];
  const redis = find<Workload>(objects, 'StatefulSet', 'podset-redis');
  const init = redis?.spec.template.spec.initContainers?.find((c) => c.name === 'redis-acl');
  const server = redis?.spec.template.spec.containers.find((c) => c.name === 'redis');
  assert.ok(init && server);
  const env: Record<string, string> = {};
  for (const from of init.envFrom ?? []) {
    const cm = find<K8sObject & { data: Record<string, string> }>(
      objects,
      'ConfigMap',
      from.configMapRef?.name ?? '',
    );
    Object.assign(env, cm?.data);
  }
  for (const e of init.env ?? []) {
    const ref = (e.valueFrom as { secretKeyRef?: { name: string; key: string } } | undefined)?.secretKeyRef;
    if (e.value !== undefined) env[e.name] = e.value;
    else if (ref) env[e.name] = passwords.get(ref.name) ?? assert.fail(`no Secret ${ref.name}`);
  }
  const probeAuth = envOf(server, 'REDISCLI_AUTH')?.valueFrom as { secretKeyRef: { name: string } };
  const loader = redis?.spec.template.spec.containers.find((c) => c.name === 'redis-scripts');
  assert.ok(loader);
  const loaderEnv: Record<string, string> = {};
  for (const e of loader.env ?? []) {
    const ref = (e.valueFrom as { secretKeyRef?: { name: string } } | undefined)?.secretKeyRef;
    loaderEnv[e.name] = e.value ?? passwords.get(ref?.name ?? '') ?? assert.fail(`no Secret ${ref?.name}`);
  }
  return {
    loader: { argv: [...(loader.command ?? []), ...(loader.args ?? [])], env: loaderEnv },
    init: [...(init.command ?? []), ...(init.args ?? [])],
    env,
    server: [...(server.command ?? []), ...(server.args ?? [])],
    probe: server.readinessProbe?.exec?.command ?? [],
    probeAuth: passwords.get(probeAuth.secretKeyRef.name) ?? '',
    aclDir: init.volumeMounts?.[0]?.mountPath ?? '',
  };
}

/** compose's redis-acl and redis services, as the same parts (variables unset: their defaults). */
function composeRedis() {
  const acl = compose.services['redis-acl'] as ComposeService;
  const env = Object.fromEntries(
    Object.entries(acl.environment ?? {}).map(([k, v]) => [k, composeDefault(String(v))]),
  );
  const redis = compose.services.redis as ComposeService;
  const aclVolume = (acl.volumes ?? [])[0]?.split(':') ?? [];
  const serverVolume = (redis.volumes ?? []).find((v) => v.startsWith(`${aclVolume[0]}:`))?.split(':') ?? [];
  const loader = compose.services['redis-scripts'] as ComposeService;
  const loaderEnv = Object.fromEntries(
    Object.entries(loader.environment ?? {}).map(([k, v]) => [k, composeDefault(String(v))]),
  );
  return {
    loader: { argv: loader.command ?? [], env: loaderEnv },
    init: acl.command ?? [],
    env,
    server: redis.command ?? [],
    probe: (redis.healthcheck?.test ?? []).slice(1),
    probeAuth: composeDefault(redis.environment?.REDISCLI_AUTH ?? ''),
    aclDir: aclVolume[1] ?? '',
    serverAclDir: serverVolume[1] ?? '',
  };
}

describe('the ACL file, made as the Redis pod makes it, in a real redis-server', () => {
  const passwords = new Map(USER_SECRETS.map((s) => [s, newPassword()]));
  for (const form of ['k8s', 'compose'] as const) {
    describe(form, () => {
      let dir: string;
      let server: Proc;
      let port: number;
      let parts: ReturnType<typeof k8sRedisPod> & { serverAclDir?: string };
      const password = (app: App | 'health') =>
        form === 'k8s'
          ? (passwords.get(`podset-redis-${app}`) ?? '')
          : (parts.env[`REDIS_${app.toUpperCase()}_PASSWORD`] ?? '');
      const clients: Redis[] = [];
      const client = (username?: string, pw?: string) => {
        const c = new Redis({
          port,
          host: '127.0.0.1',
          ...(username !== undefined ? { username, password: pw } : {}),
          lazyConnect: true,
          // INFO is not every user's: the ready check would fail the anonymous and the probe's client.
          enableReadyCheck: false,
          maxRetriesPerRequest: 0,
          retryStrategy: () => null,
        });
        c.on('error', () => undefined);
        clients.push(c);
        return c;
      };
      const as = async (app: App) => {
        const c = client(`podset-${app}`, password(app));
        await c.connect();
        return c;
      };
      const refused = async (what: Promise<unknown>, reply: RegExp) =>
        await assert.rejects(what, (err: Error) => reply.test(err.message));

      before(async () => {
        dir = mkdtempSync(path.join(os.tmpdir(), `podset-redis-users-${form}-`));
        parts = form === 'k8s' ? k8sRedisPod(passwords) : composeRedis();
        const local = (a: string, mount: string) => (mount !== '' ? a.replace(mount, dir) : a);
        // The init container's command, run as written (in the image, /app is the repository).
        const [cmd, ...args] = parts.init;
        assert.equal(cmd, 'node');
        const env = Object.fromEntries(
          Object.entries(parts.env).map(([k, v]) => [k, local(v, parts.aclDir)]),
        );
        await exec(NODE, args, { cwd: REPO, env: { PATH: process.env.PATH ?? '', ...env } });
        const file = env.REDIS_ACL_FILE ?? '';
        assert.equal(statSync(file).mode & 0o777, 0o600, 'the ACL file is its owner’s only');
        port = await freePort();
        const serverDir = parts.serverAclDir ?? parts.aclDir;
        const [redisCmd, ...redisArgs] = parts.server.map((a) =>
          local(a, serverDir).replace(/^\/data$/, dir),
        );
        server = new Proc({
          name: `redis-${form}`,
          command: redisCmd ?? '',
          args: [
            ...redisArgs,
            '--port',
            String(port),
            '--bind',
            '127.0.0.1',
            '--appendonly',
            'no',
            '--dir',
            dir,
          ],
          env: { PATH: process.env.PATH ?? '' },
        });
        await waitFor('redis-server to answer the watcher', async () => {
          const c = client('podset-watcher', password('watcher'));
          try {
            await c.connect();
            return (await c.ping()) === 'PONG';
          } catch {
            return false;
          } finally {
            c.disconnect();
          }
        });
      });
      after(async () => {
        for (const c of clients) c.disconnect();
        await server?.stop(5_000);
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      test('the default user is off: no command without a user, no login as default', async () => {
        const anonymous = client();
        await anonymous.connect();
        await refused(anonymous.ping(), /NOAUTH/);
        await refused(anonymous.call('AUTH', 'default', 'anything'), /WRONGPASS/);
        await refused(anonymous.call('AUTH', password('watcher')), /WRONGPASS/);
      });

      test("the dashboard's user reads and is refused every write", async () => {
        const dashboard = await as('dashboard');
        assert.equal(await dashboard.get('{podset}:podset-reconcile:id'), null);
        await refused(dashboard.set('{podset}:podset-reconcile:id', '1'), /NOPERM/);
        await refused(dashboard.set('{podset}:podset-reconcile:proj:ps:default/web', '{}'), /NOPERM/);
      });

      test("the worker's user cannot write a projected PodSet, but writes its job keys", async () => {
        const worker = await as('worker');
        await refused(worker.set('{podset}:podset-reconcile:proj:ps:default/web', '{}'), /NOPERM/);
        assert.equal(await worker.get('{podset}:podset-reconcile:proj:ps:default/web'), null);
        assert.equal(await worker.lpush('{podset}:podset-reconcile:wait', 'job'), 1);
      });

      test("the watcher's user writes the projection, and nothing outside the queue's keys", async () => {
        const watcher = await as('watcher');
        assert.equal(await watcher.set('{podset}:podset-reconcile:proj:ps:default/web', '{}'), 'OK');
        await refused(watcher.set('elsewhere', '1'), /NOPERM/);
        await refused(watcher.flushall(), /NOPERM/);
      });

      test('no password in the arguments of redis-server', () => {
        const cmdline = readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8');
        assert.match(cmdline, /^redis-server/);
        for (const app of [...APPS, 'health'] as const) {
          assert.ok(
            !cmdline.includes(password(app)),
            `${app}'s password is not in ${cmdline.replaceAll('\0', ' ')}`,
          );
        }
      });

      test('the script loader, run as written, caches the scripts the apps run; its user may do no more', async () => {
        const [cmd, ...args] = parts.loader.argv;
        assert.equal(cmd, 'node');
        const env: Record<string, string> = { ...parts.loader.env, REDIS_URL: `redis://127.0.0.1:${port}` };
        await exec(NODE, [...args, '--once'], { cwd: REPO, env: { PATH: process.env.PATH ?? '', ...env } });
        const scripts = await operatorScripts();
        const loader = client(env.REDIS_USERNAME ?? '', env.REDIS_PASSWORD ?? '');
        await loader.connect();
        const cached = (await loader.script('EXISTS', ...scripts.map((s) => s.sha))) as number[];
        assert.deepEqual(
          cached,
          scripts.map(() => 1),
          'every script of the operator is cached',
        );
        await refused(loader.get('{podset}:podset-reconcile:id'), /NOPERM/);
        await refused(loader.evalsha(scripts[0]?.sha ?? '', 0), /NOPERM/);
        await refused(loader.eval('return 1', 0), /NOPERM/);
        // The apps run them by sha, and nothing of their own.
        const dashboard = await as('dashboard');
        await refused(dashboard.script('LOAD', 'return 1'), /NOPERM/);
        await refused(dashboard.call('EVAL_RO', 'return 1', '0'), /NOPERM/);
      });

      test("the probe's command passes as its user, who may do nothing else", async () => {
        const [cli, ...cliArgs] = parts.probe;
        const out = await exec(
          cli ?? '',
          [...cliArgs.slice(0, -1), '-p', String(port), ...cliArgs.slice(-1)],
          {
            env: { PATH: process.env.PATH ?? '', REDISCLI_AUTH: parts.probeAuth },
          },
        );
        assert.equal(out.stdout.trim(), 'PONG');
        const health = client('podset-health', parts.probeAuth);
        await health.connect();
        await refused(health.get('{podset}:podset-reconcile:id'), /NOPERM/);
      });
    });
  }
});
