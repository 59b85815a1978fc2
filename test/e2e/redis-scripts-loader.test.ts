// The script loader as the external-Redis installs run it (k8s/overlays/external-redis, the chart's
// externalRedis): its own process, pointed at a Redis the operator did not start (a redis-server with the
// shipped ACL file, started here), as the loader's user, with the operations user's password for its BUSY
// watchdog. It caches every script the apps run, caches them again after that Redis restarts (which empties
// the cache), and kills a script that keeps Redis busy past its bound: one log line, one count in /metrics.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import { OPS_USERNAME, SCRIPTS_USERNAME, aclFile } from '@podset/redis';
import { freePort, startRedis, waitFor, type RedisServer } from '@podset/testkit';
import { operatorScripts, type CachedScript } from '../../apps/redis-init/src/redis-scripts.ts';
import { newToken } from '../ops/support.ts';
import { Proc, SCRIPT_LOADER_MAIN } from './support/harness.ts';

const ADMIN = 'admin-' + newToken();
const SCRIPTS_PASSWORD = 'scripts-' + newToken();
const OPS_PASSWORD = 'ops-' + newToken();
/** An endless script: only a user allowed EVAL (the administrator here) can still start one. */
const LOOP = 'while true do end';

let dir: string;
let redis: RedisServer;
let loader: Proc;
let httpPort: number;
let admin: Redis;
let scripts: CachedScript[];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'podset-loader-'));
  const file = join(dir, 'users.acl');
  const acl = aclFile(
    { prefix: DEFAULT_PREFIX, queueName: DEFAULT_QUEUE_NAME },
    { watcher: newToken(), worker: newToken(), dashboard: newToken() },
    { scripts: SCRIPTS_PASSWORD, ops: OPS_PASSWORD },
  ).replace(/^user default .*$/m, `user default on >${ADMIN} ~* &* +@all`);
  writeFileSync(file, acl);
  redis = await startRedis({ defaultUserPassword: ADMIN, args: ['--aclfile', file] });
  scripts = await operatorScripts();
  httpPort = await freePort();
  loader = new Proc(
    'redis-scripts',
    [SCRIPT_LOADER_MAIN],
    {
      REDIS_URL: `redis://127.0.0.1:${redis.port}`,
      REDIS_USERNAME: SCRIPTS_USERNAME,
      REDIS_PASSWORD: SCRIPTS_PASSWORD,
      REDIS_OPS_USERNAME: OPS_USERNAME,
      REDIS_OPS_PASSWORD: OPS_PASSWORD,
      REDIS_BUSY_KILL_SECONDS: '1',
      HTTP_PORT: String(httpPort),
    },
    dir,
  );
  admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
});

after(async () => {
  // Never leave the script running, whatever failed: from a connection of its own (the administrator's
  // is the one running it, so a SCRIPT KILL there would wait behind it).
  if (redis !== undefined) {
    const killer = new Redis(redis.url, { enableReadyCheck: false, maxRetriesPerRequest: 1 });
    await killer.script('KILL').catch(() => undefined);
    killer.disconnect();
  }
  admin?.disconnect();
  await loader?.stop();
  await redis?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** How many of the operator's scripts Redis has cached, asked as the administrator. */
async function cachedCount(): Promise<number> {
  const cached = (await admin.script('EXISTS', ...scripts.map((s) => s.sha))) as number[];
  return cached.filter((c) => c === 1).length;
}

async function get(pathname: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${httpPort}${pathname}`);
  return { status: res.status, body: await res.text() };
}

async function waitReady(what: string): Promise<void> {
  await waitFor(what, async () => (await get('/readyz').catch(() => ({ status: 0 }))).status === 200, {
    timeoutMs: 60_000,
  });
}

/** podset_redis_busy_kills_total{result} from the loader's /metrics. */
async function kills(result: string): Promise<number> {
  const { body } = await get('/metrics');
  const line = body
    .split('\n')
    .find((l) => l.startsWith(`podset_redis_busy_kills_total{result="${result}"}`));
  return Number(line?.split(' ').at(-1) ?? NaN);
}

test('the loader caches every script in a Redis it did not start, and again after that Redis restarts', async () => {
  await waitReady('the loader ready: every script cached');
  assert.ok(scripts.length > 50, `${scripts.length} scripts`);
  assert.equal(await cachedCount(), scripts.length);

  await redis.restart();
  // A restart empties the script cache: anything cached now was cached again by the loader.
  await waitFor(
    'the scripts cached again after the restart',
    async () => (await cachedCount().catch(() => -1)) === scripts.length,
    { timeoutMs: 60_000 },
  );
  await waitReady('the loader ready again');
  assert.ok(
    loader.lines().filter((l) => /loaded \d+ scripts/.test(l)).length >= 2,
    'loaded once at start, once after the restart',
  );
});

test('the watchdog kills a script that keeps Redis busy past its bound, says so once and counts it', async () => {
  await waitReady('the loader ready');
  assert.equal(await kills('killed'), 0, 'no kill before the script');
  // BUSY replies start after busy-reply-threshold (5 s by default); shortened so the test is quick.
  await admin.config('SET', 'busy-reply-threshold', '200');
  let outcome: string | undefined;
  void admin.call('EVAL', LOOP, '0').then(
    () => (outcome = 'ended'),
    (err: Error) => (outcome = err.message),
  );
  // No timing is asserted (the deadline is only for a clear failure): the script ends only if something
  // sent SCRIPT KILL, and nothing here does.
  await waitFor('the endless script ended', () => outcome !== undefined, { timeoutMs: 60_000 });
  assert.match(outcome ?? '', /killed/i);
  await waitFor('the kill counted', async () => (await kills('killed')) === 1, { timeoutMs: 30_000 });
  assert.equal(await kills('unkillable'), 0);
  const said = loader.lines().filter((l) => /watchdog: .*answered BUSY/.test(l));
  assert.equal(said.length, 1, said.join('\n'));
  assert.match(said[0] ?? '', /sent SCRIPT KILL: killed/);
  assert.equal(await admin.ping(), 'PONG', 'Redis answers again');
});
