// The kind override mounts a cluster-admin kubeconfig: it must never ask to make that file readable by
// every user of the machine. The containers that mount it run as its owner (PODSET_UID:PODSET_GID) instead.
// And it runs with secrets made for the machine, never docker-compose.yml's development ones. It turns
// kube-sim and its CRD job off, and the apps use the mounted kubeconfig.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { redisAclFileText } from '../../apps/redis-init/src/redis-acl-file.ts';
import { parseEnvFile, SECRET_VARS } from '../../scripts/compose-secrets.ts';
import { mounts, type Compose, type Service } from './compose-support.ts';
import { REPO, readRepo } from './support.ts';

const NODE = path.join(REPO, 'node_modules/.bin/node');

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

test('docker-compose.kind.yml and its docs never widen the kubeconfig; its readers run as its owner', () => {
  for (const file of ['docker-compose.kind.yml', 'docs/deployment.md']) {
    assert.doesNotMatch(read(file).replace(/never\s+`chmod 644`/, ''), /chmod\s+6[0-7]4/, file);
    assert.match(read(file), /umask 077; kind get kubeconfig/, `${file}: the kubeconfig is written 0600`);
  }
  const kind = parse(read('docker-compose.kind.yml'), { logLevel: 'error' }) as {
    services: Record<string, { user?: string; volumes?: unknown[] }>;
  };
  for (const [name, s] of Object.entries(kind.services)) {
    const mountsKubeconfig = JSON.stringify(s.volumes ?? []).includes('KIND_KUBECONFIG');
    if (!mountsKubeconfig) continue;
    assert.equal(
      s.user,
      '${PODSET_UID:-1000}:${PODSET_GID:-1000}',
      `${name} reads the kubeconfig as its owner`,
    );
  }
});

// Finding: compose with the kind override ran a real cluster's operator on docker-compose.yml's development
// passwords and projection key. Now every secret is required there, and `npm run compose:secrets` makes them.
type Env = Record<string, string>;

/** docker-compose.yml with the kind override merged as compose merges `environment` (key by key). */
function mergedKind(): Record<string, Service> {
  const base = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
  const kind = parse(read('docker-compose.kind.yml'), { logLevel: 'error' }) as {
    services: Record<string, Service>;
  };
  const out: Record<string, Service> = {};
  for (const [name, s] of Object.entries(base.services)) {
    out[name] = { environment: { ...s.environment, ...kind.services[name]?.environment } };
  }
  return out;
}

/** Compose's interpolation of `${V}`, `${V:-default}` and `${V:?message}` (which fails when V is unset). */
function interpolate(value: string, vars: Env): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, op?: string, arg?: string) => {
    const set = vars[name];
    if (set !== undefined && set !== '') return set;
    if (op === '?') throw new Error(`required variable ${name} is missing a value: ${arg}`);
    return op === '-' ? (arg ?? '') : '';
  });
}

function rendered(vars: Env): Record<string, Env> {
  return Object.fromEntries(
    Object.entries(mergedKind()).map(([name, s]) => [
      name,
      Object.fromEntries(
        Object.entries(s.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), vars)]),
      ),
    ]),
  );
}

test('compose:secrets writes every secret, random and 0600, once; a rerun keeps them', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-compose-secrets-'));
  try {
    const file = path.join(dir, 'secrets.env');
    const run = () =>
      execFileSync(NODE, ['scripts/compose-secrets.ts', '--file', file], { cwd: REPO, encoding: 'utf8' });
    assert.match(run(), /wrote .*secrets\.env \(mode 0600\)/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const first = parseEnvFile(readFileSync(file, 'utf8'));
    assert.deepEqual(Object.keys(first).sort(), Object.keys(SECRET_VARS).sort());
    assert.equal(new Set(Object.values(first)).size, Object.keys(first).length, 'each secret its own');
    assert.equal(Buffer.from(first.PROJECTION_HMAC_KEY ?? '', 'base64').length, 32);
    // Each password is one the ACL file takes (its own check, as the redis-acl service runs it).
    redisAclFileText({ ...first, REDIS_ACL_FILE: '/dev/null' });
    assert.ok(!Object.values(first).some((v) => run().includes(v)), 'no secret is printed');
    assert.deepEqual(parseEnvFile(readFileSync(file, 'utf8')), first, 'a rerun keeps them');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('compose + kind renders the generated secrets, never a development default; unset, it refuses', () => {
  const secrets = Object.fromEntries(Object.entries(SECRET_VARS).map(([k, make]) => [k, make()]));
  const env = rendered(secrets);
  for (const [name, vars] of Object.entries(env))
    for (const [k, v] of Object.entries(vars))
      assert.doesNotMatch(v, /podset-dev|change-me/, `${name} ${k} is not a development default`);
  const acl = env['redis-acl'] ?? {};
  for (const app of ['watcher', 'worker', 'dashboard']) {
    const password = secrets[`REDIS_${app.toUpperCase()}_PASSWORD`];
    assert.equal(env[app]?.REDIS_PASSWORD, password, `${app} logs in with the generated password`);
    assert.equal(acl[`REDIS_${app.toUpperCase()}_PASSWORD`], password, `the ACL file has ${app}'s`);
  }
  for (const user of ['HEALTH', 'SCRIPTS', 'OPS'])
    assert.equal(acl[`REDIS_${user}_PASSWORD`], secrets[`REDIS_${user}_PASSWORD`], user);
  assert.equal(env.redis?.REDISCLI_AUTH, secrets.REDIS_HEALTH_PASSWORD);
  assert.equal(env['redis-scripts']?.REDIS_PASSWORD, secrets.REDIS_SCRIPTS_PASSWORD);
  assert.equal(env['redis-scripts']?.REDIS_OPS_PASSWORD, secrets.REDIS_OPS_PASSWORD, "the watchdog's");
  for (const app of ['watcher', 'worker'])
    assert.equal(env[app]?.PROJECTION_HMAC_KEY, secrets.PROJECTION_HMAC_KEY, `${app}'s key`);
  assert.equal(env.dashboard?.PROJECTION_HMAC_KEY, undefined, 'the dashboard has no key');
  // Without them: every secret is refused by name (docker-compose.yml alone would fill in its defaults).
  for (const name of Object.keys(SECRET_VARS)) {
    const without = { ...secrets };
    delete without[name];
    assert.throws(() => rendered(without), new RegExp(`required variable ${name} `), name);
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
