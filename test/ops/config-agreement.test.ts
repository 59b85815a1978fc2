// The dashboard reads what the watcher and workers write: the same queue and the same event-log stream,
// with the defaults and with overrides.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseEnv } from '@podset/config';
import { dashboardEnv, eventLogKeys } from '../../apps/dashboard/src/config.ts';
import { parseWatcherConfig, redisKeys } from '../../apps/watcher/src/config.ts';
import { eventLogKey, workerEnv } from '../../apps/worker/src/config.ts';

const TOKEN = { DASHBOARD_TOKEN: 'x'.repeat(20) };

for (const [label, env] of [
  ['defaults', {}],
  ['overrides', { QUEUE_NAME: 'psq', QUEUE_PREFIX: '{ops}' }],
  ['explicit event log', { EVENT_LOG_KEY: 'audit:podset-events' }],
] as const) {
  test(`dashboard, watcher and worker agree on queue and event log (${label})`, () => {
    const dash = parseEnv(dashboardEnv, { ...TOKEN, ...env });
    const watcher = parseWatcherConfig({ ...env });
    const worker = parseEnv(workerEnv, { ...env });
    assert.equal(dash.QUEUE_NAME, watcher.QUEUE_NAME);
    assert.equal(dash.QUEUE_NAME, worker.QUEUE_NAME);
    assert.equal(dash.QUEUE_PREFIX, watcher.QUEUE_PREFIX);
    assert.equal(dash.QUEUE_PREFIX, worker.QUEUE_PREFIX);
    assert.deepEqual(eventLogKeys(dash), [redisKeys(watcher).eventLog]);
    // The worker removes a deleted PodSet's entries from that same stream.
    assert.equal(eventLogKey(worker), redisKeys(watcher).eventLog);
    // Not BullMQ's own `<prefix>:<queue>:events` stream.
    assert.notEqual(eventLogKeys(dash)[0], `${dash.QUEUE_PREFIX}:${dash.QUEUE_NAME}:events`);
  });
}
