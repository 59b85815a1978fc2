// The worker's spans (tracing on only; with it off none of this runs). A reconcile's span is the child of
// the first watch event its job carries (the trace context travels in the job's data), links to every
// event the job serves — requests that collapsed into one reconcile hide none of them — and has the
// reconcile's steps as children (controller.ts). A "queue wait" span, from the first request to the start,
// shows the time spent in the queue.
import { ROOT_CONTEXT, SpanKind, type Tracer } from '@opentelemetry/api';
import type { ReconcileContext, ReconcileRequest, ReconcileResult } from '@podset/queue';
import { contextOf, inSpan, linksOf, recordError } from '@podset/runtime';
import type { EventRecorder } from './events.ts';
import { systemClock, type Clock } from '@podset/clock';

export interface ReconcileIds {
  reconcileId: string;
}

/** Runs one reconcile inside its span, with the attributes an operator filters by. */
export function traceReconcile(
  tracer: Tracer,
  req: ReconcileRequest,
  ctx: ReconcileContext,
  ids: ReconcileIds,
  run: () => Promise<ReconcileResult>,
  clock: Pick<Clock, 'now'> = systemClock,
): Promise<ReconcileResult> {
  const traceparents = req.traceparents ?? [];
  const first = traceparents[0];
  const parent = first === undefined ? undefined : contextOf(first);
  const startedAt = clock.now();
  const common = { 'podset.key': req.key, 'podset.job.id': ctx.jobId };
  if (parent !== undefined && ctx.attempt === 1) {
    tracer
      .startSpan('queue wait', { startTime: req.firstRequestedAt, attributes: common }, parent)
      .end(Math.max(startedAt, req.firstRequestedAt));
  }
  const options = {
    kind: SpanKind.CONSUMER,
    startTime: startedAt,
    links: linksOf(traceparents),
    attributes: {
      ...common,
      'podset.reconcile.id': ids.reconcileId,
      'podset.attempt': ctx.attempt,
      'podset.source': req.source,
      'podset.events': traceparents.length,
      'podset.queue_wait_ms': Math.max(0, startedAt - req.firstRequestedAt),
    },
  };
  return tracer.startActiveSpan('reconcile', options, parent ?? ROOT_CONTEXT, async (span) => {
    try {
      const result = await run();
      span.setAttributes({
        'podset.result': result.requeueAfterMs !== undefined ? 'requeue' : 'done',
        ...(result.requeueAfterMs !== undefined ? { 'podset.requeue_after_ms': result.requeueAfterMs } : {}),
        ...(result.reason !== undefined ? { 'podset.requeue_reason': result.reason } : {}),
      });
      return result;
    } catch (err) {
      span.setAttribute('podset.result', 'error');
      recordError(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Each Kubernetes Event recorded in a span of its own (a child of the reconcile's). */
export function tracedEvents(events: EventRecorder, tracer: Tracer): EventRecorder {
  return {
    record: (podset, type, reason, message) =>
      inSpan(tracer, `event ${reason}`, { 'k8s.event.type': type, 'k8s.event.reason': reason }, () =>
        events.record(podset, type, reason, message),
      ),
  };
}
