// Redis as deployed by default: with a password (given to the apps as REDIS_PASSWORD, merged into a
// REDIS_URL without one) and noeviction. The apps as processes against kube-sim converge a PodSet applied
// with kubectl; a wrong or missing password, a malformed REDIS_URL carrying one, and a Redis that would
// evict keys each stop the app at start (exit 2) with a message that names the fix and never the password.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { useRedis } from '@podset/testkit';
import { dashboardUrl, newToken, startDashboardProc, waitForLog } from '../ops/support.ts';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv, type Proc } from './support/harness.ts';

const PASSWORD = 'pw-' + newToken();
const WRONG = 'wrong-' + newToken();

async function exitOf(p: Proc): Promise<{ code: number | null; output: string }> {
  const timer = setTimeout(() => void p.stop(1_000), 60_000);
  const { code } = await p.exited;
  clearTimeout(timer);
  return { code, output: p.lines().join('\n') };
}

let env: OperatorEnv;
let address: string;
before(async () => {
  env = await startEnv({ name: 'redis-auth', redis: { password: PASSWORD } });
  address = `redis://127.0.0.1:${env.redis.port}`;
  await applyCrd(env);
});
after(async () => {
  await env?.close();
});

test('with REDIS_PASSWORD the apps authenticate, check the policy, a PodSet converges and the dashboard shows it', async () => {
  const auth = { REDIS_URL: address, REDIS_PASSWORD: PASSWORD };
  const watcher = env.startWatcher('watcher-auth', auth);
  const worker = env.startWorker('worker-auth', auth);
  const checked = await waitForLog(worker, 'redis maxmemory-policy is noeviction');
  assert.deepEqual(checked.nodes, [address], 'the one node checked, named without its password');
  await env.kubectl(['apply', '-f', env.writeManifest('auth.yaml', [podSetManifest('with-auth', 3)])]);
  await env.waitConverged(['with-auth'], { timeoutMs: 90_000 });
  // The dashboard reads the queue and the event log from the same Redis, with the same password.
  const token = newToken();
  const dashboard = startDashboardProc(env, 'dashboard-auth', {
    ...auth,
    DASHBOARD_TOKEN: token,
    HTTP_PORT: '0',
  });
  const res = await fetch(`${await dashboardUrl(dashboard)}/api/overview`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const overview = (await res.json()) as { podSets: { name: string }[]; errors?: string[] };
  assert.equal(res.status, 200, JSON.stringify(overview));
  assert.deepEqual(overview.errors ?? [], [], 'the dashboard reads Redis (queue, event log) and the API');
  assert.ok(
    overview.podSets.some((p) => p.name === 'with-auth'),
    JSON.stringify(overview),
  );
  for (const p of [watcher, worker, dashboard]) {
    assert.ok(p.running, p.describe());
    assert.ok(!p.lines().some((l) => l.includes(PASSWORD)), `${p.name} never logs the password`);
  }
  for (const p of [watcher, worker, dashboard]) assert.equal((await p.stop(10_000)).code, 0, p.describe());
});

describe('refused at start: exit 2, the fix named, the password never printed', () => {
  const starts = [
    { app: 'worker', start: (n: string, e: Record<string, string>) => env.startWorker(n, e) },
    { app: 'watcher', start: (n: string, e: Record<string, string>) => env.startWatcher(n, e) },
    {
      app: 'dashboard',
      start: (n: string, e: Record<string, string>) =>
        startDashboardProc(env, n, { DASHBOARD_TOKEN: newToken(), HTTP_PORT: '0', ...e }),
    },
  ];
  let n = 0;
  for (const { app, start } of starts) {
    test(`${app}: a wrong password names REDIS_URL / REDIS_PASSWORD`, async () => {
      const r = await exitOf(start(`${app}-wrong-${++n}`, { REDIS_URL: address, REDIS_PASSWORD: WRONG }));
      assert.equal(r.code, 2, r.output);
      assert.match(r.output, /refused the credentials/);
      assert.match(r.output, /REDIS_URL or REDIS_PASSWORD/);
      assert.ok(!r.output.includes(WRONG) && !r.output.includes(PASSWORD), r.output);
    });
  }

  test('worker: no password at all (NOAUTH) is the same clear refusal', async () => {
    const r = await exitOf(env.startWorker('worker-nopass', { REDIS_URL: address }));
    assert.equal(r.code, 2, r.output);
    assert.match(r.output, /NOAUTH/);
    assert.match(r.output, /REDIS_URL or REDIS_PASSWORD/);
  });

  for (const bad of [
    `redis://:${PASSWORD}@127.0.0.1:port`,
    `redis//:${PASSWORD}@127.0.0.1:6379`,
    `http://user:${PASSWORD}@127.0.0.1:6379`,
  ]) {
    test(`worker: an invalid REDIS_URL with a password (${bad.replace(PASSWORD, '…')}) is echoed redacted`, async () => {
      const r = await exitOf(env.startWorker(`worker-badurl-${++n}`, { REDIS_URL: bad }));
      assert.equal(r.code, 2, r.output);
      assert.match(r.output, /REDIS_URL/);
      assert.ok(!r.output.includes(PASSWORD), r.output);
    });
  }
});

describe('a Redis that may evict keys', () => {
  const evicting = useRedis({ args: ['--maxmemory-policy', 'volatile-lru'] });

  for (const app of ['worker', 'watcher'] as const) {
    test(`${app} refuses to start, naming maxmemory-policy and noeviction`, async () => {
      const start = app === 'worker' ? env.startWorker.bind(env) : env.startWatcher.bind(env);
      const r = await exitOf(start(`${app}-lru`, { REDIS_URL: evicting.url }));
      assert.equal(r.code, 2, r.output);
      assert.match(r.output, /maxmemory-policy volatile-lru/);
      assert.match(r.output, /noeviction/);
    });
  }

  test('REDIS_SKIP_EVICTION_CHECK=true starts anyway, with a warning', async () => {
    const worker = env.startWorker('worker-skip', {
      REDIS_URL: evicting.url,
      REDIS_SKIP_EVICTION_CHECK: 'true',
    });
    await waitForLog(worker, 'worker started');
    assert.ok(
      worker.lines().some((l) => l.includes('REDIS_SKIP_EVICTION_CHECK is set')),
      worker.describe(),
    );
    assert.equal((await worker.stop(10_000)).code, 0, worker.describe());
  });
});
