// Values the worker reads from Redis are bounded: a client holding only the worker's password (the shipped
// ACL file) writes a park record until 2100 and one until 9e15 (past what a Date holds), an expectation that
// never expires, the queue's global concurrency at 0 and the queue's `paused`; a client holding the
// watcher's writes an epoch counter that is no number. Real watcher and worker processes, each as its own
// Redis user, kube-sim over HTTP. Each PodSet still converges (or is deleted, its finalizer done) within the
// normal backoff; the worker logs each such value by its key (never the value) and counts it on /metrics;
// the pause is not undone by the worker but alerted (podset_queue_paused, /readyz, a log line).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import { aclUsername, type AppUser } from '@podset/redis';
import { parkedPrefixOf, sendScriptsBySha } from '@podset/redis';
import { ProjectionReader } from '@podset/state';
import { freePort } from '@podset/testkit';
import { activePodsOf } from './support/check.ts';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';

const prefix = DEFAULT_PREFIX;
const queueName = DEFAULT_QUEUE_NAME;
const META = `${prefix}:${queueName}:meta`;
/** Within the normal backoff: a reconcile retried a few times, not parked for PARKED_RETRY_SECONDS. */
const CONVERGE = { timeoutMs: 60_000 };

let env: OperatorEnv;
let metricsPort: number;
let asWorker: Redis;
let asWatcher: Redis;
let projection: ProjectionReader;

function as(app: AppUser): Redis {
  // Cached scripts by sha, as the apps send them (the users may not EVAL; they may EVALSHA).
  const client = sendScriptsBySha(
    new Redis(env.redis.port, '127.0.0.1', {
      username: aclUsername(app),
      password: env.redisUsers.passwords[app],
      maxRetriesPerRequest: 1,
    }),
  );
  client.on('error', () => undefined);
  return client;
}

before(async () => {
  env = await startEnv({ name: 'redis-bounds', redisAcl: true });
  await applyCrd(env);
  metricsPort = await freePort();
  // Each app as its own Redis user (the harness's redisAcl).
  env.startWatcher('watcher-0');
  env.startWorker('worker-0', { HTTP_PORT: String(metricsPort) });
  asWorker = as('worker');
  asWatcher = as('watcher');
  projection = new ProjectionReader({ client: asWorker, prefix, queueName });
});
after(async () => {
  asWorker?.disconnect();
  asWatcher?.disconnect();
  await env?.close();
});

const apply = (file: string, objects: unknown[]) =>
  env.kubectl(['apply', '-f', env.writeManifest(file, objects)]);
const podsOf = (name: string) => activePodsOf(env.podSet(name)!, env.pods());

async function deleteOnePod(name: string): Promise<void> {
  const victim = podsOf(name)[0]!.metadata.name as string;
  await env.kubectl(['delete', 'pod', victim, '--wait=false']);
}

async function metrics(): Promise<string> {
  return await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
}

async function outOfBounds(what: string): Promise<number> {
  const m = new RegExp(`^podset_redis_value_out_of_bounds_total\\{what="${what}"\\} (\\S+)$`, 'm').exec(
    await metrics(),
  );
  return Number(m?.[1] ?? NaN);
}

function workerLog(): string[] {
  return readFileSync(path.join(env.logDir, 'worker-0.log'), 'utf8').split('\n');
}

/** A park record as a worker writes it, for PodSet `name` as the API has it now, with `until`. */
function parkRecord(name: string, until: number): string {
  const ps = env.podSet(name)!;
  return JSON.stringify({ uid: ps.metadata.uid, generation: ps.metadata.generation ?? 1, until });
}

test('a park record until 2100 or 9e15 is ignored: the PodSet is reconciled, the record logged by key and counted', async () => {
  await apply('park.yaml', [podSetManifest('bpark2100', 2), podSetManifest('bpark9e15', 2)]);
  await env.waitConverged(['bpark2100', 'bpark9e15'], CONVERGE);
  const parked = parkedPrefixOf(prefix, queueName);
  await asWorker.set(`${parked}default/bpark2100`, parkRecord('bpark2100', Date.UTC(2100, 0, 1)));
  await asWorker.set(`${parked}default/bpark9e15`, parkRecord('bpark9e15', 9e15));
  for (const name of ['bpark2100', 'bpark9e15']) await deleteOnePod(name);
  await env.waitConverged(['bpark2100', 'bpark9e15'], CONVERGE);
  await env.waitFor('both park records counted', async () =>
    (await outOfBounds('park')) >= 2 ? [] : [`park ${await outOfBounds('park')}`],
  );
  const lines = workerLog().filter((l) => l.includes('out of bounds'));
  for (const name of ['bpark2100', 'bpark9e15']) {
    assert.ok(
      lines.some((l) => l.includes(`default/${name}`)),
      `${name} logged by its key`,
    );
  }
  assert.ok(
    !lines.some((l) => l.includes('4102444800000') || l.includes('9000000000000000')),
    'no value logged',
  );
  assert.ok(!workerLog().some((l) => l.includes('Invalid time value')), 'no reconcile failed on the record');
});

