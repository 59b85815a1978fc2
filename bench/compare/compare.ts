// `npm run bench -- compare --base REF`: each scenario run alternately on REF and on this working tree (the
// same machine, the same hour, the order swapped every pair), and each figure's ratio head ÷ base printed
// with its spread. A change is measured against its own base; two benches an hour apart are not comparable.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { machine } from '../lib/report.ts';
import type { CompareArgs } from './args.ts';
import { runStreamed, stopAll } from './child.ts';
import { figuresOf, matchFigures, type BenchRecord, type Matched } from './figures.ts';
import { runOrder, type Side } from './plan.ts';
import { pairStats } from './stats.ts';
import {
  baseTree,
  headTree,
  knowsScenario,
  nodeOf,
  sameLifecycleArgs,
  unknownOptions,
  type Tree,
} from './sides.ts';
import { layout, notCompared, tableRows } from './table.ts';

export interface Io {
  /** The repository whose working tree is the head. */
  repo: string;
  /** Progress and the runs' own output (stderr). */
  log: (line: string) => void;
  /** The tables (stdout). */
  print: (line: string) => void;
}

interface Run {
  scenario: string;
  pair: number;
  side: Side;
  file: string;
  seconds: number;
  code: number | null;
  signal: string | null;
  record?: BenchRecord;
}

interface ScenarioOutcome {
  scenario: string;
  runs: Run[];
  /** Which side failed and why (the scenario's comparison is then left out). */
  failure?: string;
  matched?: Matched;
}

