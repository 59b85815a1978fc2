// OpenTelemetry tracing, opt-in by the standard OTEL_* variables. With no OTLP endpoint set (or
// OTEL_SDK_DISABLED=true, or OTEL_TRACES_EXPORTER=none) nothing is loaded or started: the apps get
// `undefined` and skip every span, so tracing off costs nothing on their hot paths. The SDK itself reads
// the rest of the standard variables (OTEL_TRACES_SAMPLER[_ARG], OTEL_BSP_*, OTEL_EXPORTER_OTLP_HEADERS,
// _TIMEOUT, OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME).
import {
  propagation,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';

export interface Tracing {
  tracer: Tracer;
  /** The OTLP protocol the exporter speaks. */
  protocol: 'http/protobuf' | 'http/json';
  /** Flushes the spans not yet sent and stops the exporter. */
  shutdown(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/** Thrown for an OTEL_* setting this build cannot honour (exit 2, like any bad variable). */
export class TracingConfigError extends Error {
  override name = 'TracingConfigError';
}

/** Whether the environment asks for traces to be exported (without loading anything). */
export function tracingRequested(env: Env = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter !== undefined && exporter !== '' && exporter !== 'otlp') return false;
  return nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) || nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/** The OTLP protocol asked for; the specification's default is http/protobuf. gRPC is not built in. */
export function otlpProtocol(env: Env = process.env): Tracing['protocol'] {
  const asked = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (asked === undefined || asked === '' || asked === 'http/protobuf') return 'http/protobuf';
  if (asked === 'http/json') return 'http/json';
  throw new TracingConfigError(
    `OTEL_EXPORTER_OTLP_PROTOCOL=${asked} is not supported: use http/protobuf or http/json`,
  );
}

/**
 * Starts the SDK when the environment asks for it (see tracingRequested): a tracer provider registered
 * globally (AsyncLocalStorage context, W3C trace-context propagation), a batch span processor and the
 * OTLP/HTTP exporter of the asked protocol. `serviceName` is the default of OTEL_SERVICE_NAME.
 */
export async function startTracing(
  serviceName: string,
  env: Env = process.env,
): Promise<Tracing | undefined> {
  if (!tracingRequested(env)) return undefined;
  const protocol = otlpProtocol(env);
  // Loaded only here: an app with tracing off never loads the SDK.
  const [{ NodeTracerProvider, BatchSpanProcessor }, resources, exporterModule] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
    protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http')
      : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
  const resource = resources
    .resourceFromAttributes({ 'service.name': serviceName })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new exporterModule.OTLPTraceExporter({ url: tracesUrl(env) }))],
  });
  provider.register();
  return { tracer: trace.getTracer(serviceName), protocol, shutdown: () => provider.shutdown() };
}

/**
 * Where spans go, as the specification says: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, else
 * OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces appended. (The exporter reads its other variables —
 * headers, timeout, compression — from the process's environment itself.)
 */
export function tracesUrl(env: Env): string {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces !== undefined && traces !== '') return traces;
  const base = (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim();
  return `${base.endsWith('/') ? base.slice(0, -1) : base}/v1/traces`;
}

/** The W3C traceparent of a span, to carry it across the queue. */
export function traceparentOf(span: Span): string | undefined {
  const carrier: { traceparent?: string } = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier.traceparent;
}

/** The context a traceparent names (for a child span), or undefined when it is not a valid one. */
export function contextOf(traceparent: string): Context | undefined {
  const ctx = propagation.extract(ROOT_CONTEXT, { traceparent });
  return trace.getSpanContext(ctx) === undefined ? undefined : ctx;
}

/** One span link per valid traceparent. */
export function linksOf(traceparents: readonly string[]): Link[] {
  const links: Link[] = [];
  for (const tp of traceparents) {
    const ctx = contextOf(tp);
    const sc = ctx === undefined ? undefined : trace.getSpanContext(ctx);
    if (sc !== undefined) links.push({ context: sc });
  }
  return links;
}

/** pino's mixin: the active span's ids on each line logged while it is active. */
export function traceIdsMixin(): { trace_id?: string; span_id?: string } {
  const sc = trace.getActiveSpan()?.spanContext();
  return sc === undefined ? {} : { trace_id: sc.traceId, span_id: sc.spanId };
}

/** A failure on a span: the exception recorded and the status set to error. */
export function recordError(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

function nonEmpty(s: string | undefined): boolean {
  return s !== undefined && s.trim() !== '';
}

/**
 * Runs `fn` inside a new active child span named `name`: ended when fn settles, its error recorded.
 * Callers hold a tracer only when tracing is on; with it off they call fn directly and make no span.
 */
export function inSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      recordError(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}
