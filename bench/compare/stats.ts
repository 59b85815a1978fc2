// The ratio of a figure head ÷ base per pair of runs, and how far it can be trusted: the pairs' spread, and
// each side's own run-to-run spread (the noise of this machine at this hour).

/** A ratio that survives zeros: 0 ÷ 0 is 1 (no change), x ÷ 0 is ±Infinity. */
export function ratio(head: number, base: number): number {
  if (base === 0) return head === 0 ? 1 : head > 0 ? Infinity : -Infinity;
  return head / base;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** A side's own spread: its largest run ÷ its smallest (1 when every run agrees). */
export function spreadOf(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  return ratio(Math.max(...xs), Math.min(...xs));
}

export interface PairStats {
  /** head ÷ base of each pair, in pair order. */
  ratios: number[];
  median: number;
  min: number;
  max: number;
  /** The larger of the two sides' own spreads. */
  noise: number;
  /**
   * `higher` / `lower`: every pair's ratio is beyond the noise in that direction (head's figure higher or
   * lower than base's); `''`: the pairs disagree, or the difference is within what repeating one side moves.
   */
  change: 'higher' | 'lower' | '';
}

/** `base[i]` and `head[i]` are the two runs of pair i. */
export function pairStats(base: readonly number[], head: readonly number[]): PairStats {
  if (base.length !== head.length || base.length === 0)
    throw new Error(`pairStats: ${base.length} base runs against ${head.length} head runs`);
  const ratios = base.map((b, i) => ratio(head[i]!, b));
  // Ratios of negative or zero figures have no direction to judge.
  const positive = [...base, ...head].every((x) => x > 0);
  const noise = positive ? Math.max(spreadOf(base), spreadOf(head)) : NaN;
  const min = Math.min(...ratios);
  const max = Math.max(...ratios);
  const change = !positive ? '' : min > noise ? 'higher' : max < 1 / noise ? 'lower' : '';
  return { ratios, median: median(ratios), min, max, noise, change };
}
