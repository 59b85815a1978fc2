// Start-up with a bad environment: a missing or malformed variable or kubeconfig is a usage error
// (exit 2) whose message names the variable; Redis unreachable at start or lost mid-run, a wrong
// token and a CRD not installed are waited out with a clear message, and work resumes once fixed.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { KubeObject } from '@podset/kube-sim';
import { freePort, startRedis, type RedisServer } from '@podset/testkit';
import { PODSETS } from '../e2e/support/check.ts';
import { applyCrd, podSetManifest, type OperatorEnv, type Proc } from '../e2e/support/harness.ts';
import { healthyStillConverges, problemsOf, startCatalog, writeKubeconfig } from './support/catalog.ts';

async function exitOf(proc: Proc, ms = 30_000): Promise<{ code: number | null; output: string }> {
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), ms);
  const exit = await proc.exited;
  clearTimeout(timer);
  return { code: exit.code, output: proc.tail(40) };
}

function create(env: OperatorEnv, name: string, replicas: number): void {
  env.sim.cluster.create(PODSETS, podSetManifest(name, replicas) as unknown as KubeObject);
}

async function converges(env: OperatorEnv, name: string, timeoutMs = 60_000): Promise<void> {
  await env.waitFor(`${name} to converge`, () => problemsOf(env, name), { timeoutMs });
}

