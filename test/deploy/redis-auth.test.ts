// Redis secured by default, checked on the rendered manifests and the compose file: a password per Redis
// user in its own Secret (made at install by a Job whose account may only create Secrets), handed to
// Redis in its ACL file (never in its arguments or environment) and to each app (REDIS_PASSWORD, its own
// user's: test/deploy/redis-users.test.ts); a maxmemory below the memory limit with noeviction. Then the
// Job's program as its ServiceAccount against kube-sim with k8s/ applied: it creates the Secrets once and
// keeps them, making no request but a create of a Secret.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import {
  find,
  render,
  rulesFor,
  workloads,
  type Container,
  type K8sObject,
  type Role,
  type Workload,
} from './manifests.ts';
import { REPO, readRepo } from './support.ts';
import { compileCacheEnv } from '@podset/testkit';
import { startEnv, type OperatorEnv } from '../e2e/support/harness.ts';

const base = render('k8s');
const external = render('k8s/overlays/external-redis');
const NODE = path.join(REPO, 'node_modules/.bin/node');
const SECRET_REF = { secretKeyRef: { name: 'podset-redis-health', key: 'password' } };

/** Bytes of a Kubernetes quantity (Mi, Gi) or a Redis/compose size (mb, m, gb). */
function bytes(size: string): number {
  const m = /^(\d+)\s*(Ki|Mi|Gi|kb|mb|gb|k|m|g)?$/i.exec(size.trim());
  assert.ok(m, `a size: ${size}`);
  const unit = (m[2] ?? '').toLowerCase();
  const factor = { '': 1, ki: 1024, mi: 1024 ** 2, gi: 1024 ** 3, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[
    unit.replace(/b$/, '')
  ];
  assert.ok(factor !== undefined, size);
  return Number(m[1]) * factor;
}

function argAfter(argv: readonly string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  return i < 0 ? undefined : argv[i + 1];
}

const redisContainer = (): Container => {
  const sts = find<Workload>(base, 'StatefulSet', 'podset-redis');
  const c = sts?.spec.template.spec.containers.find((x) => x.name === 'redis');
  assert.ok(c, 'the Redis StatefulSet');
  return c;
};

test("k8s: Redis's users come from an ACL file on a memory volume, never from its arguments or env", () => {
  const c = redisContainer();
  const argv = [...(c.command ?? []), ...(c.args ?? [])];
  assert.ok(!argv.includes('--requirepass'), 'no --requirepass argument');
  assert.ok(!argv.some((a) => a.includes('$(REDIS_PASSWORD)')), 'no $(REDIS_PASSWORD) expansion');
  assert.ok(!argv.includes('--protected-mode'), 'protected mode is not turned off');
  const aclFile = argAfter(argv, '--aclfile') ?? '';
  const env = new Map((c.env ?? []).map((e) => [e.name, e.valueFrom]));
  assert.deepEqual([...env.keys()], ['REDISCLI_AUTH'], 'no password in the environment of redis-server');
  assert.deepEqual(env.get('REDISCLI_AUTH'), SECRET_REF, "redis-cli authenticates as the probes' user");
  assert.deepEqual(c.livenessProbe?.exec?.command, ['redis-cli', '-e', '--user', 'podset-health', 'ping']);
  const sts = find<Workload>(base, 'StatefulSet', 'podset-redis');
  const pod = sts?.spec.template.spec as unknown as {
    volumes?: { name: string; emptyDir?: { medium?: string } }[];
  };
  const mount = (
    c as { volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[] }
  ).volumeMounts?.find((m) => aclFile.startsWith(`${m.mountPath}/`));
  assert.equal(mount?.readOnly, true, `${aclFile} is on a volume mounted read-only`);
  const volume = pod.volumes?.find((v) => v.name === mount?.name);
  assert.equal(volume?.emptyDir?.medium, 'Memory', 'the file is kept in memory, made at each start');
});

test('k8s: Redis has maxmemory below its memory limit, with noeviction', () => {
  const c = redisContainer();
  const argv = [...(c.command ?? []), ...(c.args ?? [])];
  assert.equal(argAfter(argv, '--maxmemory-policy'), 'noeviction');
  const maxmemory = argAfter(argv, '--maxmemory');
  const limit = c.resources?.limits?.memory;
  assert.ok(maxmemory !== undefined && limit !== undefined, 'both set');
  assert.ok(bytes(maxmemory) <= 0.8 * bytes(limit), `${maxmemory} leaves headroom below ${limit}`);
});

test("k8s: every app gets REDIS_PASSWORD from its own user's Secret, with an external Redis too", () => {
  for (const objects of [base, external]) {
    // The script loader (its own Deployment beside an external Redis) is podset-scripts, not an app:
    // test/deploy/redis-users.test.ts holds its Secret.
    const apps = workloads(objects).filter(
      (w) => w.metadata.name !== 'podset-redis' && w.metadata.name !== 'podset-redis-scripts',
    );
    assert.deepEqual(apps.map((w) => w.metadata.name).sort(), [
      'podset-dashboard',
      'podset-watcher',
      'podset-worker',
    ]);
    for (const w of apps) {
      const env = w.spec.template.spec.containers[0]?.env?.find((e) => e.name === 'REDIS_PASSWORD');
      assert.deepEqual(
        env?.valueFrom,
        { secretKeyRef: { name: `${w.metadata.name.replace('podset-', 'podset-redis-')}`, key: 'password' } },
        w.metadata.name,
      );
    }
  }
});

test('k8s: the secret-init Job runs the image with an account that may only create Secrets', () => {
  const job = find<
    K8sObject & {
      spec: { ttlSecondsAfterFinished?: number; template: { spec: Workload['spec']['template']['spec'] } };
    }
  >(base, 'Job', 'podset-redis-secret-init');
  assert.ok(job);
  // Removed after it ran, so that a new image in the next apply or upgrade recreates it (a Job's template
  // is immutable).
  assert.ok((job.spec.ttlSecondsAfterFinished ?? Infinity) <= 600, 'ttlSecondsAfterFinished set');
  const pod = job.spec.template.spec;
  assert.equal(pod.serviceAccountName, 'podset-redis-secret-init');
  const c = pod.containers[0];
  assert.deepEqual(c?.command, ['node', 'apps/redis-init/src/redis-secret-init.ts']);
  assert.match(c?.image ?? '', /^podset-operator:/);
  assert.equal(c?.securityContext?.allowPrivilegeEscalation, false);
  assert.deepEqual(c?.securityContext?.capabilities?.drop, ['ALL']);
  assert.equal(pod.securityContext?.runAsNonRoot, true);
  const role = find<Role>(base, 'Role', 'podset-redis-secret-init');
  assert.deepEqual(role?.rules, [{ apiGroups: [''], resources: ['secrets'], verbs: ['create'] }]);
  const binding = find<K8sObject & { subjects: { name: string }[]; roleRef: { name: string } }>(
    base,
    'RoleBinding',
    'podset-redis-secret-init',
  );
  assert.deepEqual(
    binding?.subjects.map((s) => s.name),
    ['podset-redis-secret-init'],
  );
  assert.equal(binding?.roleRef.name, 'podset-redis-secret-init');
  // With an external Redis the Secret is the administrator's: no Job, no account.
  for (const kind of ['Job', 'Role', 'RoleBinding', 'ServiceAccount']) {
    assert.equal(find(external, kind, 'podset-redis-secret-init'), undefined, kind);
  }
});

interface ComposeService {
  command?: string[];
  environment?: Record<string, string>;
  mem_limit?: string;
  healthcheck?: { test: string[] };
}

test('compose: a password per Redis user (each a documented development default), none in the URL', () => {
  const compose = parse(readRepo('docker-compose.yml'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const redis = compose.services.redis;
  assert.ok(redis);
  assert.equal(argAfter(redis.command ?? [], '--requirepass'), undefined, 'no password in its arguments');
  const acl = compose.services['redis-acl']?.environment ?? {};
  for (const user of ['WATCHER', 'WORKER', 'DASHBOARD', 'HEALTH']) {
    assert.match(
      acl[`REDIS_${user}_PASSWORD`] ?? '',
      new RegExp(`^\\$\\{REDIS_${user}_PASSWORD:-[^}]+\\}$`),
      `${user}: from REDIS_${user}_PASSWORD with a default`,
    );
  }
  for (const app of ['watcher', 'worker', 'dashboard']) {
    assert.doesNotMatch(
      compose.services[app]?.environment?.REDIS_URL ?? '',
      /@/,
      `${app}: no password in the URL`,
    );
  }
  assert.equal(argAfter(redis.command ?? [], '--maxmemory-policy'), 'noeviction');
  const maxmemory = argAfter(redis.command ?? [], '--maxmemory');
  assert.ok(maxmemory !== undefined && redis.mem_limit !== undefined);
  assert.ok(bytes(maxmemory) <= 0.8 * bytes(redis.mem_limit), `${maxmemory} below ${redis.mem_limit}`);
  assert.match(
    readRepo('docker-compose.yml'),
    /export REDIS_\$\{u\}_PASSWORD=/,
    'the header says how to set them',
  );
});

const NS = 'podset-system';
const JOB_SA = `system:serviceaccount:${NS}:podset-redis-secret-init`;
let env: OperatorEnv;
before(async () => {
  env = await startEnv({ name: 'redis-secret-init', identities: [JOB_SA] });
});
after(async () => {
  await env?.close();
});

// kube-sim runs in this process: the children are awaited, never run synchronously.
const exec = promisify(execFile);

test("the Job's program, as its ServiceAccount, creates each user's Secret once with only `create` on Secrets", async () => {
  await env.kubectl(['apply', '-k', 'k8s']);
  const since = new Date().toISOString();
  const run = async () =>
    (
      await exec(NODE, [path.join(REPO, 'apps/redis-init/src/redis-secret-init.ts')], {
        env: {
          PATH: process.env.PATH ?? '',
          ...compileCacheEnv(),
          KUBECONFIG: env.sim.kubeconfigFor(JOB_SA),
          POD_NAMESPACE: NS,
          REDIS_SECRET_NAME: 'podset-redis',
        },
      })
    ).stdout;
  const secretValue = async (name: string, key: string) => {
    const out = await env.kubectl(['-n', NS, 'get', 'secret', name, '-o', 'json']);
    const secret = JSON.parse(out.stdout) as { data: Record<string, string> };
    return Buffer.from(secret.data[key] ?? '', 'base64').toString();
  };
  const users = ['watcher', 'worker', 'dashboard', 'health', 'scripts', 'ops'];
  const passwords = () => Promise.all(users.map((u) => secretValue(`podset-redis-${u}`, 'password')));
  // The projection's integrity key, made and kept the same way (the watcher and the workers mount it).
  const projectionKey = () => secretValue('podset-projection-key', 'key');
  const first = await run();
  for (const u of users) assert.match(first, new RegExp(`created Secret podset-system/podset-redis-${u}\\b`));
  assert.match(first, /created Secret podset-system\/podset-projection-key/);
  const made = await passwords();
  const key = await projectionKey();
  for (const p of made) assert.match(p, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, URL-safe');
  assert.match(key, /^[A-Za-z0-9_-]{43}$/, 'the key: 32 random bytes');
  assert.equal(new Set([...made, key]).size, 7, 'a password of its own for each user');
  assert.ok(![...made, key].some((s) => first.includes(s)), 'no secret is printed');
  const second = await run();
  for (const u of users) assert.match(second, new RegExp(`podset-redis-${u} exists; kept as it is`));
  assert.match(second, /podset-projection-key exists; kept as it is/);
  assert.deepEqual(await passwords(), made, 'not changed by a second run');
  assert.equal(await projectionKey(), key, 'the key not changed by a second run');

  // Every request it made is a create of a Secret in its namespace, which its Role grants.
  const granted = rulesFor(base, NS, 'podset-redis-secret-init');
  const requests = env.sim.audit
    .query({ user: JOB_SA, since })
    .filter((e) => e.resource !== '')
    .map((e) => `${e.verb} ${e.resource} ${e.namespace}`);
  assert.deepEqual(
    requests,
    Array<string>(14).fill('create secrets podset-system'),
    'seven Secrets, two runs',
  );
  assert.ok(
    granted.some(
      (g) => g.namespace === NS && g.rule.verbs.includes('create') && g.rule.resources?.includes('secrets'),
    ),
    'granted by the Role bound to it',
  );
});
