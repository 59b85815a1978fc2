// A misbehaving API (a proxy in front of kube-sim, see support/proxy.ts): bodies that are not valid
// JSON, an HTML error page, a watch cut in the middle of an object, unexpected kinds and lines in a
// watch, 403 on one namespace while the others work. Each: the operator says what went wrong, keeps
// running, and every PodSet it may touch converges. (Bodies cut short on the reads a reconcile makes of
// the API, in the STATE_SOURCE=api fallback: api-reads.test.ts.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Queue, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import type { OperatorEnv, Proc } from '../e2e/support/harness.ts';
import { startBadApi, type BadApi } from './support/bad-api.ts';
import { healthyStillConverges } from './support/catalog.ts';
import { times, type Proxy } from './support/proxy.ts';

let b: BadApi;
let env: OperatorEnv;
let proxy: Proxy;
let watcher: Proc;
let worker: Proc;
before(async () => {
  b = await startBadApi('bad-api');
  ({ env, proxy, watcher, worker } = b);
});
after(async () => {
  await b?.close();
});
const create = (name: string, replicas: number, namespace?: string) => b.create(name, replicas, namespace);
const converges = (name: string, namespace?: string) => b.converges(name, namespace);
const logged = (proc: Proc, re: RegExp) => b.logged(proc, re);
const running = () => b.running();

test('an HTML 502 page instead of a created pod: the status and page text in the error, retried, converges', async () => {
  proxy.rules.push(
    times(1, (r) => r.user === 'worker' && r.method === 'POST' && r.path.endsWith('/pods'), {
      kind: 'respond',
      status: 502,
      contentType: 'text/html',
      body: '<html><body><h1>502 Bad Gateway</h1></body></html>',
    }),
  );
  create('html-502', 2);
  await converges('html-502');
  assert.equal(proxy.fired.respond, 1);
  assert.ok(logged(worker, /html-502.*502/).length >= 1, worker.tail(30));
  running();
});

test('a watch cut in the middle of an object: the watcher re-watches from the last whole event, nothing is missed', async () => {
  const before = proxy.fired['cut-watch-mid-object'] ?? 0;
  proxy.rules.push(
    times(1, (r) => r.user === 'watcher' && r.watch && r.path.endsWith('/pods'), {
      kind: 'cut-watch-mid-object',
      afterEvents: 1,
    }),
  );
  // End the current watches cleanly so that the next pods watch goes through the rule.
  env.sim.faults.set({ watchCutAfterEvents: 1 });
  create('cut-1', 2);
  await env.waitFor('the proxy to cut a pods watch mid-object', () =>
    (proxy.fired['cut-watch-mid-object'] ?? 0) > before ? [] : ['not yet'],
  );
  env.sim.faults.set({ watchCutAfterEvents: undefined });
  create('cut-2', 3);
  await converges('cut-1');
  await converges('cut-2');
  await healthyStillConverges(env);
  running();
});

test('a line that is not JSON in a watch: the watcher restarts the watch and misses nothing', async () => {
  proxy.rules.push(
    times(1, (r) => r.user === 'watcher' && r.watch && r.path.endsWith('/podsets'), {
      kind: 'inject-watch-lines',
      lines: ['<html>oops</html>'],
    }),
  );
  const before = proxy.fired['inject-watch-lines'] ?? 0;
  env.sim.faults.set({ watchCutAfterEvents: 1 });
  create('notjson-1', 1);
  await env.waitFor('the proxy to inject a non-JSON line', () =>
    (proxy.fired['inject-watch-lines'] ?? 0) > before ? [] : ['not yet'],
  );
  env.sim.faults.set({ watchCutAfterEvents: undefined });
  create('notjson-2', 2);
  await converges('notjson-1');
  await converges('notjson-2');
  running();
});