test('an expectation that never expires holds neither a reconcile nor a deletion: the finalizer is removed', async () => {
  await apply('exp.yaml', [podSetManifest('bexp', 2), podSetManifest('bexpdel', 2)]);
  await env.waitConverged(['bexp', 'bexpdel'], CONVERGE);
  const before = await outOfBounds('expectation');
  for (const name of ['bexp', 'bexpdel']) {
    await asWorker.hset(projection.keys(`default/${name}`).expect, 'ghost', `c${9e15}\t1`);
  }
  await deleteOnePod('bexp');
  await env.waitConverged(['bexp'], CONVERGE);
  await env.kubectl(['delete', 'podset', 'bexpdel', '--wait=false']);
  await env.waitFor(
    'bexpdel deleted (its finalizer removed) and its pods gone',
    () => {
      const left = env
        .pods()
        .filter((p) => p.metadata.name?.startsWith('bexpdel-') && p.metadata.deletionTimestamp === undefined);
      return [
        ...(env.podSet('bexpdel') === undefined ? [] : ['bexpdel still there']),
        ...left.map((p) => `pod ${p.metadata.name} left`),
      ];
    },
    CONVERGE,
  );
  assert.ok((await outOfBounds('expectation')) >= before + 2, 'both counted');
});

test('an epoch counter that is no number (watcher password) does not fail the reconcile that records a create', async () => {
  await apply('epoch.yaml', [podSetManifest('bepoch', 2)]);
  await env.waitConverged(['bepoch'], CONVERGE);
  const counter = projection.keyspace.epoch('pods/*');
  const saved = await asWatcher.get(counter);
  await asWatcher.set(counter, 'not-a-number');
  try {
    await deleteOnePod('bepoch');
    await env.waitConverged(['bepoch'], CONVERGE);
    await env.waitFor('the counter counted', async () =>
      (await outOfBounds('epoch')) >= 1 ? [] : ['not yet'],
    );
    assert.equal(podsOf('bepoch').length, 2, 'one replacement, not two');
  } finally {
    if (saved === null) await asWatcher.del(counter);
    else await asWatcher.set(counter, saved);
  }
});

test("a global concurrency of 0 in the queue's meta is removed and counted: reconciles go on", async () => {
  await apply('conc.yaml', [podSetManifest('bconc', 2)]);
  await env.waitConverged(['bconc'], CONVERGE);
  await asWorker.hset(META, 'concurrency', '0');
  await env.waitFor('the setting removed', async () =>
    (await asWorker.hexists(META, 'concurrency')) === 0 ? [] : ['still set'],
  );
  await deleteOnePod('bconc');
  await env.waitConverged(['bconc'], CONVERGE);
  assert.ok((await outOfBounds('queue-setting')) >= 1);
  assert.ok(workerLog().some((l) => l.includes('out of bounds') && l.includes('"setting":"concurrency"')));
});

test('a paused queue is alerted, not undone: podset_queue_paused 1, /readyz says why, a log line; resumed, work goes on', async () => {
  await apply('pause.yaml', [podSetManifest('bpause', 2)]);
  await env.waitConverged(['bpause'], CONVERGE);
  await asWorker.hset(META, 'paused', '1');
  try {
    await env.waitFor('the pause alerted', async () => {
      const text = await metrics();
      const ready = await fetch(`http://127.0.0.1:${metricsPort}/readyz`);
      const body = await ready.text();
      return [
        ...(/^podset_queue_paused 1$/m.test(text) ? [] : ['podset_queue_paused not 1']),
        ...(ready.status === 503 && body.includes('queue: paused')
          ? []
          : [`readyz ${ready.status}: ${body}`]),
      ];
    });
    assert.equal(await asWorker.hget(META, 'paused'), '1', 'the worker leaves a pause in place');
    assert.ok(workerLog().some((l) => l.includes('the reconcile queue is paused')));
  } finally {
    // As the dashboard's Resume does: requests that came meanwhile go back to the waiting list.
    const queue = new Queue(queueName, { connection: asWorker, prefix });
    await queue.resume();
    await queue.close();
  }
  await env.waitFor('the pause over', async () => {
    const ready = await fetch(`http://127.0.0.1:${metricsPort}/readyz`);
    return ready.status === 200 && /^podset_queue_paused 0$/m.test(await metrics())
      ? []
      : [`readyz ${ready.status}`];
  });
  await deleteOnePod('bpause');
  await env.waitConverged(['bpause'], CONVERGE);
  env.assertAllRunning();
});
