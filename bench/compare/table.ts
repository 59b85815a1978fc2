// compare's printed table for one scenario: each figure's runs on both sides, the ratio head ÷ base of each
// pair, their median with the spread, and whether every pair moved beyond the noise; then what could not
// be compared.
import type { Matched } from './figures.ts';
import { pairStats } from './stats.ts';

/** Three significant digits, thousands separated; ∞ and n/a as such. */
export function num(n: number): string {
  if (Number.isNaN(n)) return 'n/a';
  if (!Number.isFinite(n)) return n > 0 ? '∞' : '-∞';
  const abs = Math.abs(n);
  const digits = abs === 0 || abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

/** A ratio as the table prints it: two decimals, or ∞ / n/a. */
export const ratioText = (r: number): string => (Number.isFinite(r) ? r.toFixed(2) : num(r));

/** A figure with one value in every run of both sides (a size, a count the scenario fixes) says nothing. */
export const isConstant = (f: Matched['compared'][number]): boolean =>
  [...f.base, ...f.head].every((v) => v === f.base[0]);

/** The header and one line per figure that moved, as columns (the caller pads them). */
export function tableRows(matched: Matched): string[][] {
  const rows = [['figure', 'base runs', 'head runs', 'head÷base per pair', 'median (min–max)', 'change']];
  for (const f of matched.compared.filter((x) => !isConstant(x))) {
    const s = pairStats(f.base, f.head);
    const unit = f.unit === '' ? '' : ` ${f.unit}`;
    rows.push([
      f.name,
      f.base.map(num).join(', ') + unit,
      f.head.map(num).join(', ') + unit,
      s.ratios.map(ratioText).join(', '),
      `${ratioText(s.median)} (${ratioText(s.min)}–${ratioText(s.max)})`,
      s.change,
    ]);
  }
  return rows;
}

/** Columns padded to their widest cell; numbers (every column but the first) right-aligned. */
export function layout(rows: readonly string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]): string =>
    r
      .map((c, i) => (i === 0 || i === r.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)];
}

/** Lines naming what the table leaves out: figures that never moved, and those not compared. */
export function notCompared(matched: Matched): string[] {
  const lines: string[] = [];
  const list = (what: string, names: readonly string[]): void => {
    if (names.length > 0) lines.push(`${what}: ${names.join('; ')}`);
  };
  list(
    'the same in every run',
    matched.compared.filter(isConstant).map((f) => `${f.name} = ${num(f.base[0]!)}`),
  );
  list('only on base (not compared)', matched.onlyBase);
  list('only on head (not compared)', matched.onlyHead);
  list('missing from some run (not compared)', matched.notInEveryRun);
  list('unit differs between the sides (not compared)', matched.unitDiffers);
  return lines;
}
