// Output of a benchmark run: a human table on stdout, the JSON record, and the SVG plot.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { REPO } from './cluster.ts';

export interface Row {
  figure: string;
  value: string;
  target?: string;
  /** true: met, false: missed, undefined: no target. */
  met?: boolean;
}

export interface Result {
  scenario: string;
  smoke: boolean;
  options: Record<string, unknown>;
  rows: Row[];
  data: Record<string, unknown>;
}

export function machine(): Record<string, unknown> {
  let commit = '';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO }).toString().trim();
  } catch {
    // not a checkout
  }
  return {
    nproc: os.availableParallelism(),
    cpu: os.cpus()[0]?.model ?? '',
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    commit,
  };
}

export const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : 'n/a';

export function printTable(result: Result): void {
  const head = ['figure', 'value', 'target', ''];
  // Smoke sizes are too small for the targets to mean anything: show them, judge none.
  const verdict = (met: boolean | undefined): string =>
    met === undefined || result.smoke ? '' : met ? 'met' : 'MISSED';
  const rows = result.rows.map((r) => [r.figure, r.value, r.target ?? '', verdict(r.met)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === 1 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  console.log(`\n${result.scenario}${result.smoke ? ' (smoke)' : ''}: ${JSON.stringify(result.options)}`);
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

export function writeJson(result: Result, out?: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = out ?? path.join(REPO, 'bench/results', `${result.scenario}-${stamp}.json`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(
    file,
    JSON.stringify({ ...result, machine: machine(), at: new Date().toISOString() }, null, 2),
  );
  return file;
}

export interface Series {
  label: string;
  color: string;
  points: [number, number][];
  dashed?: boolean;
}

/** A line chart as a standalone SVG (no library): x seconds, y count. */
export function lineChart(title: string, xLabel: string, yLabel: string, series: Series[]): string {
  const W = 760;
  const H = 420;
  const m = { l: 70, r: 20, t: 40, b: 50 };
  const xMax = niceMax(Math.max(1e-9, ...series.flatMap((s) => s.points.map((p) => p[0]))));
  const yMax = niceMax(Math.max(1, ...series.flatMap((s) => s.points.map((p) => p[1]))));
  const x = (v: number): number => m.l + (v / xMax) * (W - m.l - m.r);
  const y = (v: number): number => H - m.b - (v / yMax) * (H - m.t - m.b);
  const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="22" text-anchor="middle" font-size="15">${esc(title)}</text>`,
  ];
  for (let i = 0; i <= 5; i++) {
    const xv = (xMax * i) / 5;
    const yv = (yMax * i) / 5;
    parts.push(
      `<line x1="${x(xv)}" y1="${m.t}" x2="${x(xv)}" y2="${H - m.b}" stroke="#eee"/>`,
      `<text x="${x(xv)}" y="${H - m.b + 16}" text-anchor="middle">${fmt(xv, xMax < 5 ? 1 : 0)}</text>`,
      `<line x1="${m.l}" y1="${y(yv)}" x2="${W - m.r}" y2="${y(yv)}" stroke="#eee"/>`,
      `<text x="${m.l - 6}" y="${y(yv) + 4}" text-anchor="end">${fmt(yv)}</text>`,
    );
  }
  parts.push(
    `<line x1="${m.l}" y1="${H - m.b}" x2="${W - m.r}" y2="${H - m.b}" stroke="#333"/>`,
    `<line x1="${m.l}" y1="${m.t}" x2="${m.l}" y2="${H - m.b}" stroke="#333"/>`,
    `<text x="${(m.l + W - m.r) / 2}" y="${H - 12}" text-anchor="middle">${esc(xLabel)}</text>`,
    `<text x="16" y="${(m.t + H - m.b) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(m.t + H - m.b) / 2})">${esc(yLabel)}</text>`,
  );
  // Legend in the lower right corner (the curves rise from the lower left to the upper right).
  const lx = W - m.r - 320;
  const ly = H - m.b - 14 - (series.length - 1) * 18;
  series.forEach((s, i) => {
    const pts = s.points.map(([a, b]) => `${x(a).toFixed(1)},${y(b).toFixed(1)}`).join(' ');
    parts.push(
      `<polyline fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''} points="${pts}"/>`,
      `<line x1="${lx}" y1="${ly + i * 18}" x2="${lx + 28}" y2="${ly + i * 18}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      `<text x="${lx + 34}" y="${ly + 4 + i * 18}">${esc(s.label)}</text>`,
    );
  });
  parts.push('</svg>\n');
  return parts.join('\n');
}

function niceMax(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const f of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (f * p >= v) return f * p;
  return 10 * p;
}

export function writeText(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}
