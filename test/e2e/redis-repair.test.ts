// The queue recovers on its own from values that break BullMQ's add: a client holding only the worker's
// password (the shipped ACL file) writes the queue's job-id and priority counters and its event-stream length
// as '9e15' (no integer: every add would fail with "value is not an integer"). Real watcher and worker
// processes, each as its own Redis user, kube-sim over HTTP, kubectl. The next real change (kubectl scale)
// converges without a restart: the watcher's add fails, the watcher finds the values out of bounds, deletes
// them, logs each by its key (never the value) and counts it, and adds again in the same request, which a
// failed add did not record as made. And a watcher restarted on a checkpoint written as garbage with the
// watcher's password relists in full (a watch from it would be refused on every try) and converges.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { aclFile, aclUsername, DEFAULT_PREFIX, DEFAULT_QUEUE_NAME, type AppUser } from '@podset/queue';
import { watcherKeyspace } from '@podset/redis';
import { freePort } from '@podset/testkit';
import { newToken } from '../ops/support.ts';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv, type Proc } from './support/harness.ts';

const ADMIN = 'admin-' + newToken();
const PASSWORDS: Record<AppUser, string> = {
  watcher: 'watcher-' + newToken(),
  worker: 'worker-' + newToken(),
  dashboard: 'dashboard-' + newToken(),
};
const prefix = DEFAULT_PREFIX;
const queueName = DEFAULT_QUEUE_NAME;
const Q = `${prefix}:${queueName}:`;
const CONVERGE = { timeoutMs: 60_000 };

let env: OperatorEnv;
let dir: string;
let watcherPort: number;
let watcher: Proc;
let asWorker: Redis;

function appEnv(app: AppUser): Record<string, string> {
  return {
    REDIS_URL: `redis://127.0.0.1:${env.redis.port}`,
    REDIS_USERNAME: aclUsername(app),
    REDIS_PASSWORD: PASSWORDS[app],
  };
}

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'podset-queue-repair-'));
  const file = path.join(dir, 'users.acl');
  // The harness's own checks read Redis as an administrator (the generated file turns `default` off).
  writeFileSync(
    file,
    aclFile({ prefix, queueName }, PASSWORDS).replace(
      /^user default .*$/m,
      `user default on >${ADMIN} ~* &* +@all`,
    ),
  );
  env = await startEnv({ name: 'redis-repair', redis: { password: ADMIN, args: ['--aclfile', file] } });
  await applyCrd(env);
  watcherPort = await freePort();
  watcher = env.startWatcher('watcher-0', { ...appEnv('watcher'), HTTP_PORT: String(watcherPort) });
  env.startWorker('worker-0', appEnv('worker'));
  asWorker = new Redis(env.redis.port, '127.0.0.1', {
    username: aclUsername('worker'),
    password: PASSWORDS.worker,
    maxRetriesPerRequest: 1,
  });
  asWorker.on('error', () => undefined);
});

after(async () => {
  asWorker?.disconnect();
  await env?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

async function repairsCounted(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${watcherPort}/metrics`)).text();
  const m = /^podset_redis_value_out_of_bounds_total\{what="queue-add-input"\} (\S+)$/m.exec(text);
  return Number(m?.[1] ?? 0);
}

test("counters and the event-stream length written as '9e15' with the worker's password: the next change converges", async () => {
  await env.kubectl(['apply', '-f', env.writeManifest('qr.yaml', [podSetManifest('qr', 2)])]);
  await env.waitConverged(['qr'], CONVERGE);
  assert.equal(await repairsCounted(), 0, 'nothing repaired before the attack');
  await asWorker.set(`${Q}id`, '9e15');
  await asWorker.set(`${Q}pc`, '9e15');
  await asWorker.hset(`${Q}meta`, 'opts.maxLenEvents', '9e15');

  await env.kubectl(['scale', 'ps', 'qr', '--replicas=3']);
  await env.waitConverged(['qr'], CONVERGE);
  env.assertAllRunning();

  await env.waitFor('the repairs counted', async () =>
    (await repairsCounted()) >= 1 ? [] : ['no repair counted yet'],
  );
  const lines = readFileSync(path.join(env.logDir, 'watcher-0.log'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('queue adds read'));
  assert.ok(
    lines.some((l) => l.includes(`"redisKey":"${Q}id"`)),
    'the id counter logged by its key',
  );
  assert.ok(!lines.some((l) => l.includes('9e15')), 'no value logged');
  assert.match((await asWorker.get(`${Q}id`)) ?? '', /^[0-9]+$/, 'BullMQ counts on the id counter again');
});

test("a checkpoint written as garbage with the watcher's password: a restarted watcher relists in full and converges", async () => {
  const asWatcher = new Redis(env.redis.port, '127.0.0.1', {
    username: aclUsername('watcher'),
    password: PASSWORDS.watcher,
    maxRetriesPerRequest: 1,
  });
  asWatcher.on('error', () => undefined);
  try {
    await env.kubectl(['apply', '-f', env.writeManifest('cp.yaml', [podSetManifest('cp', 1)])]);
    await env.waitConverged(['cp'], CONVERGE);
    const stopped = watcher;
    assert.equal((await stopped.stop(10_000)).code, 0, stopped.describe());
    const checkpoint = watcherKeyspace(prefix, queueName, 'unused').checkpoint;
    const streams = await asWatcher.hkeys(checkpoint);
    assert.ok(streams.length > 0, 'the watcher kept a checkpoint');
    for (const stream of streams) await asWatcher.hset(checkpoint, stream, 'garbage');
    watcher = env.startWatcher('watcher-1', appEnv('watcher'));
    await env.kubectl(['scale', 'ps', 'cp', '--replicas=2']);
    await env.waitConverged(['cp'], CONVERGE);
    env.assertAllRunning([stopped]);
    const log = readFileSync(path.join(env.logDir, 'watcher-1.log'), 'utf8');
    assert.match(log, /the checkpoint is out of bounds: relisting in full/);
    assert.ok(!log.includes('"rv":"garbage"'), 'no watch resumed from the garbage');
  } finally {
    asWatcher.disconnect();
  }
});