/** Runs the compare; resolves to the exit code (0, 1 if a run failed, 2 for bad options, 130 if interrupted). */
export async function compare(args: CompareArgs, io: Io): Promise<number> {
  let interrupted = false;
  const onSignal = (): void => {
    if (interrupted) process.exit(130);
    interrupted = true;
    io.log('compare: interrupted, stopping the running child (again to quit at once)');
    stopAll('SIGINT');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const head = headTree(io.repo);
    const base = await baseTree(
      {
        repo: io.repo,
        fresh: args.fresh,
        ...(args.base !== undefined ? { base: args.base } : {}),
        ...(args.baseDir !== undefined ? { baseDir: args.baseDir } : {}),
      },
      io.log,
      io.log,
    );
    if (interrupted) return 130;
    const problem = optionProblem(base, args);
    if (problem !== undefined) {
      io.log(`compare: ${problem}`);
      return 2;
    }
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const json = args.json ?? path.join(io.repo, 'bench/results', `compare-${stamp}.json`);
    const runsDir = json.replace(/\.json$/, '') + '-runs';
    mkdirSync(runsDir, { recursive: true });
    io.log(`compare: base ${label(base)}, head ${label(head)}; ${args.pairs} pairs of each scenario`);
    const outcomes: ScenarioOutcome[] = [];
    for (const scenario of args.scenarios) {
      if (interrupted) break;
      const outcome = await runPairs(scenario, { base, head }, args, runsDir, io, () => interrupted);
      outcomes.push(outcome);
      printOutcome(outcome, base, head, io.print);
    }
    writeRecord(json, { args, base, head, outcomes, interrupted });
    io.print(
      `\nresults: ${path.relative(process.cwd(), json)} (each run's record in ${path.basename(runsDir)}/)`,
    );
    if (base.how === 'prepared' || base.how === 'cached')
      io.log(`compare: the base tree stays at ${base.dir} for the next compare (--fresh redoes it)`);
    if (interrupted) return 130;
    return outcomes.some((o) => o.failure !== undefined) ? 1 : 0;
  } catch (err) {
    // A base that cannot be checked out or installed, a tree without node_modules: said in one line.
    io.log(`compare: ${err instanceof Error ? err.message : String(err)}`);
    return interrupted ? 130 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

const label = (t: Tree): string =>
  `${t.label}${t.sha !== '' ? ` (${t.sha.slice(0, 12)}${t.dirty ? ', with uncommitted changes' : ''})` : ''}`;

/** What the base's bench would refuse, said before any run. */
function optionProblem(base: Tree, args: CompareArgs): string | undefined {
  const missing = unknownOptions(base, args.passthrough);
  if (missing.length > 0)
    return `the base's bench (${label(base)}) does not know ${missing.map((m) => `--${m}`).join(', ')}: drop it, or compare against a newer base`;
  const scenarios = args.scenarios.filter((s) => !knowsScenario(base, s));
  if (scenarios.length > 0)
    return `the base's bench (${label(base)}) has no scenario ${scenarios.join(', ')}`;
  return undefined;
}

/** The scenario's runs in pair order; stops at the first that fails (its pair could not be compared). */
async function runPairs(
  scenario: string,
  trees: Record<Side, Tree>,
  args: CompareArgs,
  runsDir: string,
  io: Io,
  interrupted: () => boolean,
): Promise<ScenarioOutcome> {
  const runs: Run[] = [];
  if (sameLifecycleArgs(scenario, 'head', trees, args.passthrough).length > 0)
    io.log(
      `${scenario}: the base's kube-sim has only the fast pod lifecycle, so the head runs it too (--lifecycle fast)`,
    );
  for (const planned of runOrder(args.pairs)) {
    if (interrupted()) return { scenario, runs, failure: 'interrupted' };
    const tree = trees[planned.side];
    const name = `${scenario}-${planned.pair}-${planned.side}`;
    const file = path.join(runsDir, `${name}.json`);
    // Converge draws its plot into docs/ unless told where: beside the run's record instead.
    const plot = scenario === 'converge' && /--plot\b/.test(tree.usage) ? ['--plot', `${file}.svg`] : [];
    const started = performance.now();
    const prefix = `[${planned.side} ${planned.pair}/${args.pairs} ${scenario}] `;
    io.log(`${prefix}starting on ${label(tree)}`);
    const r = await runStreamed(
      nodeOf(tree.dir),
      [
        path.join(tree.dir, 'bench/run.ts'),
        scenario,
        '--json',
        file,
        ...plot,
        ...sameLifecycleArgs(scenario, planned.side, trees, args.passthrough),
        ...args.passthrough,
      ],
      { cwd: tree.dir, prefix, out: io.log },
    );
    const run: Run = {
      scenario,
      ...planned,
      file,
      seconds: (performance.now() - started) / 1000,
      code: r.code,
      signal: r.signal,
    };
    runs.push(run);
    if (r.code === 0 && existsSync(file)) run.record = JSON.parse(readFileSync(file, 'utf8')) as BenchRecord;
    else {
      if (interrupted()) return { scenario, runs, failure: 'interrupted' };
      const why =
        r.signal !== null ? `ended by ${r.signal}` : r.code === 0 ? 'wrote no record' : `exit ${r.code}`;
      const failure = `${planned.side} (${label(tree)}) failed in pair ${planned.pair}: ${why}; its last lines:\n${r.tail.join('\n')}`;
      return { scenario, runs, failure };
    }
  }
  const recordsOf = (side: Side): Map<string, { value: number; unit: string }>[] =>
    runs
      .filter((x) => x.side === side)
      .sort((a, b) => a.pair - b.pair)
      .map((x) => figuresOf(x.record!));
  return { scenario, runs, matched: matchFigures(recordsOf('base'), recordsOf('head')) };
}

function printOutcome(o: ScenarioOutcome, base: Tree, head: Tree, print: (line: string) => void): void {
  print(`\n${o.scenario}: head ${label(head)} ÷ base ${label(base)}`);
  if (o.failure !== undefined || o.matched === undefined) {
    print(`not compared: ${o.failure ?? 'no runs'}`);
    return;
  }
  const rows = tableRows(o.matched);
  for (const line of layout(rows)) print(line);
  for (const line of notCompared(o.matched)) print(line);
  const pairs = Math.max(0, ...o.runs.map((r) => r.pair));
  if (pairs < 3)
    print(
      `(${pairs} pairs: "higher"/"lower" is a hint on a shared machine; --pairs 3 or more to rely on it)`,
    );
}

function writeRecord(
  file: string,
  r: { args: CompareArgs; base: Tree; head: Tree; outcomes: ScenarioOutcome[]; interrupted: boolean },
): void {
  const side = ({ usage: _usage, ...t }: Tree): Omit<Tree, 'usage'> => t;
  const record = {
    scenario: 'compare',
    options: { ...r.args },
    base: side(r.base),
    head: side(r.head),
    interrupted: r.interrupted,
    scenarios: r.outcomes.map((o) => ({
      scenario: o.scenario,
      ...(o.failure !== undefined ? { failure: o.failure } : {}),
      figures: (o.matched?.compared ?? []).map((f) => ({ ...f, ...pairStats(f.base, f.head) })),
      onlyBase: o.matched?.onlyBase ?? [],
      onlyHead: o.matched?.onlyHead ?? [],
      notInEveryRun: o.matched?.notInEveryRun ?? [],
      unitDiffers: o.matched?.unitDiffers ?? [],
      runs: o.runs,
    })),
    machine: machine(),
    at: new Date().toISOString(),
  };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(record, null, 2));
}
