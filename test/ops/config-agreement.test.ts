// The dashboard reads what the watcher and workers write: the same queue and the same event-log stream,
// with the defaults and with overrides.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, parseEnv, type EnvSpec } from '@podset/config';
import { eventLogKeyOf } from '@podset/redis';
import { dashboardEnv } from '../../apps/dashboard/src/config.ts';
import { parseWatcherConfig, redisKeys, watcherEnv } from '../../apps/watcher/src/config.ts';
import { workerEnv } from '../../apps/worker/src/config.ts';

const TOKEN = { DASHBOARD_TOKEN: 'x'.repeat(20) };

for (const [label, env] of [
  ['defaults', {}],
  ['overrides', { QUEUE_NAME: 'psq', QUEUE_PREFIX: '{ops}' }],
  ['explicit event log', { EVENT_LOG_KEY: 'audit:podset-events' }],
  ['lease', { LEASE_NAMESPACE: 'ops', LEASE_NAME: 'podset-watcher-eu' }],
] as const) {
  test(`dashboard, watcher and worker agree on queue and event log (${label})`, () => {
    const dash = parseEnv(dashboardEnv, { ...TOKEN, ...env });
    const watcher = parseWatcherConfig({ ...env });
    const worker = parseEnv(workerEnv, { ...env });
    assert.equal(dash.QUEUE_NAME, watcher.QUEUE_NAME);
    assert.equal(dash.QUEUE_NAME, worker.QUEUE_NAME);
    assert.equal(dash.QUEUE_PREFIX, watcher.QUEUE_PREFIX);
    assert.equal(dash.QUEUE_PREFIX, worker.QUEUE_PREFIX);
    assert.equal(eventLogKeyOf(dash), redisKeys(watcher).eventLog);
    // The worker removes a deleted PodSet's entries from that same stream.
    assert.equal(eventLogKeyOf(worker), redisKeys(watcher).eventLog);
    // The Lease the dashboard reads to show the leading watcher.
    assert.deepEqual([dash.LEASE_NAMESPACE, dash.LEASE_NAME], [watcher.LEASE_NAMESPACE, watcher.LEASE_NAME]);
    // Not BullMQ's own `<prefix>:<queue>:events` stream.
    assert.notEqual(eventLogKeyOf(dash), `${dash.QUEUE_PREFIX}:${dash.QUEUE_NAME}:events`);
  });
}

const APPS: [string, EnvSpec, Record<string, string>][] = [
  ['watcher', watcherEnv, {}],
  ['worker', workerEnv, {}],
  ['dashboard', dashboardEnv, TOKEN],
];

/** The variables `env` is rejected for, by this app's spec. */
function rejected(spec: EnvSpec, env: Record<string, string>): string[] {
  try {
    parseEnv(spec, env);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.problems.map((p) => p.variable).sort();
  }
}

test('the shared queue settings are validated alike by every app', () => {
  for (const [app, spec, base] of APPS) {
    assert.deepEqual(rejected(spec, { ...base, QUEUE_NAME: 'a:b' }), ['QUEUE_NAME'], app);
    assert.deepEqual(rejected(spec, { ...base, QUEUE_NAME: 'psq', QUEUE_PREFIX: '{ops}' }), [], app);
  }
  for (const [app, spec, base] of APPS.slice(0, 2)) {
    assert.deepEqual(rejected(spec, { ...base, MAX_ATTEMPTS: '0' }), ['MAX_ATTEMPTS'], app);
  }
  const watcher = parseWatcherConfig({});
  assert.equal(watcher.MAX_ATTEMPTS, parseEnv(workerEnv, {}).MAX_ATTEMPTS);
});

test('KUBE_QPS and KUBE_BURST are parsed by one rule in every app (defaults may differ)', () => {
  for (const [app, spec, base] of APPS) {
    assert.deepEqual(rejected(spec, { ...base, KUBE_QPS: '2.5' }), [], app);
    assert.deepEqual(rejected(spec, { ...base, KUBE_QPS: '0' }), [], `${app}: 0 means no limit`);
    assert.deepEqual(
      rejected(spec, { ...base, KUBE_QPS: '-1', KUBE_BURST: '0' }),
      ['KUBE_BURST', 'KUBE_QPS'],
      app,
    );
  }
});
