import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { trace } from '@opentelemetry/api';
import { otlpProtocol, startTracing, TracingConfigError, tracesUrl, tracingRequested } from './tracing.ts';

test('tracing is asked for by an OTLP endpoint only, as the specification defines the variables', () => {
  assert.equal(tracingRequested({}), false);
  assert.equal(tracingRequested({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }), false);
  assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), true);
  assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }), true);
  const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
  assert.equal(tracingRequested({ ...on, OTEL_SDK_DISABLED: 'true' }), false);
  assert.equal(tracingRequested({ ...on, OTEL_TRACES_EXPORTER: 'none' }), false);
  assert.equal(tracingRequested({ ...on, OTEL_TRACES_EXPORTER: 'otlp' }), true);
});

test('the OTLP protocol: http/protobuf by default, http/json, nothing else', () => {
  assert.equal(otlpProtocol({}), 'http/protobuf');
  assert.equal(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }), 'http/json');
  assert.equal(
    otlpProtocol({
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
    }),
    'http/protobuf',
  );
  assert.throws(() => otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), TracingConfigError);
});

test('the traces URL: the signal-specific endpoint as it is, else the base one with /v1/traces', () => {
  assert.equal(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), 'http://c:4318/v1/traces');
  assert.equal(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }), 'http://c:4318/v1/traces');
  assert.equal(
    tracesUrl({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t/x',
    }),
    'http://t/x',
  );
});

test('unset: nothing is started and spans stay no-ops', async () => {
  assert.equal(await startTracing('podset-test', {}), undefined);
  const span = trace.getTracer('t').startSpan('s');
  assert.equal(span.isRecording(), false);
  span.end();
});

test('set: spans go to the endpoint over OTLP/HTTP, protobuf by default, with the service name', async () => {
  const bodies: { type: string | undefined; path: string | undefined; body: Buffer }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push({ type: req.headers['content-type'], path: req.url, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    const tracing = await startTracing('podset-test', {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    });
    assert.ok(tracing);
    assert.equal(tracing.protocol, 'http/protobuf');
    tracing.tracer.startSpan('one span').end();
    await tracing.shutdown(); // flushes
    assert.equal(bodies.length, 1);
    assert.equal(bodies[0]!.path, '/v1/traces');
    assert.equal(bodies[0]!.type, 'application/x-protobuf');
    // The protobuf carries the strings as they are.
    assert.ok(bodies[0]!.body.includes('one span'));
    assert.ok(bodies[0]!.body.includes('podset-test'));
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
