import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { ReconcileRequest } from '@podset/queue';
import { traceReconcile, tracedEvents } from './reconcile-tracing.ts';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
const tracer = provider.getTracer('test');

const TRACE = 'a'.repeat(32);
const tp = (n: number) => `00-${TRACE}-${n.toString(16).padStart(16, '0')}-01`;
const req = (traceparents?: string[]): ReconcileRequest => ({
  v: 1,
  key: 'default/web',
  source: 'live',
  firstRequestedAt: Date.now() - 50,
  dueAt: Date.now() - 50,
  ...(traceparents !== undefined ? { traceparents } : {}),
});
const ctx = { signal: new AbortController().signal, attempt: 1, maxAttempts: 8, jobId: 'job-1' };

test("a reconcile is the child of its job's first event, links to every event it serves, and has the queue wait beside it", async () => {
  exporter.reset();
  const events = tracedEvents({ record: async () => undefined }, tracer);
  const result = await traceReconcile(
    tracer,
    req([tp(1), tp(2), tp(3)]),
    ctx,
    { reconcileId: 'w-1' },
    async () => {
      await events.record({ namespace: 'default', name: 'web', uid: 'u' }, 'Normal', 'SuccessfulCreate', 'x');
      return { requeueAfterMs: 500, reason: 'PodsNotReady' };
    },
  );
  assert.deepEqual(result, { requeueAfterMs: 500, reason: 'PodsNotReady' });
  const spans = new Map(exporter.getFinishedSpans().map((s) => [s.name, s]));
  const reconcile = spans.get('reconcile')!;
  assert.equal(reconcile.kind, SpanKind.CONSUMER);
  assert.equal(reconcile.spanContext().traceId, TRACE);
  assert.equal(reconcile.parentSpanContext?.spanId, tp(1).split('-')[2]);
  assert.deepEqual(
    reconcile.links.map((l) => l.context.spanId),
    [tp(1), tp(2), tp(3)].map((t) => t.split('-')[2]),
  );
  assert.deepEqual(
    {
      key: reconcile.attributes['podset.key'],
      job: reconcile.attributes['podset.job.id'],
      id: reconcile.attributes['podset.reconcile.id'],
      attempt: reconcile.attributes['podset.attempt'],
      events: reconcile.attributes['podset.events'],
      result: reconcile.attributes['podset.result'],
      reason: reconcile.attributes['podset.requeue_reason'],
    },
    {
      key: 'default/web',
      job: 'job-1',
      id: 'w-1',
      attempt: 1,
      events: 3,
      result: 'requeue',
      reason: 'PodsNotReady',
    },
  );
  assert.equal(spans.get('queue wait')?.parentSpanContext?.spanId, tp(1).split('-')[2]);
  const event = spans.get('event SuccessfulCreate')!;
  assert.equal(event.parentSpanContext?.spanId, reconcile.spanContext().spanId);
  assert.equal(event.attributes['k8s.event.reason'], 'SuccessfulCreate');
});

test('a failed reconcile records its error; a job with no trace context (a resync, a requeue) starts a trace of its own', async () => {
  exporter.reset();
  await assert.rejects(
    traceReconcile(tracer, req(), { ...ctx, attempt: 2 }, { reconcileId: 'w-2' }, async () => {
      throw new Error('quota exceeded');
    }),
    /quota exceeded/,
  );
  const [reconcile, ...rest] = exporter.getFinishedSpans();
  assert.equal(rest.length, 0, 'no queue wait without an event to hang it on');
  assert.equal(reconcile!.name, 'reconcile');
  assert.equal(reconcile!.parentSpanContext, undefined);
  assert.equal(reconcile!.attributes['podset.result'], 'error');
  assert.equal(reconcile!.status.code, 2);
  assert.equal(reconcile!.events[0]?.name, 'exception');
});
