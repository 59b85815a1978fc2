// Where a request's transaction is built: on the queue's own client, carrying BullMQ's add scripts and the
// merge script only (ioredis copies every script a client defines onto each transaction it makes), not on
// BullMQ's connection with all of its scripts; and back on BullMQ's connection when its add scripts are not
// found as expected. Real Redis, real BullMQ.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Queue, type RedisClient as BullClient } from 'bullmq';
import { Redis } from 'ioredis';
import { useRedis } from '@podset/testkit';
import { ReconcileQueue, bullKeys } from '../src/index.ts';
import { MERGE_COMMAND_NAME, addScriptsOf, transactionClient } from '../src/transaction-client.ts';

const redis = useRedis();
const raw = redis.client;
let queue: ReconcileQueue;

before(async () => {
  await redis.ready;
  queue = new ReconcileQueue({ connection: redis.url, queueName: 'txclient', prefix: '{podset}' });
});

after(async () => {
  await queue.close();
});

/** The scripts a client defines, by name (what ioredis copies onto each of its transactions). */
function definedScripts(client: unknown): Record<string, { lua: string }> {
  return (client as { scriptsSet: Record<string, { lua: string }> }).scriptsSet;
}

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

test('addScriptsOf: the add scripts by their full names, nothing else; none unless each a request may use is there', () => {
  const script = (lua: string) => ({ lua, numberOfKeys: 3 });
  const defined = {
    'addStandardJob:9.9.9': script('s'),
    'addDelayedJob:9.9.9': script('d'),
    'addPrioritizedJob:9.9.9': script('p'),
    'addParentJob:9.9.9': script('parent'),
    'addLog:9.9.9': script('log'),
    'moveToActive:9.9.9': script('m'),
    addStandardJobs: script('not an add of ours'),
  };
  const found = addScriptsOf(defined);
  assert.deepEqual([...(found?.keys() ?? [])].sort(), [
    'addDelayedJob:9.9.9',
    'addParentJob:9.9.9',
    'addPrioritizedJob:9.9.9',
    'addStandardJob:9.9.9',
  ]);
  assert.deepEqual(found?.get('addDelayedJob:9.9.9'), { lua: 'd', numberOfKeys: 3 });
  const without = (name: string) => Object.fromEntries(Object.entries(defined).filter(([n]) => n !== name));
  assert.equal(addScriptsOf(without('addDelayedJob:9.9.9')), undefined, 'a missing delayed add');
  assert.equal(addScriptsOf(without('addPrioritizedJob:9.9.9')), undefined, 'a missing prioritized add');
  assert.ok(addScriptsOf(without('addParentJob:9.9.9')), 'the parent add is not one a request uses');
  assert.equal(addScriptsOf({ ...defined, 'addDelayedJob:1.0.0': script('old') }), undefined, 'two versions');
  assert.equal(addScriptsOf({ ...defined, 'addStandardJob:9.9.9': { lua: 7 } }), undefined, 'not a script');
  assert.equal(addScriptsOf(undefined), undefined);
});

test("the transaction client is the queue's own, with BullMQ's add scripts (same text) and the merge script only", async () => {
  const own = new Redis(redis.url, { lazyConnect: true });
  const bullQueue = new Queue('txclient-defs', {
    connection: { url: redis.url, maxRetriesPerRequest: null },
  });
  try {
    const bull = await bullQueue.getBackend().client;
    const bullScripts = definedScripts(bull);
    assert.ok(Object.keys(bullScripts).length > 30, "BullMQ's connection defines all its scripts");
    const chosen = transactionClient(own, bull);
    assert.notEqual(chosen, bull, "the queue's own client, not BullMQ's connection");
    const mine = definedScripts(own);
    const names = Object.keys(mine).sort();
    assert.equal(names.length, 5, names.join(', '));
    assert.ok(names.includes(MERGE_COMMAND_NAME));
    for (const name of names.filter((n) => n !== MERGE_COMMAND_NAME)) {
      assert.match(name, /^add(Standard|Delayed|Prioritized|Parent)Job:/);
      assert.equal(
        sha1(mine[name]!.lua),
        sha1(bullScripts[name]!.lua),
        `${name}: the text the loader cached`,
      );
    }
    // Chosen again (a second queue on the same client): nothing defined twice.
    transactionClient(own, bull);
    assert.equal(Object.keys(definedScripts(own)).length, 5);
  } finally {
    await bullQueue.close();
    own.disconnect();
  }
});

test("without BullMQ's add scripts where expected, the transaction stays on BullMQ's connection", () => {
  const defined: string[] = [];
  const bull = {
    scriptsSet: { 'addStandardJob:9.9.9': { lua: 's', numberOfKeys: 3 } },
    defineCommand: (name: string) => void defined.push(name),
  } as unknown as BullClient;
  const own = new Redis({ lazyConnect: true });
  try {
    const chosen = transactionClient(own, bull);
    assert.equal(chosen, bull);
    assert.deepEqual(defined, [MERGE_COMMAND_NAME], 'the merge script defined where the transaction runs');
    assert.deepEqual(Object.keys(definedScripts(own)), [], 'nothing defined on the own client');
  } finally {
    own.disconnect();
  }
});

test("requests that add (prioritized, delayed) land, and BullMQ's connection makes no transaction for them", async () => {
  const bull = await queue.queue.getBackend().client;
  let bullTransactions = 0;
  const multi = bull.multi.bind(bull);
  bull.multi = ((...args: Parameters<BullClient['multi']>) => {
    bullTransactions++;
    return multi(...args);
  }) as BullClient['multi'];
  const live = await queue.request('ns/tx-live', { source: 'live' });
  const later = await queue.request('ns/tx-later', { source: 'bulk', delayMs: 60_000 });
  const [a, b] = await queue.requestAll([
    { key: 'ns/tx-a', opts: { source: 'live' } },
    { key: 'ns/tx-b', opts: { source: 'bulk' } },
  ]);
  assert.deepEqual(
    [live, later, a!, b!].map((r) => r.outcome),
    ['created', 'created', 'created', 'created'],
  );
  const K = bullKeys('{podset}:txclient:');
  assert.notEqual(await raw.zscore(K.prioritized, live.jobId), null);
  assert.notEqual(await raw.zscore(K.delayed, later.jobId), null);
  assert.notEqual(await raw.zscore(K.prioritized, b!.jobId), null);
  assert.equal(bullTransactions, 0);
});

test("a queue given the caller's client builds its transactions there and leaves it connected on close", async () => {
  const shared = new Redis(redis.url);
  const own = new ReconcileQueue({
    connection: redis.url,
    client: shared,
    queueName: 'txshared',
    prefix: '{podset}',
  });
  try {
    const r = await own.request('ns/shared', { source: 'live' });
    assert.equal(r.outcome, 'created');
    assert.ok(
      MERGE_COMMAND_NAME in definedScripts(shared),
      "the transaction was built on the caller's client",
    );
    await own.close();
    assert.equal(await shared.ping(), 'PONG', 'still connected');
  } finally {
    shared.disconnect();
  }
});
