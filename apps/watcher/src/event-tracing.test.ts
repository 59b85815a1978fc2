import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { Admission, ChangeGate, KeyedEvent } from './change-gate.ts';
import { EventPipeline, type ReconcileRequester } from './event-pipeline.ts';
import type { QueueAnswer, WatcherRequest } from './request.ts';
import { eventTracing } from './event-tracing.ts';
import { silentLogger } from '@podset/log';
import type { WatchEvent } from './watch-loop.ts';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
const tracer = provider.getTracer('test');

type Opts = WatcherRequest['opts'];

/** A queue whose requests complete only when the test says so; it keeps the options each was given. */
class ManualQueue implements ReconcileRequester {
  readonly calls: { key: string; opts: Opts; settle: () => void }[] = [];
  requestAll(items: readonly WatcherRequest[]) {
    return Promise.all(
      items.map(
        ({ key, opts }) =>
          new Promise<QueueAnswer>((resolve) =>
            this.calls.push({ key, opts, settle: () => resolve({ outcome: 'created' }) }),
          ),
      ),
    );
  }
}

/** Every event owes a reconcile, except those of PodSet "covered" (its job already waits). */
const gate = {
  admit: async (events: readonly KeyedEvent[]): Promise<Admission[]> =>
    events.map(({ key }) => ({
      owed: key !== 'default/covered',
      ...(key === 'default/covered' ? { queueAnswer: 'covered' } : {}),
      requested: async () => undefined,
      failed: () => undefined,
    })),
} as unknown as ChangeGate;

const tick = () => new Promise((r) => setImmediate(r));
const ev = (name: string, rv: string): WatchEvent => ({
  stream: 'podsets/*',
  resource: 'podsets',
  type: 'MODIFIED',
  object: { metadata: { namespace: 'default', name, resourceVersion: rv, generation: Number(rv) } },
  rv,
});
const traceparentOf = (s: { spanContext(): { traceId: string; spanId: string } }) =>
  `00-${s.spanContext().traceId}-${s.spanContext().spanId}-01`;

test('tracing on: a span per event that requests, its traceparent in the request; a later batch carries those of its own events', async () => {
  exporter.reset();
  const queue = new ManualQueue();
  const enq = new EventPipeline({ queue, logger: silentLogger, gate, tracing: eventTracing(tracer) });
  const first = [enq.event(ev('web', '10')), enq.event(ev('web', '11')), enq.event(ev('covered', '12'))];
  await tick();
  await tick();
  assert.deepEqual(
    queue.calls.map((c) => c.key),
    ['default/web'],
  );
  const later = [enq.event(ev('web', '13')), enq.event(ev('web', '14'))];
  await tick();
  await tick();
  // The covered event's span ended at once; the others end when their request went through.
  assert.deepEqual(
    exporter.getFinishedSpans().map((s) => [s.name, s.attributes['podset.event.outcome']]),
    [['watch podsets MODIFIED', 'covered']],
  );
  assert.equal(queue.calls.length, 2, 'the later batch requested at once');
  queue.calls[0]!.settle();
  queue.calls[1]!.settle();
  await Promise.all([...first, ...later]);

  const spans = exporter.getFinishedSpans();
  const byRv = new Map(spans.map((s) => [s.attributes['k8s.resource_version'], s]));
  assert.deepEqual([...byRv].map(([rv, s]) => `${rv}:${s.attributes['podset.event.outcome']}`).sort(), [
    '10:requested',
    '11:coalesced',
    '12:covered',
    '13:requested',
    '14:coalesced',
  ]);
  for (const s of spans) {
    assert.equal(s.parentSpanContext, undefined, 'each event starts its own trace');
    assert.equal(
      s.attributes['podset.key'],
      s.attributes['k8s.object.name'] === 'web' ? 'default/web' : 'default/covered',
    );
  }
  const tps = (rvs: string[]) => rvs.map((rv) => traceparentOf(byRv.get(rv)!));
  assert.deepEqual(queue.calls[0]!.opts.traceparents, tps(['10', '11']));
  assert.deepEqual(
    queue.calls[1]!.opts.traceparents,
    tps(['13', '14']),
    'the later request carries its own events',
  );
});

test('tracing off: no span and no trace context in the request', async () => {
  exporter.reset();
  const queue = new ManualQueue();
  const enq = new EventPipeline({ queue, logger: silentLogger, gate });
  const done = enq.event(ev('web', '1'));
  await tick();
  await tick();
  assert.deepEqual(queue.calls[0]!.opts, { source: 'live' });
  queue.calls[0]!.settle();
  await done;
  // A tracer provider is registered in this process: still nothing, as the pipeline was given no tracing.
  assert.equal(exporter.getFinishedSpans().length, 0);
});
