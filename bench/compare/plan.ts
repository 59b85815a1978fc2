// The order of a compare's runs: base and head alternate, and each pair runs them the other way round from
// the pair before, so a machine that warms up, cools down or gets busier over the session does not favour
// one side.

export type Side = 'base' | 'head';

export interface PlannedRun {
  /** 1-based. */
  pair: number;
  side: Side;
}

/** Pair 1 runs base then head, pair 2 head then base, and so on. */
export function runOrder(pairs: number): PlannedRun[] {
  const runs: PlannedRun[] = [];
  for (let pair = 1; pair <= pairs; pair++) {
    const sides: Side[] = pair % 2 === 1 ? ['base', 'head'] : ['head', 'base'];
    for (const side of sides) runs.push({ pair, side });
  }
  return runs;
}
