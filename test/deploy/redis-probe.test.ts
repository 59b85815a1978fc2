// The Redis probes as k8s/ and compose ship them fail on an error reply: a real redis-server with the
// shipped users (libs/redis's acl.ts) is driven into each state a probe must see as unhealthy — a wrong
// password (NOAUTH), the probes' user without PING (NOPERM), a script that never ends (BUSY) — and the
// probe's own command, run as written, must exit non-zero there and zero when Redis is healthy.
// (Plain `redis-cli ping` prints the error and exits 0.)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { parse } from 'yaml';
import { aclFile, APP_USERS, type AppUser } from '@podset/redis';
import { startRedis, type RedisServer } from '@podset/testkit';
import { find, render, type Workload } from './manifests.ts';
import { readRepo } from './support.ts';

const HEALTH_PASSWORD = 'health-password-0123456789';
const ADMIN_PASSWORD = 'admin-password-0123456789';

/** Each shipped probe's argv (redis-cli …), as written. */
function shippedProbes(): Map<string, string[]> {
  const sts = find<Workload>(render('k8s'), 'StatefulSet', 'podset-redis');
  const redis = sts?.spec.template.spec.containers.find((c) => c.name === 'redis');
  const compose = parse(readRepo('docker-compose.yml'), { merge: true }) as {
    services: Record<string, { healthcheck?: { test: string[] } }>;
  };
  const probes = new Map<string, string[]>([
    ['k8s liveness', redis?.livenessProbe?.exec?.command ?? []],
    ['k8s readiness', redis?.readinessProbe?.exec?.command ?? []],
    ['compose healthcheck', (compose.services.redis?.healthcheck?.test ?? []).slice(1)],
  ]);
  for (const [what, argv] of probes) assert.equal(argv[0], 'redis-cli', `${what} is a redis-cli command`);
  return probes;
}

let server: RedisServer;
let dir: string;
let admin: Redis;
before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'podset-redis-probe-'));
  const passwords = Object.fromEntries(APP_USERS.map((a) => [a, `${a}-password-0123456789`])) as Record<
    AppUser,
    string
  >;
  // The shipped users, and an administrator to drive Redis into each state (the file turns default off).
  const acl = aclFile({ prefix: '{podset}', queueName: 'podset-reconcile' }, passwords, {
    health: HEALTH_PASSWORD,
  }).replace(/^user default .*$/m, `user default on >${ADMIN_PASSWORD} ~* &* +@all`);
  const file = path.join(dir, 'users.acl');
  writeFileSync(file, acl);
  server = await startRedis({ password: ADMIN_PASSWORD, args: ['--aclfile', file] });
  admin = new Redis(server.url, { maxRetriesPerRequest: 1 });
});
after(async () => {
  admin?.disconnect();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs a probe's argv against the test server, as its container does (the password in REDISCLI_AUTH). */
function probe(argv: string[], password = HEALTH_PASSWORD): { status: number | null; out: string } {
  const [cli, ...args] = argv;
  const r = spawnSync(cli ?? '', ['-p', String(server.port), ...args], {
    env: { PATH: process.env.PATH ?? '', REDISCLI_AUTH: password },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}`.trim() };
}

function eachProbe(state: string, password?: string): void {
  for (const [what, argv] of shippedProbes()) {
    const r = probe(argv, password);
    assert.notEqual(r.status, 0, `${what} must fail on ${state}: exited ${r.status} with "${r.out}"`);
    assert.match(r.out, new RegExp(state), `${what}: Redis answered ${state}`);
  }
}

test('healthy: every shipped probe passes (PONG, exit 0)', () => {
  for (const [what, argv] of shippedProbes()) {
    const r = probe(argv);
    assert.equal(r.status, 0, `${what}: ${r.out}`);
    assert.equal(r.out, 'PONG', what);
  }
});

test('NOAUTH (a wrong password): every shipped probe fails', () => {
  eachProbe('NOAUTH', 'not-the-password-0123456789');
});

test("NOPERM (the probes' user may not PING): every shipped probe fails", async () => {
  await admin.call('ACL', 'SETUSER', 'podset-health', '-ping');
  try {
    eachProbe('NOPERM');
  } finally {
    await admin.call('ACL', 'SETUSER', 'podset-health', '+ping');
  }
});

test('BUSY (a script that never ends): every shipped probe fails', async () => {
  const looping = new Redis(server.url, { maxRetriesPerRequest: 1 });
  const ended = looping.call('EVAL_RO', 'while true do end', '0').catch((err: Error) => err.message);
  try {
    // Redis answers BUSY once the script has run past busy-reply-threshold.
    for (;;) {
      const answer = await admin.ping().catch((err: Error) => err.message);
      if (answer.startsWith('BUSY')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    eachProbe('BUSY');
  } finally {
    await admin.script('KILL');
    assert.match(String(await ended), /killed/i);
    looping.disconnect();
  }
  // And healthy again once the script is killed.
  for (const [what, argv] of shippedProbes()) assert.equal(probe(argv).status, 0, what);
});
