import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { createLogger } from './log.ts';

const provider = new NodeTracerProvider();
provider.register();

function logger(traceIds: boolean) {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({
    name: 'podset-x',
    traceIds,
    sink: { write: (l) => void lines.push(JSON.parse(l) as Record<string, unknown>), open: true, dropped: 0 },
  });
  return { log, lines };
}

test('with tracing on, a line logged while a span is active carries its trace_id and span_id', async () => {
  const { log, lines } = logger(true);
  log.info('before');
  const ids = await provider.getTracer('t').startActiveSpan('reconcile', async (span) => {
    await Promise.resolve();
    log.info('inside');
    span.end();
    return span.spanContext();
  });
  assert.deepEqual(
    lines.map((l) => [l.msg, l.trace_id, l.span_id]),
    [
      ['before', undefined, undefined],
      ['inside', ids.traceId, ids.spanId],
    ],
  );
});

test('with tracing off, no line carries ids', () => {
  const { log, lines } = logger(false);
  provider.getTracer('t').startActiveSpan('reconcile', (span) => {
    log.info('inside');
    span.end();
  });
  assert.equal(lines[0]!.trace_id, undefined);
});
