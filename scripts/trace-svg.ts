// Draws one trace as an SVG waterfall, from the spans a test collected (test/e2e/tracing.test.ts with
// TRACE_DUMP=<file> writes them): a row per span in parent/child order, its bar on a shared time axis,
// coloured by service, with the span links a reconcile carries. For docs/operations.md's picture.
//   npm run docs:trace-svg -- spans.json docs/trace-kubectl-scale.svg
import { readFileSync, writeFileSync } from 'node:fs';

export interface TraceSpan {
  service: string;
  spanId: string;
  parentSpanId?: string | undefined;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Record<string, string | number | boolean>;
  links: { spanId: string }[];
}

const ROW = 24;
const LABEL = 300;
const BAR = 520;
const TOP = 56;
const COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759'];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (ms: number) => (ms < 10 ? ms.toFixed(1) : Math.round(ms).toString());

/** The spans in parent/child order (children by start time), each with its depth. */
export function ordered(spans: readonly TraceSpan[]): { span: TraceSpan; depth: number }[] {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string | undefined, TraceSpan[]>();
  for (const s of spans) {
    const parent = s.parentSpanId !== undefined && ids.has(s.parentSpanId) ? s.parentSpanId : undefined;
    children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  const out: { span: TraceSpan; depth: number }[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    const kids = [...(children.get(parent) ?? [])].sort((a, b) => a.startMs - b.startMs);
    for (const span of kids) {
      out.push({ span, depth });
      walk(span.spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return out;
}

export function renderTraceSvg(spans: readonly TraceSpan[], title: string): string {
  const rows = ordered(spans);
  const t0 = Math.min(...spans.map((s) => s.startMs));
  const total = Math.max(1, Math.max(...spans.map((s) => s.endMs)) - t0);
  const services = [...new Set(rows.map((r) => r.span.service))];
  const color = (service: string) => COLORS[services.indexOf(service) % COLORS.length]!;
  const x = (ms: number) => LABEL + ((ms - t0) / total) * BAR;
  const width = LABEL + BAR + 70;
  const height = TOP + rows.length * ROW + 40;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="8" y="20" font-size="14" font-weight="bold">${esc(title)}</text>`,
  ];
  services.forEach((s, i) => {
    out.push(
      `<rect x="${8 + i * 150}" y="30" width="12" height="12" fill="${color(s)}"/>`,
      `<text x="${24 + i * 150}" y="40">${esc(s)}</text>`,
    );
  });
  for (let i = 0; i <= 4; i++) {
    const ms = (total * i) / 4;
    const tx = LABEL + (BAR * i) / 4;
    out.push(
      `<line x1="${tx}" y1="${TOP - 6}" x2="${tx}" y2="${TOP + rows.length * ROW}" stroke="#ddd"/>`,
      `<text x="${tx}" y="${TOP + rows.length * ROW + 16}" text-anchor="middle" fill="#555">${fmt(ms)} ms</text>`,
    );
  }
  rows.forEach(({ span, depth }, i) => {
    const y = TOP + i * ROW;
    const x1 = x(span.startMs);
    const w = Math.max(2, x(span.endMs) - x1);
    const label = `${span.name}${span.links.length > 0 ? `  (links: ${span.links.length})` : ''}`;
    out.push(
      `<text x="${8 + depth * 14}" y="${y + 15}">${esc(label)}</text>`,
      `<rect x="${x1.toFixed(1)}" y="${y + 4}" width="${w.toFixed(1)}" height="${ROW - 8}" rx="2" fill="${color(span.service)}"/>`,
      `<text x="${(x1 + w + 4).toFixed(1)}" y="${y + 15}" fill="#333">${fmt(span.endMs - span.startMs)} ms</text>`,
    );
  });
  out.push('</svg>', '');
  return out.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [input, output, ...title] = process.argv.slice(2);
  if (input === undefined || output === undefined) {
    process.stderr.write('usage: npm run docs:trace-svg -- SPANS.json OUT.svg [TITLE]\n');
    process.exit(2);
  }
  const spans = JSON.parse(readFileSync(input, 'utf8')) as TraceSpan[];
  writeFileSync(output, renderTraceSvg(spans, title.join(' ') || 'one trace'));
}
