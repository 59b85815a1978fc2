import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Registry } from 'prom-client';
import { FakeClock } from '@podset/testkit';
import { ListenError } from './listen-error.ts';
import { OpsManager } from './ops-server.ts';

function manager(clock = new FakeClock()) {
  const registry = new Registry();
  new Counter({ name: 'podset_test_total', help: 'a test counter', registers: [registry] }).inc(3);
  return { ops: new OpsManager({ registry, clock }), registry, clock };
}

const refused = () => Promise.reject(new Error('connect ECONNREFUSED\n    at stack'));

test('/readyz runs the named checks in order: 200 listing them, or 503 naming the failing one', async () => {
  const { ops } = manager();
  let redisUp = true;
  ops
    .addReadyzCheck('redis', () => (redisUp ? Promise.resolve() : refused()))
    .addReadyzCheck('kubernetes', () => Promise.resolve())
    .addReadyzInfo('leader', () => false);
  assert.deepEqual(await ops.answer('/readyz'), {
    status: 200,
    type: 'text/plain; charset=utf-8',
    body: 'ok\nredis: ok\nkubernetes: ok\nleader: false\n',
  });
  redisUp = false;
  assert.deepEqual(await ops.answer('/readyz'), {
    status: 503,
    type: 'text/plain; charset=utf-8',
    body: 'failed: redis\nredis: connect ECONNREFUSED\nkubernetes: ok\nleader: false\n',
  });
  // Liveness does not run the readiness checks: only ping.
  assert.deepEqual(await ops.answer('/healthz'), {
    status: 200,
    type: 'text/plain; charset=utf-8',
    body: 'ok\nping: ok\n',
  });
});

test('?verbose answers in Kubernetes’ [+]/[-] lines', async () => {
  const { ops } = manager();
  ops.addReadyzCheck('redis', () => Promise.resolve()).addReadyzCheck('kubernetes', refused);
  assert.deepEqual(await ops.answer('/readyz?verbose'), {
    status: 503,
    type: 'text/plain; charset=utf-8',
    body: '[+]redis ok\n[-]kubernetes failed: connect ECONNREFUSED\nreadyz check failed\n',
  });
  assert.equal((await ops.answer('/healthz?verbose'))?.body, '[+]ping ok\nhealthz check passed\n');
});

test('/readyz/<name> and /healthz/<name> run one check; an unknown name is 404', async () => {
  const { ops } = manager();
  ops
    .addReadyzCheck('redis', () => Promise.resolve())
    .addReadyzCheck('queue', () => {
      throw new Error('paused: no reconcile runs');
    });
  assert.deepEqual(await ops.answer('/readyz/redis'), {
    status: 200,
    type: 'text/plain; charset=utf-8',
    body: 'ok\n',
  });
  assert.deepEqual(await ops.answer('/readyz/queue'), {
    status: 503,
    type: 'text/plain; charset=utf-8',
    body: 'paused: no reconcile runs\n',
  });
  assert.equal((await ops.answer('/readyz/nope'))?.status, 404);
  assert.equal((await ops.answer('/healthz/ping'))?.status, 200);
  // A readiness check is not a liveness one.
  assert.equal((await ops.answer('/healthz/redis'))?.status, 404);
  assert.equal(await ops.answer('/readyz/redis/more'), undefined);
  assert.equal(await ops.answer('/other'), undefined);
});

test('a check that does not answer fails after its timeout, its signal aborted', async () => {
  const { ops, clock } = manager();
  let signal: AbortSignal | undefined;
  ops.addReadyzCheck(
    'kubernetes',
    (s) => {
      signal = s;
      return new Promise<void>(() => undefined);
    },
    { timeoutMs: 3_000 },
  );
  const answer = ops.answer('/readyz');
  while (clock.sleepers === 0) await new Promise((r) => setImmediate(r));
  await clock.advance(2_999);
  assert.equal(signal?.aborted, false);
  await clock.advance(1);
  assert.deepEqual(await answer, {
    status: 503,
    type: 'text/plain; charset=utf-8',
    body: 'failed: kubernetes\nkubernetes: no answer in 3000 ms\n',
  });
  assert.equal(signal?.aborted, true);
});

