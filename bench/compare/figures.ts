// The numbers a bench record holds, by name, so two commits' runs of one scenario can be set side by side:
// the table's rows (the first number of each value, with its unit) and the record's numeric data fields.

/** The part of a bench record (bench/lib/report.ts writes it) that compare reads. */
export interface BenchRecord {
  scenario: string;
  rows: { figure: string; value: string }[];
  data: Record<string, unknown>;
}

/** One number of a record: its value and unit (a row's word after the number; none for data). */
export interface Figure {
  value: number;
  unit: string;
}

/** Where a figure comes from, in its name: a row of the printed table, or a field of `data`. */
export const ROW = 'row: ';
export const DATA = 'data.';

const LEADING_NUMBER = /^\s*([-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[-+]?\d+)?)\s*([^\s(,;/]*)/i;

/** A row value's first number and the unit right after it ("1,234.5 ms (p99)" → 1234.5, "ms"); none for "n/a". */
export function leadingNumber(value: string): Figure | undefined {
  const m = LEADING_NUMBER.exec(value);
  if (m === null) return undefined;
  const n = Number(m[1]!.replace(/,/g, ''));
  return Number.isFinite(n) ? { value: n, unit: m[2] ?? '' } : undefined;
}

/** Arrays (samples over time, per-event details) are series, not figures: they are not compared. */
function flatten(prefix: string, value: unknown, out: Map<string, Figure>): void {
  if (typeof value === 'number') {
    if (Number.isFinite(value)) out.set(prefix, { value, unit: '' });
    return;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) flatten(`${prefix}.${k}`, v, out);
}

/** Every comparable number of a record, by name: `row: <figure>` and `data.<path>`. */
export function figuresOf(record: BenchRecord): Map<string, Figure> {
  const out = new Map<string, Figure>();
  const seen = new Map<string, number>();
  for (const row of record.rows) {
    // A figure printed twice keeps both, the second as "#2".
    const n = (seen.get(row.figure) ?? 0) + 1;
    seen.set(row.figure, n);
    const f = leadingNumber(row.value);
    if (f !== undefined) out.set(`${ROW}${row.figure}${n > 1 ? ` #${n}` : ''}`, f);
  }
  flatten(DATA.slice(0, -1), record.data, out);
  return out;
}

/** The figures of one scenario on both sides, sorted into what can be compared and what cannot. */
export interface Matched {
  /** In every run of both sides, with the same unit: name → values per run, in run order. */
  compared: { name: string; unit: string; base: number[]; head: number[] }[];
  onlyBase: string[];
  onlyHead: string[];
  /** On both sides but missing from some run (a figure a run could not measure). */
  notInEveryRun: string[];
  /** On both sides with another unit (a row whose value changed its unit between the commits). */
  unitDiffers: string[];
}

/** Matches figures by name across the runs of each side (each run's map from figuresOf). */
export function matchFigures(
  baseRuns: readonly Map<string, Figure>[],
  headRuns: readonly Map<string, Figure>[],
): Matched {
  const names = (runs: readonly Map<string, Figure>[]): Set<string> =>
    new Set(runs.flatMap((r) => [...r.keys()]));
  const baseNames = names(baseRuns);
  const headNames = names(headRuns);
  const out: Matched = { compared: [], onlyBase: [], onlyHead: [], notInEveryRun: [], unitDiffers: [] };
  for (const name of baseNames) if (!headNames.has(name)) out.onlyBase.push(name);
  for (const name of headNames) {
    if (!baseNames.has(name)) {
      out.onlyHead.push(name);
      continue;
    }
    const base = baseRuns.map((r) => r.get(name));
    const head = headRuns.map((r) => r.get(name));
    const all = [...base, ...head];
    if (all.some((f) => f === undefined)) out.notInEveryRun.push(name);
    else if (new Set(all.map((f) => f!.unit)).size > 1) out.unitDiffers.push(name);
    else
      out.compared.push({
        name,
        unit: all[0]!.unit,
        base: base.map((f) => f!.value),
        head: head.map((f) => f!.value),
      });
  }
  // Rows first, in the table's order (the head's); data fields after, in the record's order.
  out.compared.sort((a, b) => rank(a.name, headNames) - rank(b.name, headNames));
  return out;
}

function rank(name: string, order: Set<string>): number {
  const i = [...order].indexOf(name);
  return name.startsWith(ROW) ? i : order.size + i;
}