test('403 on one namespace while others work: that PodSet fails with the reason, the others converge', async () => {
  env.sim.cluster.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'locked' } });
  proxy.rules.push((r) =>
    r.user === 'worker' && r.path.includes('/namespaces/locked/')
      ? {
          kind: 'respond',
          status: 403,
          body: JSON.stringify({
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'Forbidden',
            code: 403,
            message:
              'podsets.podset.io "shut" is forbidden: User "worker" cannot get resource "podsets" in the namespace "locked"',
          }),
        }
      : undefined,
  );
  create('shut', 2, 'locked');
  create('open', 2);
  await converges('open');
  await healthyStillConverges(env);
  const q = new Queue(DEFAULT_QUEUE_NAME, {
    connection: { host: '127.0.0.1', port: env.redis.port },
    prefix: DEFAULT_PREFIX,
  });
  try {
    let failed: Job | undefined;
    await env.waitFor(
      'the job of locked/shut to fail after its attempts',
      async () => {
        failed = (await q.getFailed(0, -1)).find((j) => (j.data as { key?: string }).key === 'locked/shut');
        return failed === undefined ? ['not failed yet'] : [];
      },
      { timeoutMs: 60_000 },
    );
    assert.match(failed?.failedReason ?? '', /forbidden/i);
    assert.equal(failed?.attemptsMade, 3);
  } finally {
    await q.close();
  }
  assert.equal(env.sim.cluster.list('pods', 'locked').length, 0);
  running();
});

// Last: until the watcher is fixed, the junk RV wedges its PodSet watch for the rest of the file.
test('unexpected kinds and event types in the PodSet watch are skipped: no key enqueued, the RV not taken', async () => {
  const junk = [
    {
      type: 'ADDED',
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'junk-cm', namespace: 'default' } },
    },
    { type: 'BANANA', object: { kind: 'PodSet' } },
    { type: 'MODIFIED' },
    { type: 'DELETED', object: null },
    // Last, and then the stream ends: a watcher that took this RV would resume from it.
    {
      type: 'ADDED',
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'junk-pod', namespace: 'default', resourceVersion: '999999999' },
      },
    },
  ].map((j) => JSON.stringify(j));
  proxy.rules.push(
    times(1, (r) => r.user === 'watcher' && r.watch && r.path.endsWith('/podsets'), {
      kind: 'inject-watch-lines',
      lines: junk,
      end: true,
    }),
  );
  env.sim.faults.set({ watchCutAfterEvents: 1 });
  create('kinds-1', 1);
  await env.waitFor('the proxy to inject junk into a PodSet watch', () =>
    (proxy.fired['inject-watch-lines'] ?? 0) > 0 ? [] : ['not yet'],
  );
  env.sim.faults.set({ watchCutAfterEvents: undefined });
  create('kinds-2', 2);
  await converges('kinds-1');
  await converges('kinds-2');
  await healthyStillConverges(env);
  running();
  const q = new Queue(DEFAULT_QUEUE_NAME, {
    connection: { host: '127.0.0.1', port: env.redis.port },
    prefix: DEFAULT_PREFIX,
  });
  const redis = new Redis(env.redis.url);
  try {
    const jobs = await q.getJobs(['completed', 'failed', 'waiting', 'prioritized', 'delayed', 'active']);
    const keys = jobs.map((j) => (j.data as { key?: string }).key);
    assert.ok(
      !keys.includes('default/junk-cm'),
      `a ConfigMap on the PodSet watch was enqueued as a PodSet: ${keys.join(', ')}`,
    );
    assert.ok(
      !keys.includes('default/junk-pod'),
      `a Pod on the PodSet watch was enqueued as a PodSet: ${keys.join(', ')}`,
    );
    const checkpoint = await redis.hgetall(`${DEFAULT_PREFIX}:${DEFAULT_QUEUE_NAME}:watcher:rv`);
    assert.ok(
      !Object.values(checkpoint).includes('999999999'),
      `the junk RV was checkpointed: ${JSON.stringify(checkpoint)}`,
    );
    assert.equal(
      logged(watcher, /999999999/).filter((l) => /resum|watch from/i.test(l)).length,
      0,
      'resumed from the junk RV',
    );
  } finally {
    redis.disconnect();
    await q.close();
  }
});