describe('usage errors: exit 2 naming the variable', () => {
  let env: OperatorEnv;
  before(async () => {
    env = await startCatalog({ name: 'bad-start' });
  });
  after(async () => {
    await env?.close();
  });

  const apps = [
    { app: 'worker', start: (n: string, e: Record<string, string>) => env.startWorker(n, e) },
    { app: 'watcher', start: (n: string, e: Record<string, string>) => env.startWatcher(n, e) },
  ];
  let n = 0;
  for (const { app, start } of apps) {
    test(`${app}: KUBECONFIG naming a file that does not exist`, async () => {
      const r = await exitOf(start(`${app}-${++n}`, { KUBECONFIG: '/nonexistent/kubeconfig' }));
      assert.equal(r.code, 2, r.output);
      assert.match(r.output, /KUBECONFIG/);
      assert.match(r.output, /nonexistent/);
    });

    test(`${app}: a kubeconfig that is not YAML`, async () => {
      const file = path.join(env.dir, `garbage-${app}`);
      writeFileSync(file, 'clusters: [ {{{ not yaml\n\t:');
      const r = await exitOf(start(`${app}-${++n}`, { KUBECONFIG: file }));
      assert.equal(r.code, 2, r.output);
      assert.match(r.output, /KUBECONFIG/);
    });

    test(`${app}: no KUBECONFIG, not in a cluster, no ~/.kube/config`, async () => {
      const r = await exitOf(start(`${app}-${++n}`, { KUBECONFIG: '' }));
      assert.equal(r.code, 2, r.output);
      assert.match(r.output, /KUBECONFIG/);
    });

    test(`${app}: REDIS_URL that is not a URL`, async () => {
      const r = await exitOf(start(`${app}-${++n}`, { REDIS_URL: 'localhost:6379 please' }));
      assert.equal(r.code, 2, r.output);
      assert.match(r.output, /REDIS_URL/);
    });

    test(`${app}: a Redis setting and the kubeconfig both wrong: both named at once`, async () => {
      const r = await exitOf(
        start(`${app}-${++n}`, { REDIS_SENTINEL_NAME: 'mymaster', KUBECONFIG: '/nonexistent/kubeconfig' }),
      );
      assert.equal(r.code, 2, r.output);
      assert.match(r.output, /REDIS_SENTINELS: is required when REDIS_SENTINEL_NAME is set/);
      assert.match(r.output, /KUBECONFIG: .*nonexistent/);
    });

    test(`${app}: REDIS_URL with the wrong scheme`, async () => {
      const r = await exitOf(start(`${app}-${++n}`, { REDIS_URL: 'http://127.0.0.1:6379' }));
      assert.equal(r.code, 2, r.output);
      assert.match(r.output, /REDIS_URL/);
    });
  }

  test('worker: WORKER_CONCURRENCY=abc and KUBE_QPS=-1 at once: both named', async () => {
    const r = await exitOf(env.startWorker('worker-multi', { WORKER_CONCURRENCY: 'abc', KUBE_QPS: '-1' }));
    assert.equal(r.code, 2, r.output);
    assert.match(r.output, /WORKER_CONCURRENCY/);
    assert.match(r.output, /KUBE_QPS/);
  });

  test('worker: LOG_LEVEL not one of the levels', async () => {
    const r = await exitOf(env.startWorker('worker-level', { LOG_LEVEL: 'loud' }));
    assert.equal(r.code, 2, r.output);
    assert.match(r.output, /LOG_LEVEL/);
  });

  test('watcher: WATCH_NAMESPACES listing its own namespace (POD_NAMESPACE) is refused', async () => {
    const r = await exitOf(
      env.startWatcher('watcher-own-ns', {
        WATCH_NAMESPACES: 'team-a,podset-system',
        POD_NAMESPACE: 'podset-system',
      }),
    );
    assert.equal(r.code, 2, r.output);
    assert.match(r.output, /WATCH_NAMESPACES: lists "podset-system", the operator's own namespace/);
  });

  test('worker: WATCH_NAMESPACES listing its own namespace (POD_NAMESPACE) is refused', async () => {
    const r = await exitOf(
      env.startWorker('worker-own-ns', {
        WATCH_NAMESPACES: 'team-a,podset-system',
        POD_NAMESPACE: 'podset-system',
      }),
    );
    assert.equal(r.code, 2, r.output);
    assert.match(r.output, /WATCH_NAMESPACES: lists "podset-system", the worker's own namespace/);
  });

  test('watcher: LEASE_DURATION_SECONDS below its minimum', async () => {
    const r = await exitOf(env.startWatcher('watcher-lease', { LEASE_DURATION_SECONDS: '1' }));
    assert.equal(r.code, 2, r.output);
    assert.match(r.output, /LEASE_DURATION_SECONDS/);
  });

  test('watcher: WATCH_NAMESPACES with an invalid name', async () => {
    const r = await exitOf(env.startWatcher('watcher-ns', { WATCH_NAMESPACES: 'default,Bad_NS' }));
    assert.equal(r.code, 2, r.output);
    assert.match(r.output, /WATCH_NAMESPACES/);
  });

  test('a wrong token: a clear 401 in the log, no crash loop; nothing else harmed', async () => {
    // The plain-HTTP URL serves the same API as https (which would need kube-sim's CA in the file).
    const kc = writeKubeconfig(env, 'kc-wrong-token', env.sim.url, 'not-a-valid-token');
    const watcher = env.startWatcher('watcher-401', { KUBECONFIG: kc });
    const worker = env.startWorker('worker-401', { KUBECONFIG: kc });
    env.startWatcher('watcher-ok');
    env.startWorker('worker-ok');
    await env.waitFor('the watcher to say 401 Unauthorized', () =>
      watcher.lines().some((l) => /401|Unauthorized/.test(l)) ? [] : [watcher.tail(5)],
    );
    await healthyStillConverges(env);
    assert.ok(watcher.running || (await watcher.exited).code !== 0, watcher.describe());
    assert.ok(worker.running, worker.describe());
  });
});

describe('Redis unreachable at start, then lost mid-run', () => {
  let env: OperatorEnv;
  let late: RedisServer | undefined;
  let port: number;
  before(async () => {
    env = await startCatalog({ name: 'bad-redis' });
    port = await freePort();
  });
  after(async () => {
    await late?.close();
    await env?.close();
  });

  test('unreachable at start: both apps keep running, say so, and work once Redis is up', async () => {
    const url = `redis://127.0.0.1:${port}`;
    const watcher = env.startWatcher('watcher-0', { REDIS_URL: url });
    const worker = env.startWorker('worker-0', { REDIS_URL: url });
    const reports = (p: Proc) =>
      p.lines().filter((l) => /ECONNREFUSED|redis/i.test(l) && /error|unreachable|refused/i.test(l)).length;
    // Reported, and reported again: each app retried the connection and is still up.
    await env.waitFor('both apps to report the unreachable Redis, twice', () =>
      [watcher, worker].filter((p) => !p.running || reports(p) < 2).map((p) => p.describe()),
    );
    assert.ok(watcher.running, watcher.describe());
    assert.ok(worker.running, worker.describe());
    late = await startRedis({ port });
    await converges(env, 'healthy', 90_000);
  });

  test('lost mid-run (restarted empty): the watcher re-enqueues every key, changes made meanwhile converge', async () => {
    assert.ok(late !== undefined);
    await late.stop({ hard: true });
    const watcher = env.procs.find((p) => p.name === 'watcher-0');
    assert.ok(watcher);
    const sinkErrors = () => watcher.lines().filter((l) => l.includes('sink-error')).length;
    const before = sinkErrors();
    create(env, 'while-down', 2);
    // The watcher saw the new PodSet and could not hand it to the queue (its watch ends and restarts).
    await env.waitFor('the watcher to fail handing on the event', () =>
      sinkErrors() > before ? [] : [watcher.tail(5)],
    );
    await late.restart();
    await converges(env, 'while-down', 90_000);
    await healthyStillConverges(env, 90_000);
    env.assertAllRunning();
  });
});

describe('the CRD not installed', () => {
  let env: OperatorEnv;
  let watcher: Proc;
  let worker: Proc;
  before(async () => {
    env = await startCatalog({ name: 'bad-crd' }, false);
    watcher = env.startWatcher('watcher-0');
    worker = env.startWorker('worker-0');
  });
  after(async () => {
    await env?.close();
  });

  test('the watcher retries the missing resource (404) and both apps keep running', async () => {
    await env.waitFor(
      'the watcher to retry the 404 on PodSets more than once',
      () =>
        watcher.lines().filter((l) => /podsets/.test(l) && /404/.test(l)).length >= 2
          ? []
          : [watcher.tail(5)],
      { timeoutMs: 30_000 },
    );
    assert.ok(watcher.running, watcher.describe());
    assert.ok(worker.running, worker.describe());
  });

  test('its message names the CRD (podsets.podset.io) and how to install it', () => {
    const said = watcher
      .lines()
      .filter((l) => /podsets\.podset\.io|PodSet CRD|CustomResourceDefinition/i.test(l));
    assert.ok(said.length > 0, `expected a line naming the CRD; last lines:\n${watcher.tail(5)}`);
  });

  test('once the CRD is applied, PodSets converge (no restart needed)', async () => {
    await applyCrd(env);
    create(env, 'after-crd', 2);
    await converges(env, 'after-crd', 90_000);
    assert.ok(watcher.running, watcher.describe());
    assert.ok(worker.running, worker.describe());
  });
});
