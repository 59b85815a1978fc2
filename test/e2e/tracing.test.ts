// Tracing end to end: the watcher and a worker as processes against kube-sim, exporting over OTLP/HTTP
// (http/json) to a receiver in this test. For one `kubectl scale`, one trace holds the watcher's span
// for the PodSet event and the worker's reconcile as its child — linked to it, with the queue wait and
// the reconcile's steps (state read, plan, the create batches, the status write, the Events) as
// children — and the attributes an operator filters by. The worker's log lines of that reconcile carry
// its trace_id and span_id.
// TRACE_DUMP=<file>: writes the trace's spans as JSON (scripts/trace-svg.ts draws docs' picture from it).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.ts';

let env: OperatorEnv;
let otlp: OtlpReceiver;
before(async () => {
  otlp = await startOtlpReceiver();
  const otel = {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  env = await startEnv({ name: 'tracing', watcherEnv: otel, workerEnv: otel });
  await applyCrd(env);
});
after(async () => {
  await env?.close();
  await otlp?.close();
});

const byId = (spans: readonly ReceivedSpan[]) => new Map(spans.map((s) => [s.spanId, s]));

test('one kubectl scale is one trace: the watch event, the queue wait and the reconcile with its steps', async () => {
  env.startWatcher('watcher-0');
  const worker = env.startWorker('worker-0');
  await env.kubectl(['apply', '-f', env.writeManifest('web.yaml', [podSetManifest('web', 1)])]);
  await env.waitConverged(['web']);
  await env.waitFor('the queue to drain', async () => ((await env.pendingJobs()) === 0 ? [] : ['pending']));

  const since = Date.now();
  await env.kubectl(['scale', 'ps', 'web', '--replicas=3']);
  await env.waitConverged(['web']);

  // The reconcile that created the two pods, once its spans and its event's have been exported, and the
  // status write of the reconcile after it. Spans are exported in batches, on their own schedule: the API
  // shows the status converged before the worker has exported the span of the write that converged it.
  let reconcile: ReceivedSpan | undefined;
  let statusWrite: ReceivedSpan | undefined;
  await env.waitFor('the scale-up reconcile, its watch event and the status write to be exported', () => {
    reconcile = otlp.spans.find(
      (s) => s.name === 'reconcile' && s.startMs >= since && s.attributes['podset.plan.create'] === 2,
    );
    const parent = reconcile && otlp.spans.find((s) => s.spanId === reconcile!.parentSpanId);
    const children = reconcile && otlp.spans.filter((s) => s.parentSpanId === reconcile!.spanId);
    statusWrite = otlp.spans.find((s) => s.name === 'status write' && s.startMs >= since);
    return parent !== undefined &&
      children!.some((s) => s.name === 'event SuccessfulCreate') &&
      statusWrite !== undefined
      ? []
      : [`not yet: ${otlp.spans.length} spans received (${[...otlp.requests].join(', ')})`];
  });
  assert.ok(reconcile);
  const trace = otlp.spans.filter((s) => s.traceId === reconcile!.traceId);
  const spans = byId(trace);
  if (process.env.TRACE_DUMP) writeFileSync(process.env.TRACE_DUMP, JSON.stringify(trace, null, 2));

  // Both services in one trace: the watcher's span for the PodSet's MODIFIED event is the root.
  assert.deepEqual([...new Set(trace.map((s) => s.service))].sort(), ['podset-watcher', 'podset-worker']);
  const event = spans.get(reconcile.parentSpanId!)!;
  assert.equal(event.service, 'podset-watcher');
  assert.equal(event.name, 'watch podsets MODIFIED');
  assert.equal(event.parentSpanId, undefined, 'the watch event starts the trace');
  assert.equal(event.attributes['podset.key'], 'default/web');
  assert.equal(event.attributes['podset.event.outcome'], 'requested');
  assert.equal(event.attributes['k8s.object.name'], 'web');
  assert.equal(typeof event.attributes['podset.generation'], 'number');

  // The reconcile links to every event it serves, its parent among them.
  assert.ok(
    reconcile.links.some((l) => l.spanId === event.spanId && l.traceId === event.traceId),
    'the reconcile links to the event',
  );
  assert.equal(reconcile.attributes['podset.events'], reconcile.links.length);
  for (const a of ['podset.job.id', 'podset.reconcile.id'])
    assert.equal(typeof reconcile.attributes[a], 'string', a);
  assert.equal(reconcile.attributes['podset.key'], 'default/web');
  assert.equal(reconcile.attributes['podset.attempt'], 1);
  assert.equal(reconcile.attributes['podset.generation'], event.attributes['podset.generation']);
  assert.equal(reconcile.attributes['podset.plan.delete'], 0);
  assert.ok(['done', 'requeue'].includes(String(reconcile.attributes['podset.result'])));
  if (reconcile.attributes['podset.result'] === 'requeue')
    assert.equal(typeof reconcile.attributes['podset.requeue_reason'], 'string');

  // The queue wait, beside the reconcile under the event.
  const wait = trace.find((s) => s.name === 'queue wait');
  assert.ok(wait, 'a queue wait span');
  assert.equal(wait.parentSpanId, event.spanId);
  assert.equal(wait.attributes['podset.job.id'], reconcile.attributes['podset.job.id']);

  // The reconcile's steps are its children; the create batches hold the two creates.
  const children = trace.filter((s) => s.parentSpanId === reconcile!.spanId).map((s) => s.name);
  for (const step of ['state read', 'state read pods', 'plan', 'event SuccessfulCreate'])
    assert.ok(children.includes(step), `a "${step}" child: ${children.join(', ')}`);
  const batches = trace.filter((s) => s.parentSpanId === reconcile!.spanId && s.name === 'create batch');
  assert.ok(batches.length >= 1);
  assert.equal(
    batches.reduce((n, b) => n + Number(b.attributes['podset.batch.size']), 0),
    2,
  );
  const plan = trace.find((s) => s.parentSpanId === reconcile!.spanId && s.name === 'plan')!;
  assert.equal(plan.attributes['podset.plan.create'], 2);

  // The status the creates lead to is written by the reconcile of the pods' events: a step of its own.
  assert.ok(statusWrite, 'a status write span');
  assert.equal(
    spans.get(statusWrite.parentSpanId!)?.name ?? byId(otlp.spans).get(statusWrite.parentSpanId!)?.name,
    'reconcile',
  );

  // Logs join traces: the worker's lines of this reconcile carry its ids.
  const lines = worker
    .lines()
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    })
    .filter((l) => l.trace_id === reconcile!.traceId);
  assert.ok(
    lines.some((l) => l.msg === 'created pods' && typeof l.span_id === 'string'),
    'the "created pods" line has the trace id',
  );
  assert.ok(lines.some((l) => l.msg === 'reconciled' && l.span_id === reconcile!.spanId));
});
