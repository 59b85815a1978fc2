import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ordered, renderTraceSvg, type TraceSpan } from './trace-svg.ts';

const span = (
  spanId: string,
  parentSpanId: string | undefined,
  name: string,
  startMs: number,
  endMs: number,
): TraceSpan => ({
  service: parentSpanId === undefined ? 'podset-watcher' : 'podset-worker',
  spanId,
  parentSpanId,
  name,
  startMs,
  endMs,
  attributes: {},
  links: name === 'reconcile' ? [{ spanId: 'e' }] : [],
});

const spans = [
  span('p', 'r', 'plan', 12, 13),
  span('r', 'e', 'reconcile', 10, 20),
  span('e', undefined, 'watch podsets MODIFIED', 0, 5),
  span('w', 'e', 'queue wait', 1, 10),
  span('s', 'r', 'state read', 10, 12),
];

test('spans are drawn in parent/child order, children by start time', () => {
  assert.deepEqual(
    ordered(spans).map(({ span: s, depth }) => `${depth}:${s.name}`),
    ['0:watch podsets MODIFIED', '1:queue wait', '1:reconcile', '2:state read', '2:plan'],
  );
});

test('the SVG has a row per span, its duration and the links a reconcile carries', () => {
  const svg = renderTraceSvg(spans, 'kubectl scale <test>');
  assert.ok(svg.startsWith('<svg'));
  assert.ok(svg.includes('kubectl scale &lt;test&gt;'));
  assert.ok(svg.includes('reconcile  (links: 1)'));
  assert.ok(svg.includes('>10 ms<'));
  assert.equal((svg.match(/rx="2"/g) ?? []).length, spans.length);
});
