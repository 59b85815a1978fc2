// compare's command line: its own options, and the rest passed as given to every run of the scenarios (on
// both sides, so the base's bench sees exactly what the user typed and nothing it may not know).

export interface CompareArgs {
  /** The commit (any git revision) to compare the working tree against. */
  base?: string;
  /** A tree already prepared (npm ci done) to use as the base instead of checking out --base. */
  baseDir?: string;
  scenarios: string[];
  pairs: number;
  /** Check the base out and install it again even when a prepared tree of that commit is cached. */
  fresh: boolean;
  /** Where to write compare's record (default bench/results/compare-<time>.json). */
  json?: string;
  /** Everything else, in the order given. */
  passthrough: string[];
}

/** The scenarios compare can run (each once per run; `all` and `compare` itself are not). */
export const COMPARABLE = ['converge', 'latency', 'scaling', 'footprint', 'live-before-bulk'] as const;
export const DEFAULT_SCENARIOS = ['converge', 'latency'];
export const MIN_PAIRS = 2;

const WITH_VALUE = new Set(['base', 'base-dir', 'scenarios', 'pairs', 'json']);
const BOOLEAN = new Set(['fresh']);
/** Options of the scenarios that compare sets for each run itself. */
const OWNED_BY_COMPARE: Record<string, string> = {
  plot: 'compare writes each converge run’s plot beside its record (the runs would overwrite one file)',
};

/** `argv`: the bench's arguments without the `compare` positional. An error names the problem. */
export function parseCompareArgs(argv: readonly string[]): CompareArgs | { error: string } {
  const own = new Map<string, string | true>();
  const passthrough: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    const m = /^--([\w-]+)(?:=(.*))?$/.exec(token);
    const name = m?.[1];
    if (name !== undefined && OWNED_BY_COMPARE[name] !== undefined)
      return { error: `--${name} is not taken with compare: ${OWNED_BY_COMPARE[name]}` };
    if (name !== undefined && BOOLEAN.has(name)) own.set(name, true);
    else if (name !== undefined && WITH_VALUE.has(name)) {
      const value = m?.[2] ?? argv[++i];
      if (value === undefined) return { error: `--${name} needs a value` };
      own.set(name, value);
    } else passthrough.push(token);
  }
  const str = (k: string): string | undefined => {
    const v = own.get(k);
    return typeof v === 'string' ? v : undefined;
  };
  const base = str('base');
  const baseDir = str('base-dir');
  if ((base === undefined) === (baseDir === undefined))
    return { error: 'compare needs --base REF (or --base-dir DIR, a prepared tree), one of them' };
  if (baseDir !== undefined && own.has('fresh'))
    return { error: '--fresh redoes a checkout of --base: it does not apply to --base-dir' };
  const scenarios = (str('scenarios') ?? DEFAULT_SCENARIOS.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const unknown = scenarios.filter((s) => !(COMPARABLE as readonly string[]).includes(s));
  if (scenarios.length === 0 || unknown.length > 0)
    return { error: `--scenarios takes a list of ${COMPARABLE.join(', ')}; not "${unknown.join(',')}"` };
  const pairs = Number(str('pairs') ?? MIN_PAIRS);
  if (!Number.isInteger(pairs) || pairs < MIN_PAIRS)
    return {
      error: `--pairs must be a whole number ≥ ${MIN_PAIRS} (the order is swapped in the second), got "${str('pairs')}"`,
    };
  const json = str('json');
  return {
    ...(base !== undefined ? { base } : {}),
    ...(baseDir !== undefined ? { baseDir } : {}),
    scenarios,
    pairs,
    fresh: own.has('fresh'),
    ...(json !== undefined ? { json } : {}),
    passthrough,
  };
}
