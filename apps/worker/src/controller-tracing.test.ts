// With a tracer, each step of a reconcile is a child span of the active (reconcile) span; without one,
// the controller makes none, even with a tracer provider registered.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import * as planner from '@podset/reconcile';
import { silentLogger } from '@podset/log';
import { fakeKube, makeAllReady } from '../test/fake-kube.ts';
import { createController } from './controller.ts';
import { createEventRecorder } from './events.ts';
import { tracedEvents } from './reconcile-tracing.ts';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
const tracer = provider.getTracer('test');
const log = silentLogger;

function setup(traced: boolean) {
  const f = fakeKube();
  const recorder = createEventRecorder({ kube: f.kube, log, instance: 'test' });
  const controller = createController({
    kube: f.kube,
    planner,
    events: traced ? tracedEvents(recorder, tracer) : recorder,
    log,
    ...(traced ? { tracer } : {}),
    options: { createBurst: 4, reconcile: { notReadyRequeueMs: 1000 } },
  });
  return { f, controller };
}

/** One reconcile inside a "reconcile" span; its children's names and attributes. */
async function traced(run: () => Promise<unknown>) {
  exporter.reset();
  await tracer.startActiveSpan('reconcile', async (span) => {
    await run();
    span.end();
  });
  const spans = exporter.getFinishedSpans();
  const reconcile = spans.find((s) => s.name === 'reconcile')!;
  const children = spans.filter((s) => s.parentSpanContext?.spanId === reconcile.spanContext().spanId);
  return { reconcile, children };
}

test('a scale-up: state read, plan, the finalizer, slow-start create batches, the Event and the status write, each a child span', async () => {
  const { f, controller } = setup(true);
  f.addPodSet('default', 'web', 3);
  const { reconcile, children } = await traced(() => controller.syncHandler('default/web'));
  assert.deepEqual(
    children.map((s) => s.name),
    [
      'state read',
      'revisions',
      'state read pods',
      'plan',
      'add finalizer',
      'create batch',
      'create batch',
      'event SuccessfulCreate',
      'status write',
    ],
  );
  assert.deepEqual(
    children.filter((s) => s.name === 'create batch').map((s) => s.attributes['podset.batch.size']),
    [1, 2],
  );
  assert.equal(reconcile.attributes['podset.plan.create'], 3);
  assert.equal(reconcile.attributes['podset.generation'], 1);
});

test('a scale-down: delete batches and the status write', async () => {
  const { f, controller } = setup(true);
  f.addPodSet('default', 'web', 3);
  await controller.syncHandler('default/web');
  makeAllReady(f);
  await controller.syncHandler('default/web');
  const ps = f.podsets.get('default/web')!;
  ps.spec!.replicas = 1;
  ps.metadata.generation = 2;
  f.bump(ps);
  const down = await traced(() => controller.syncHandler('default/web'));
  const deletes = down.children.filter((s) => s.name === 'delete batch');
  assert.equal(
    deletes.reduce((n, s) => n + Number(s.attributes['podset.batch.size']), 0),
    2,
  );
  assert.equal(down.reconcile.attributes['podset.plan.delete'], 2);
  assert.ok(down.children.some((s) => s.name === 'event SuccessfulDelete'));
  assert.ok(down.children.some((s) => s.name === 'status write'));
});

test('no tracer: no span at all', async () => {
  const { f, controller } = setup(false);
  f.addPodSet('default', 'web', 2);
  exporter.reset();
  await controller.syncHandler('default/web');
  assert.deepEqual(exporter.getFinishedSpans(), []);
});