test('a check that settles when its signal aborts decides the result itself', async () => {
  const { ops, clock } = manager();
  ops.addReadyzCheck(
    'redis',
    (signal) =>
      new Promise<void>((_, reject) =>
        signal.addEventListener('abort', () => reject(new Error('not connected (reconnecting)'))),
      ),
    { timeoutMs: 2_000 },
  );
  ops.addReadyzCheck(
    'queue',
    (signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())),
    { timeoutMs: 2_000 },
  );
  const answer = ops.answer('/readyz');
  while (clock.sleepers < 2) await new Promise((r) => setImmediate(r));
  await clock.advance(2_000);
  assert.equal((await answer)?.body, 'failed: redis\nredis: not connected (reconnecting)\nqueue: ok\n');
});

test('reuseMs: requests share a running check and reuse its result until it is that old', async () => {
  const { ops, clock } = manager();
  let runs = 0;
  let release: () => void = () => undefined;
  ops.addReadyzCheck(
    'redis',
    () => {
      runs++;
      return new Promise<void>((resolve) => (release = resolve));
    },
    { reuseMs: 1_000 },
  );
  const first = ops.answer('/readyz/redis');
  const second = ops.answer('/readyz');
  await new Promise((r) => setImmediate(r));
  release();
  assert.equal((await first)?.status, 200);
  assert.equal((await second)?.status, 200);
  assert.equal(runs, 1, 'one run for two requests while it ran');
  await clock.advance(999);
  await ops.answer('/readyz');
  assert.equal(runs, 1, 'reused within reuseMs');
  await clock.advance(1);
  const third = ops.answer('/readyz');
  await new Promise((r) => setImmediate(r));
  release();
  await third;
  assert.equal(runs, 2, 'run again once the result is reuseMs old');
});

test('a name is registered once and is [a-z0-9-]+', () => {
  const { ops } = manager();
  ops.addReadyzCheck('redis', () => Promise.resolve());
  assert.throws(() => ops.addReadyzCheck('redis', () => Promise.resolve()), /redis is registered twice/);
  assert.throws(() => ops.addReadyzInfo('redis', () => 1), /registered twice/);
  assert.throws(() => ops.addHealthzCheck('ping', () => Promise.resolve()), /registered twice/);
  assert.throws(() => ops.addReadyzCheck('Bad name', () => Promise.resolve()), /not \[a-z0-9-\]\+/);
  // The same name on both endpoints is allowed, as in controller-runtime.
  ops.addHealthzCheck('redis', () => Promise.resolve());
});

test('served over HTTP: /metrics in the registry’s content type, 404 elsewhere, a taken port named', async () => {
  const { ops, registry } = manager();
  ops.addReadyzCheck('redis', refused);
  const server = await ops.listen({ port: 0, host: '127.0.0.1' });
  try {
    const url = `http://127.0.0.1:${server.port}`;
    const metrics = await fetch(`${url}/metrics`);
    assert.equal(metrics.status, 200);
    assert.equal(metrics.headers.get('content-type'), registry.contentType);
    assert.match(await metrics.text(), /^podset_test_total 3$/m);
    const ready = await fetch(`${url}/readyz`);
    assert.equal(ready.status, 503);
    assert.match(await ready.text(), /^redis: connect ECONNREFUSED$/m);
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    const other = await fetch(`${url}/nope`);
    assert.deepEqual([other.status, await other.text()], [404, 'not found\n']);
    await assert.rejects(
      manager().ops.listen({ port: server.port, host: '127.0.0.1', setting: 'DASHBOARD_PORT' }),
      (err: unknown) =>
        err instanceof ListenError &&
        err.message ===
          `port ${server.port} on 127.0.0.1 is already in use by another process: choose another with DASHBOARD_PORT`,
    );
  } finally {
    await server.close();
  }
});
