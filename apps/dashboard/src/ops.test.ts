import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Gauge, Registry } from 'prom-client';
import { dashboardOps } from './ops.ts';

function fakes() {
  const registry = new Registry();
  const dependencyUp = new Gauge({
    name: 'podset_dashboard_dependency_up',
    help: 'test',
    labelNames: ['dependency'] as const,
    registers: [registry],
  });
  const state = { redisUp: true, apiUp: true, listed: [] as (string | undefined)[] };
  const ops = dashboardOps({
    redis: { ping: async () => (state.redisUp ? 'PONG' : Promise.reject(new Error('ECONNREFUSED'))) },
    kube: {
      podSets: {
        list: async (ns: string | undefined) => {
          state.listed.push(ns);
          if (!state.apiUp) throw new Error('503 the API server is paused');
          return { metadata: {}, items: [] };
        },
      },
    },
    namespaces: ['team-a', 'team-b'],
    metrics: { registry, dependencyUp },
  });
  const up = async (dependency: string) =>
    (await dependencyUp.get()).values.find((v) => v.labels.dependency === dependency)?.value;
  return { ops, state, up };
}

test('ready while Redis answers and the API lists PodSets in each namespace; the gauge follows', async () => {
  const { ops, state, up } = fakes();
  assert.deepEqual(await ops.answer('/readyz'), {
    status: 200,
    type: 'text/plain; charset=utf-8',
    body: 'ok\nredis: ok\nkubernetes: ok\n',
  });
  assert.deepEqual(state.listed, ['team-a', 'team-b']);
  assert.equal(await up('redis'), 1);
  assert.equal(await up('kubernetes'), 1);
  state.apiUp = false;
  const r = await ops.answer('/readyz');
  assert.equal(r?.status, 503);
  assert.equal(r?.body, 'failed: kubernetes\nredis: ok\nkubernetes: 503 the API server is paused\n');
  assert.equal(await up('kubernetes'), 0);
  state.redisUp = false;
  assert.match((await ops.answer('/readyz'))?.body ?? '', /^redis: ECONNREFUSED$/m);
  assert.equal(await up('redis'), 0);
  // Liveness stays: an outage makes the dashboard unready, not restarted.
  assert.equal((await ops.answer('/healthz'))?.status, 200);
});
