// The queue recovers on its own from values that break BullMQ's add: a client holding only the worker's
// password (the shipped ACL file) writes the queue's job-id and priority counters and its event-stream length
// as '9e15' (no integer: every add would fail with "value is not an integer"). Real watcher and worker
// processes, each as its own Redis user, kube-sim over HTTP, kubectl. The next real change (kubectl scale)
// converges without a restart: the watcher's add fails, the watcher finds the values out of bounds, deletes
// them, logs each by its key (never the value) and counts it, and adds again in the same request, which a
// failed add did not record as made. And a watcher restarted on checkpoints written with the watcher's
// password relists in full and converges: a value no API issues is never sent, and one the API refuses (a
// watch from it would be refused on every try) is refused once.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import { aclUsername } from '@podset/redis';
import { watcherKeyspace } from '@podset/redis';
import { freePort } from '@podset/testkit';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv, type Proc } from './support/harness.ts';

const prefix = DEFAULT_PREFIX;
const queueName = DEFAULT_QUEUE_NAME;
const Q = `${prefix}:${queueName}:`;
const CONVERGE = { timeoutMs: 60_000 };

let env: OperatorEnv;
let watcherPort: number;
let watcher: Proc;
let asWorker: Redis;

before(async () => {
  env = await startEnv({ name: 'redis-repair', redisAcl: true });
  await applyCrd(env);
  watcherPort = await freePort();
  watcher = env.startWatcher('watcher-0', { HTTP_PORT: String(watcherPort) });
  env.startWorker('worker-0');
  asWorker = new Redis(env.redis.port, '127.0.0.1', {
    username: aclUsername('worker'),
    password: env.redisUsers.passwords.worker,
    maxRetriesPerRequest: 1,
  });
  asWorker.on('error', () => undefined);
});

after(async () => {
  asWorker?.disconnect();
  await env?.close();
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

test("checkpoints written with the watcher's password, garbage or refused by the API: a restarted watcher relists in full and converges", async () => {
  const asWatcher = new Redis(env.redis.port, '127.0.0.1', {
    username: aclUsername('watcher'),
    password: env.redisUsers.passwords.watcher,
    maxRetriesPerRequest: 1,
  });
  asWatcher.on('error', () => undefined);
  try {
    await env.kubectl(['apply', '-f', env.writeManifest('cp.yaml', [podSetManifest('cp', 1)])]);
    await env.waitConverged(['cp'], CONVERGE);
    const stopped = watcher;
    assert.equal((await stopped.stop(10_000)).code, 0, stopped.describe());
    const checkpoint = watcherKeyspace(prefix, queueName, 'unused').checkpoint;
    const streams = (await asWatcher.hkeys(checkpoint)).sort();
    assert.ok(streams.length > 1, 'the watcher kept a checkpoint per stream');
    // One stream's: no resourceVersion any API issues (a control character). The others': printable, so
    // resumed from (a resourceVersion is opaque), and refused by kube-sim as one it cannot parse.
    const [garbled, ...refused] = streams as [string, ...string[]];
    await asWatcher.hset(checkpoint, garbled, 'garbage\u0007');
    for (const stream of refused) await asWatcher.hset(checkpoint, stream, 'garbage');
    watcher = env.startWatcher('watcher-1');
    await env.kubectl(['scale', 'ps', 'cp', '--replicas=2']);
    await env.waitConverged(['cp'], CONVERGE);
    env.assertAllRunning([stopped]);
    const lines = readFileSync(path.join(env.logDir, 'watcher-1.log'), 'utf8').split('\n');
    const said = (stream: string, message: string) =>
      lines.some((l) => l.includes(message) && l.includes(`"stream":"${stream}"`));
    assert.ok(said(garbled, 'the checkpoint is out of bounds: relisting in full'), garbled);
    assert.ok(!lines.some((l) => l.includes('garbage\\u0007')), 'no watch resumed from the garbled value');
    for (const stream of refused) {
      assert.ok(said(stream, 'the API refused the checkpoint: relisting in full'), stream);
      assert.ok(said(stream, '"msg":"relisted"'), `${stream} relisted`);
    }
  } finally {
    asWatcher.disconnect();
  }
});
