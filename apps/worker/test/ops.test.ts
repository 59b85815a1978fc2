// The worker's readiness checks against a real Redis, on a fake clock: their order, `worker: stopping` at
// once (never a reused result), a paused queue named, an unreadable queue left to the redis check, and the
// API's result reused for a second.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { urlConnector } from '@podset/redis';
import { FakeClock, useRedis } from '@podset/testkit';
import { Registry } from 'prom-client';
import { workerOps } from '../src/ops.ts';

const redis = useRedis();
const closers: (() => void)[] = [];
after(() => {
  for (const close of closers) close();
});

test('checks in order; stopping shows at once; a paused queue is named; the API result is reused for 1 s', async () => {
  await redis.ready;
  const clock = new FakeClock();
  const state = { working: true, apiUp: true, apiCalls: 0, queue: undefined as string | undefined | Error };
  const w = workerOps({
    registry: new Registry(),
    clock,
    redis: urlConnector(redis.url),
    kubeConfig: new KubeConfig(),
    userAgent: 'test',
    working: () => state.working,
    checkApi: async () => {
      state.apiCalls++;
      if (!state.apiUp) throw new Error('connect ECONNREFUSED');
    },
    checkQueue: async () => {
      if (state.queue instanceof Error) throw state.queue;
      return state.queue;
    },
  });
  closers.push(w.close);
  const readyz = async () => (await w.ops.answer('/readyz'))!;
  assert.deepEqual(await readyz(), {
    status: 200,
    type: 'text/plain; charset=utf-8',
    body: 'ok\nredis: ok\nkubernetes: ok\nworker: ok\nqueue: ok\n',
  });
  // Reused: the API is down, but its last answer is younger than a second.
  state.apiUp = false;
  assert.equal((await readyz()).status, 200);
  assert.equal(state.apiCalls, 1);
  // Stopping wins over every reused result.
  state.working = false;
  assert.deepEqual(
    [(await readyz()).status, (await w.ops.answer('/readyz/worker'))?.body],
    [503, 'stopping\n'],
  );
  state.working = true;
  await clock.advance(1_000);
  const apiDown = await readyz();
  assert.equal(apiDown.status, 503);
  assert.match(apiDown.body, /^failed: kubernetes\nredis: ok\nkubernetes: connect ECONNREFUSED\n/);
  state.apiUp = true;
  state.queue = 'paused: no reconcile runs until it is resumed';
  await clock.advance(1_000);
  assert.deepEqual(await w.ops.answer('/readyz/queue'), {
    status: 503,
    type: 'text/plain; charset=utf-8',
    body: 'paused: no reconcile runs until it is resumed\n',
  });
  // A queue whose settings cannot be read is not the queue check's to fail.
  state.queue = new Error('NOPERM');
  await clock.advance(1_000);
  assert.equal((await readyz()).status, 200);
});
