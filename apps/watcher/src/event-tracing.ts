// The watcher's spans (tracing on only; with it off the pipeline is given none and makes none). Each watch
// event that owes a reconcile gets a root span — the start of the change's trace — whose traceparent goes
// into the request, so that the worker's reconcile is its child (or links to it, when requests collapse).
// A covered event (the key's job in the queue already due soon enough) gets a span too, but nothing carries it to the job: that
// would cost a write the event otherwise saves; its span says `podset.event.outcome=covered`.
import { ROOT_CONTEXT, SpanKind, type Span, type Tracer } from '@opentelemetry/api';
import { recordError, traceparentOf } from '@podset/runtime';
import { systemClock, type Clock } from '@podset/clock';
import type { EventOutcome, KeyedEvent } from './change-gate.ts';

export interface EventTracing {
  /** Epoch ms: when a batch began (its events' spans start there). */
  now(): number;
  batch(startedAt: number): BatchSpans;
}

export interface BatchSpans {
  /** A span for one event of the batch; a covered one ends at once. */
  event(keyed: KeyedEvent, outcome: EventOutcome): void;
  /** The traceparents of the batch's events that owe `key` a reconcile. */
  traceparentsOf(key: string): string[] | undefined;
  /** Ends the batch's open spans once their requests went through (or failed with `err`). */
  end(err?: unknown): void;
}

export function eventTracing(tracer: Tracer, clock: Clock = systemClock): EventTracing {
  return { now: () => clock.now(), batch: (startedAt) => new Batch(tracer, startedAt) };
}

class Batch implements BatchSpans {
  readonly #tracer: Tracer;
  readonly #startedAt: number;
  readonly #open: Span[] = [];
  readonly #byKey = new Map<string, string[]>();

  constructor(tracer: Tracer, startedAt: number) {
    this.#tracer = tracer;
    this.#startedAt = startedAt;
  }

  event({ ev, key }: KeyedEvent, outcome: EventOutcome): void {
    const meta = ev.object.metadata;
    const span = this.#tracer.startSpan(
      `watch ${ev.resource} ${ev.type}`,
      {
        kind: SpanKind.PRODUCER,
        startTime: this.#startedAt,
        attributes: {
          'podset.key': key,
          'podset.event.outcome': outcome,
          'k8s.resource': ev.resource,
          'k8s.event.type': ev.type,
          'k8s.object.name': meta?.name ?? '',
          ...(ev.rv !== undefined ? { 'k8s.resource_version': ev.rv } : {}),
          ...(ev.resource === 'podsets' && typeof meta?.generation === 'number'
            ? { 'podset.generation': meta.generation }
            : {}),
        },
      },
      ROOT_CONTEXT,
    );
    if (outcome === 'covered') {
      span.end();
      return;
    }
    this.#open.push(span);
    const tp = traceparentOf(span);
    if (tp === undefined) return;
    const tps = this.#byKey.get(key);
    if (tps === undefined) this.#byKey.set(key, [tp]);
    else tps.push(tp);
  }

  traceparentsOf(key: string): string[] | undefined {
    return this.#byKey.get(key);
  }

  end(err?: unknown): void {
    for (const span of this.#open) {
      if (err !== undefined) recordError(span, err);
      span.end();
    }
    this.#open.length = 0;
  }
}
