// The watcher as it starts (startWatcher, the cover rule on, kube-sim, a real Redis and queue): with tracing
// off, an event whose key's job is delayed past its due time is merged into that job in the fold, and no
// request is made; with tracing on, the event's request is made apart, so that it carries the event's trace
// context. What is checked is the requests made, the event outcomes counted and the job's place, never a time.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ReconcileQueue } from '@podset/queue';
import { waitFor } from '@podset/testkit';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import { createPodSet, startTestWatcher, type TestWatcher } from './support.ts';

const env = useSimCluster({ sim: { controllers: false }, redis: true });
const tracer = new NodeTracerProvider().getTracer('test');

before(async () => {
  await env.ready;
});

/** Watch events admitted, by outcome. */
async function outcomes(w: TestWatcher): Promise<Record<string, number>> {
  const metric = await w.running.metrics.getSingleMetric('podset_watch_event_outcomes_total')?.get();
  return Object.fromEntries((metric?.values ?? []).map((v) => [String(v.labels.outcome), v.value]));
}

for (const tracing of [false, true]) {
  test(`tracing ${tracing ? 'on: the request is made apart' : 'off: the request is merged in the fold'}`, async () => {
    const queueName = `merge-wiring-${tracing ? 'traced' : 'plain'}`;
    const key = `default/${queueName}`;
    const queue = new ReconcileQueue({ connection: env.redis.url, queueName, prefix: 'mw' });
    // The key's job before its PodSet shows: delayed far past (a requeue-after), no worker to take it.
    await queue.request(key, { source: 'live', delayMs: 3_600_000 });
    const jobId = await queue.currentJobId(key);
    const w = await startTestWatcher(env, {
      queuePrefix: 'mw',
      queueName,
      liveCover: true,
      ...(tracing ? { tracer } : {}),
    });
    try {
      await waitFor('watches open', () => w.watcher.loops.every((l) => l.counters.watchesOpened > 0));
      const requestsBefore = w.recording.requests.filter((r) => r.key === key).length;
      // The PodSet's ADDED can change a plan: its request is due at once, ahead of the delayed job.
      await createPodSet(env.sim, queueName);
      const counted = await waitFor('the PodSet event admitted', async () => {
        const o = await outcomes(w);
        return (o.merged ?? 0) + (o.requested ?? 0) > 0 && w.recording.inFlight === 0 ? o : undefined;
      });
      const requested = w.recording.requests.filter((r) => r.key === key).length - requestsBefore;
      if (tracing) {
        assert.deepEqual([counted.merged ?? 0, requested], [0, 1], 'requested apart');
      } else {
        assert.deepEqual([counted.merged, requested], [1, 0], 'merged in the fold, nothing requested');
      }
      // Either way, the key's one job is due now (the watcher's relist requests the other test's PodSet too).
      assert.equal(await queue.currentJobId(key), jobId);
      assert.equal(await queue.queue.getJobState(jobId!), 'prioritized', 'the delayed job pulled forward');
    } finally {
      await w.stop();
      await queue.close();
    }
  });
}
