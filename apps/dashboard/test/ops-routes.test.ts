// The dashboard's operations endpoint on both its ports: behind authentication on the UI port, without it
// on the probe port (HTTP_PORT), with the named checks, ?verbose and /readyz/<name> on each.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Kube } from '@podset/kube';
import { useRedis } from '@podset/testkit';
import { silentLogger } from '@podset/log';
import { startDashboard } from '../src/server.ts';
import { bearer, dashboardSettings } from './support.ts';

let apiUp = true;
const fakeKube = {
  client: { server: 'fake' },
  podSets: {
    list: () =>
      apiUp ? Promise.resolve({ items: [], metadata: {} }) : Promise.reject(new Error('API away')),
    listAll: () => Promise.resolve({ items: [], metadata: {} }),
  },
} as unknown as Kube;
const redis = useRedis();
const running: { close(): Promise<void> }[] = [];
after(async () => {
  for (const d of running) await d.close();
});

test('/healthz, /readyz (named, verbose, one check) and /metrics on the UI port and the probe port', async () => {
  await redis.ready;
  const d = await startDashboard(
    { ...dashboardSettings(redis.url), httpPort: -1 },
    { log: silentLogger, kube: fakeKube },
  );
  running.push(d);
  const probes = `http://127.0.0.1:${d.httpPort}`;
  const get = async (url: string, headers: Record<string, string> = {}) => {
    const r = await fetch(url, { headers });
    return { status: r.status, body: await r.text(), type: r.headers.get('content-type') };
  };
  for (const [base, headers] of [
    [d.url, bearer],
    [probes, {}],
  ] as const) {
    assert.deepEqual(await get(`${base}/readyz`, headers), {
      status: 200,
      body: 'ok\nredis: ok\nkubernetes: ok\n',
      type: 'text/plain; charset=utf-8',
    });
    assert.equal(
      (await get(`${base}/readyz?verbose`, headers)).body,
      '[+]redis ok\n[+]kubernetes ok\nreadyz check passed\n',
    );
    assert.equal((await get(`${base}/readyz/redis`, headers)).body, 'ok\n');
    assert.equal((await get(`${base}/readyz/nope`, headers)).status, 404);
    assert.equal((await get(`${base}/healthz/ping`, headers)).status, 200);
    assert.match(
      (await get(`${base}/metrics`, headers)).body,
      /^podset_dashboard_dependency_up\{dependency="redis"\} 1$/m,
    );
  }
  // The UI port asks for credentials on every path of the endpoint; the probe port never does.
  for (const path of ['/healthz', '/readyz', '/readyz/redis', '/healthz/ping', '/metrics']) {
    assert.equal((await get(`${d.url}${path}`)).status, 401, path);
  }
  apiUp = false;
  const down = await get(`${probes}/readyz/kubernetes`);
  assert.deepEqual([down.status, down.body], [503, 'API away\n']);
  assert.match((await get(`${d.url}/readyz`, bearer)).body, /^failed: kubernetes$/m);
});
