import assert from 'node:assert/strict';
import perfHooks, { type EventLoopMonitorOptions } from 'node:perf_hooks';
import { mock, test } from 'node:test';
import { appRegistry, EVENT_LOOP_SAMPLE_MS } from './metrics.ts';

test('the event-loop delay histogram samples every 100 ms, not every 10: an idle app stays asleep', async () => {
  const asked: (EventLoopMonitorOptions | undefined)[] = [];
  const real = perfHooks.monitorEventLoopDelay;
  const spy = mock.method(perfHooks, 'monitorEventLoopDelay', (o?: EventLoopMonitorOptions) => {
    asked.push(o);
    return real(o);
  });
  try {
    const registry = appRegistry('podset_test_');
    assert.equal(EVENT_LOOP_SAMPLE_MS, 100);
    assert.deepEqual(
      asked.map((o) => o?.resolution),
      [EVENT_LOOP_SAMPLE_MS],
    );
    // The series stay exported.
    const text = await registry.metrics();
    assert.match(text, /^podset_test_nodejs_eventloop_lag_p99_seconds \d/m);
  } finally {
    spy.mock.restore();
  }
});
