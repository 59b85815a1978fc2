import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Registry } from 'prom-client';
import { startOpsServer, type Readiness } from './ops-server.ts';

test('/healthz, /readyz (200, 503, a failing check) and /metrics', async () => {
  const registry = new Registry();
  new Counter({ name: 'podset_test_total', help: 'a test counter', registers: [registry] }).inc(3);
  let next: () => Promise<Readiness> = async () => ({ ready: true, lines: ['redis: ok'] });
  const server = await startOpsServer({ port: 0, host: '127.0.0.1', registry, readiness: () => next() });
  const get = async (path: string) => {
    const r = await fetch(`http://127.0.0.1:${server.port}${path}`);
    return { status: r.status, body: await r.text() };
  };
  try {
    assert.deepEqual(await get('/healthz'), { status: 200, body: 'ok\n' });
    assert.deepEqual(await get('/readyz'), { status: 200, body: 'redis: ok\n' });
    next = async () => ({ ready: false, lines: ['redis: connection refused'] });
    assert.deepEqual(await get('/readyz'), { status: 503, body: 'redis: connection refused\n' });
    next = () => Promise.reject(new Error('probe broke\nstack'));
    assert.deepEqual(await get('/readyz'), { status: 503, body: 'not ready\nprobe broke\n' });
    const metrics = await get('/metrics');
    assert.equal(metrics.status, 200);
    assert.match(metrics.body, /^podset_test_total 3$/m);
    assert.equal((await get('/nope')).status, 404);
  } finally {
    await server.close();
  }
});
