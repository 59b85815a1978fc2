// docker-compose.yml, checked without a Docker engine: services, the image and Dockerfile target each is built
// from, dependencies, published ports, and every app's environment against the app's own env spec; one file
// for docker-compose 1.29 and docker compose v2, with the documented commands of both. The compose this
// machine has (`docker compose` v2, else `docker-compose` 1.29) checks the files with `config` too.
// test/compose/stack.compose-test.ts runs the stack itself.
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { test } from 'node:test';
import { SECRET_VARS } from '../../scripts/compose-secrets.ts';
import { findCompose } from '../compose/cli.ts';
import {
  APPS,
  appOf,
  argAfter,
  compose,
  healthPort,
  kubeconfigFiles,
  mounts,
  parsePort,
  services,
  type Service,
} from './compose-support.ts';
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
