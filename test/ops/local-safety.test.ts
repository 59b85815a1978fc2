// Local development as safe as a cluster: the Redis that `npm run demo` and `npm run operator` start
// requires a password made for the run and gives each app a user of its own, and an app outside a cluster serves its metrics and probes on
// 127.0.0.1 only (HTTP_HOST=0.0.0.0, as the manifests set, opens them to the network).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { freePort } from '@podset/testkit';
import { operatorScripts } from '../../apps/redis-init/src/redis-scripts.ts';
import { demoRedis } from '../../tools/demo/src/redis.ts';
import { startEnv, type OperatorEnv } from '../e2e/support/harness.ts';
import { waitForLog } from './support.ts';

test('the demo/operator redis-server refuses a client without its password', async () => {
  const redis = await demoRedis({});
  try {
    const url = new URL(redis.url);
    assert.ok(url.password.length >= 24, 'a generated password is in the URL the apps get');
    assert.ok(!redis.shown.includes(url.password), 'the banner does not show it');
    const anonymous = new Redis(Number(url.port), '127.0.0.1', {
      maxRetriesPerRequest: 1,
      lazyConnect: true,
    });
    anonymous.on('error', () => undefined);
    await assert.rejects(() => anonymous.ping(), /NOAUTH/);
    anonymous.disconnect();
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    assert.equal(await client.ping(), 'PONG');
    client.disconnect();
    // Each app gets a user of its own: the dashboard's may not write.
    const dashboardEnv = redis.appEnv('dashboard');
    assert.equal(dashboardEnv.REDIS_USERNAME, 'podset-dashboard');
    assert.ok(!(dashboardEnv.REDIS_URL ?? '').includes('@'), 'the apps get the password apart from the URL');
    const dashboard = new Redis(dashboardEnv.REDIS_URL!, {
      username: dashboardEnv.REDIS_USERNAME!,
      password: dashboardEnv.REDIS_PASSWORD!,
      maxRetriesPerRequest: 1,
    });
    await assert.rejects(() => dashboard.set('podset:podset-reconcile:wait', 'x'), /NOPERM/);
    dashboard.disconnect();
  } finally {
    await redis.close();
  }
});

test('the demo/operator redis-server has its passwords from an ACL file, not --requirepass; the apps may not read its configuration; the scripts are cached', async () => {
  const redis = await demoRedis({});
  const clients: Redis[] = [];
  try {
    const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    clients.push(admin);
    // requirepass is what CONFIG GET would have shown anyone allowed it: the default user's password.
    assert.deepEqual(await admin.config('GET', 'requirepass'), ['requirepass', '']);
    assert.match(String(await admin.config('GET', 'aclfile')), /users\.acl/);
    for (const app of ['watcher', 'worker', 'dashboard'] as const) {
      const env = redis.appEnv(app);
      const client = new Redis(env.REDIS_URL!, {
        username: env.REDIS_USERNAME!,
        password: env.REDIS_PASSWORD!,
        maxRetriesPerRequest: 1,
      });
      clients.push(client);
      await assert.rejects(() => client.config('GET', 'requirepass'), /NOPERM/, `${app}: CONFIG GET`);
      await assert.rejects(() => client.eval('return 1', 0), /NOPERM/, `${app}: EVAL`);
    }
    // The loader ran beside it: every script of the operator is cached before the apps start.
    const scripts = await operatorScripts();
    const cached = (await admin.script('EXISTS', ...scripts.map((s) => s.sha))) as number[];
    assert.deepEqual(
      cached,
      scripts.map(() => 1),
    );
  } finally {
    for (const c of clients) c.disconnect();
    await redis.close();
  }
});

let env: OperatorEnv;
before(async () => {
  env = await startEnv({ name: 'local-safety' });
});
after(async () => {
  await env?.close();
});

for (const { host, expected } of [
  { host: undefined, expected: '127.0.0.1' },
  { host: '0.0.0.0', expected: '0.0.0.0' },
]) {
  test(`a worker outside a cluster with HTTP_HOST ${host ?? 'unset'} serves its probes on ${expected}`, async () => {
    const port = await freePort();
    const worker = env.startWorker(`worker-host-${expected}`, {
      HTTP_PORT: String(port),
      ...(host !== undefined ? { HTTP_HOST: host } : {}),
    });
    const started = await waitForLog(worker, 'worker started');
    assert.equal(started.httpHost, expected, JSON.stringify(started));
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
    assert.equal((await worker.stop(10_000)).code, 0, worker.describe());
  });
}
