// The operator's benchmarks: `npm run bench -- <scenario> [options]` (node bench/run.ts ...).
//
//   converge          N PodSets × R replicas with W workers × C concurrency, against the limit (direct creates)
//   latency           a steady stream of watch events/s: watch event → reconcile start, p50/p99
//   scaling           throughput with 1, 2 and 4 worker processes when kube-sim adds 20 ms per request
//   footprint         watcher RSS with 1k and with 100k pods under watch; a fresh relist, projection ÷ api
//   live-before-bulk  a user's scale change while a 10k-PodSet resync is queued, against an idle queue
//   all               every scenario, one after the other
//   compare           scenarios run alternately on a base commit and on this working tree: ratios, spread
//
// Each prints a table and writes bench/results/<scenario>-<time>.json. --smoke: small sizes (CI).
// converge --kubeconfig FILE: on that cluster (fresh namespaces, removed after) instead of kube-sims it starts.
// Ctrl-C (or SIGTERM) stops the run and removes what it made before exiting; a second Ctrl-C exits at once.
// Every figure with a target is a ratio of two things measured in the same run.
import { existsSync, mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseCli } from './lib/cli.ts';
import { setAppHeap } from './lib/app-heap.ts';
import { REPO, setAppEnv, setAppNodeArgs, setRoleEnv } from './lib/cluster.ts';
import { setRedisStats } from './lib/redis-profile.ts';
import { printTable, writeJson, type Result } from './lib/report.ts';
import { awaitInterruptCleanup, cleanUpOnSignals, interrupted } from './lib/interrupt.ts';
import { startOtlpReceiver } from '../test/e2e/support/otlp-receiver.ts';
import { converge } from './scenarios/converge.ts';
import type { PodRunner } from './lib/pod-runner.ts';
import { latency } from './scenarios/latency.ts';
import { scaling } from './scenarios/scaling.ts';
import { footprint } from './scenarios/footprint.ts';
import { liveBeforeBulk } from './scenarios/live-before-bulk.ts';
import { parseCompareArgs } from './compare/args.ts';
import { compare } from './compare/compare.ts';

const USAGE = `usage: npm run bench -- <converge|latency|scaling|footprint|live-before-bulk|all|compare> [options]
  --smoke                 small sizes (seconds), for CI; no targets enforced
  --kubeconfig FILE       converge only: run the limit, the peer and the operator on that cluster, one after
                          another, each in a fresh namespace it removes after (default: a kube-sim per run).
                          The cluster must run pods (nodes, or the node agent); figures that need kube-sim's
                          CPU or audit say n/a, writes and reads per pod come from the workers' /metrics.
                          Ctrl-C stops the run, removes what it made (namespace, PodSets, pods, the CRD
                          if it installed it) and exits 130; a second Ctrl-C exits at once
  --podsets N --replicas R --workers W --concurrency C   (converge; default 1000 × 10, 2 × 16)
  --create-burst N   --latency-ms N
  --pod-startup-ms D,J    (converge on kube-sim: a pod is Running and Ready D ms after it is bound, plus up to
                          J ms at random; default 50,150. A longer J spreads a PodSet's pods' readiness)
  --rate N --seconds S    (latency: watch events/s and duration; default 1000/s for 10 s)
  --event podset-label|pod-annotation   (latency: what each event patches; default podset-label: with either
                          state source a pod annotation changes nothing a plan reads and requests nothing)
  --pods N --podsets N    (footprint: the large count and the PodSets they belong to; default 100000, 100;
                          except with --state-source api it also measures the projection's Redis memory and
                          relists the same pods in API mode too, for the relist ratio)
  --resync N              (live-before-bulk: PodSets in the resync; default 10000)
  --lifecycle kubelet|fast  (converge) kube-sim's pod lifecycle: kubelet (default) writes a kubelet's separate
                          status updates at a kubelet's pace over 100 nodes, what a real cluster costs; fast
                          is Pending then Running+Ready (the figures of runs before the kubelet lifecycle)
  --node-agent            (converge) kube-sim's lifecycle off and the node agent (tools/node-agent, 100 nodes)
                          as scheduler and kubelets: the reference the kubelet lifecycle is held against
  --redis-stats N         (converge) after the operator's run, the top N of its Redis's commands (INFO
                          commandstats) and top-level calls, scripts by name (the slow log at 0 µs, which
                          costs Redis a little itself): calls and µs per pod, µs per call
  --plot FILE             (converge: SVG of pods converged over time; default docs/perf-converge.svg, none with --smoke)
  --json FILE             where to write the JSON (default bench/results/<scenario>-<time>.json)
  --profile DIR           run kube-sim and the apps with --cpu-prof into DIR
  --alloc-profile DIR     the apps (watcher, workers, peer) under V8's sampling heap profiler, freed objects
                          included: what each allocated, by function, as DIR/<app>-<pid>.heapprofile
                          (bench/profile-summary.ts sums one)
  --timeout-s N           give up after N s per phase (default 900)
  --keepalive-patch       experiment: preload bench/lib/keepalive-preload.ts into the apps (one undici
                          dispatcher per KubeConfig instead of one per request; see docs/PERFORMANCE.md F1)
  --app-node-args "ARGS"  extra node flags for the watcher and workers (e.g. "--max-old-space-size=96")
  --app-heap shipped|host   the watcher's and workers' V8 heap: shipped (default) is what a container of
                          k8s/base gives each (its NODE_OPTIONS, the old space as its share of the memory
                          limit); host is Node's defaults (far larger semi-spaces: fewer scavenges)
  --worker-env "K=V ..."  extra environment for every worker (e.g. "EVENTS=warnings")
  --watcher-env "K=V ..." extra environment for the watcher (e.g. "QUIET_EVENT_HOLD_MS=0")
  --state-source projection|api   where reconciles read their state (STATE_SOURCE of the watcher and workers;
                          default projection; api is the fallback the figures compare against)
  --tracing               OpenTelemetry on in the watcher and workers (the default sampler: every change),
                          exporting OTLP/HTTP protobuf to a sink in the bench; compare with a run without

compare --base REF [--scenarios converge,latency] [--pairs N] [--fresh] [--json FILE] [scenario options]
  Runs each scenario on REF and on this working tree (uncommitted changes included), alternately, N pairs
  (default and at least 2; pair 1 base then head, pair 2 head then base, ...), every other option passed to
  every run as given; prints per figure each side's runs, head ÷ base per pair, the median ratio with its
  min–max, and "higher"/"lower" when every pair moved beyond either side's own run-to-run spread. REF is
  checked out in a git worktree under the temporary directory with its own npm ci, kept for the next compare
  of that commit (--fresh redoes it); --base-dir DIR compares against a tree already installed instead.
  Writes bench/results/compare-<time>.json (every run's figures and record) and each run's record beside it.`;

const {
  values: a,
  positionals,
  tokens,
} = parseCli('bench', USAGE, () =>
  parseArgs({
    allowPositionals: true,
    tokens: true,
    options: {
      smoke: { type: 'boolean', default: false },
      kubeconfig: { type: 'string' },
      podsets: { type: 'string' },
      replicas: { type: 'string' },
      workers: { type: 'string' },
      concurrency: { type: 'string' },
      'create-burst': { type: 'string' },
      'latency-ms': { type: 'string' },
      'pod-startup-ms': { type: 'string' },
      rate: { type: 'string' },
      seconds: { type: 'string' },
      pods: { type: 'string' },
      resync: { type: 'string' },
      plot: { type: 'string' },
      json: { type: 'string' },
      profile: { type: 'string' },
      'alloc-profile': { type: 'string' },
      'timeout-s': { type: 'string' },
      'keepalive-patch': { type: 'boolean', default: false },
      'app-node-args': { type: 'string' },
      'app-heap': { type: 'string', default: 'shipped' },
      'worker-env': { type: 'string' },
      'watcher-env': { type: 'string' },
      'state-source': { type: 'string', default: 'projection' },
      tracing: { type: 'boolean', default: false },
      event: { type: 'string' },
      // compare's own (bench/compare/args.ts reads them from the command line)
      base: { type: 'string' },
      'base-dir': { type: 'string' },
      scenarios: { type: 'string' },
      pairs: { type: 'string' },
      fresh: { type: 'boolean', default: false },
      lifecycle: { type: 'string' },
      'node-agent': { type: 'boolean', default: false },
      'redis-stats': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  }),
);
const scenario = positionals[0];
if (a.help || scenario === undefined) {
  console.log(USAGE);
  process.exit(a.help ? 0 : 2);
}
if (scenario === 'compare') {
  // Everything but the word compare, as typed: what compare does not take is passed to every run.
  const at = tokens.find((t) => t.kind === 'positional')!.index;
  const parsed = parseCompareArgs(process.argv.slice(2).filter((_, i) => i !== at));
  if ('error' in parsed) {
    console.error(`bench compare: ${parsed.error}\n${USAGE}`);
    process.exit(2);
  }
  const log = (s: string): void => void process.stderr.write(`${s}\n`);
  process.exit(await compare(parsed, { repo: REPO, log, print: (s) => console.log(s) }));
}
const compareOnly = (['base', 'base-dir', 'scenarios', 'pairs', 'fresh'] as const).filter(
  (k) => a[k] !== undefined && a[k] !== false,
);
if (compareOnly.length > 0) {
  console.error(`bench: --${compareOnly.join(', --')} belong to compare, not "${scenario}"\n${USAGE}`);
  process.exit(2);
}
const num = (name: string, v: string | undefined, dflt: number): number => {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`bench: --${name} must be a non-negative number, got "${v}"\n${USAGE}`);
    process.exit(2);
  }
  return n;
};
/** --pod-startup-ms "D,J" as converge's podStartup (nothing when not given). */
function podStartupOf(v: string | undefined): { podStartup?: { delay: number; jitter: number } } {
  if (v === undefined) return {};
  const [delay, jitter, ...rest] = v.split(',');
  if (rest.length > 0 || jitter === undefined) {
    console.error(`bench: --pod-startup-ms must be "DELAY,JITTER" (ms), got "${v}"\n${USAGE}`);
    process.exit(2);
  }
  return { podStartup: { delay: num('pod-startup-ms', delay, 0), jitter: num('pod-startup-ms', jitter, 0) } };
}
const smoke = a.smoke;
const cluster = a.kubeconfig !== undefined ? { kubeconfig: path.resolve(a.kubeconfig) } : undefined;
if (cluster !== undefined) {
  const problem =
    scenario !== 'converge'
      ? `--kubeconfig runs converge only (the other scenarios need kube-sim's latency, faults or process), not "${scenario}"`
      : a['latency-ms'] !== undefined
        ? '--latency-ms is added by kube-sim: it does not apply with --kubeconfig'
        : !existsSync(cluster.kubeconfig)
          ? `--kubeconfig ${a.kubeconfig}: no such file`
          : undefined;
  if (problem !== undefined) {
    console.error(`bench: ${problem}\n${USAGE}`);
    process.exit(2);
  }
}
const podRunner = ((): PodRunner => {
  const problem =
    a.lifecycle !== undefined && a.lifecycle !== 'kubelet' && a.lifecycle !== 'fast'
      ? `--lifecycle must be kubelet or fast, got "${a.lifecycle}"`
      : a['node-agent'] && a.lifecycle !== undefined
        ? "--node-agent replaces kube-sim's lifecycle: it takes no --lifecycle"
        : (a['node-agent'] || a.lifecycle !== undefined) && scenario !== 'converge'
          ? `--lifecycle and --node-agent are converge's, not "${scenario}"'s`
          : (a['node-agent'] || a.lifecycle !== undefined) && cluster !== undefined
            ? "--lifecycle and --node-agent are kube-sim's: with --kubeconfig the cluster runs the pods"
            : undefined;
  if (problem !== undefined) {
    console.error(`bench: ${problem}\n${USAGE}`);
    process.exit(2);
  }
  return a['node-agent'] ? 'node-agent' : a.lifecycle === 'fast' ? 'fast' : 'kubelet';
})();
if (a['state-source'] !== 'api' && a['state-source'] !== 'projection') {
  console.error(`bench: --state-source must be api or projection\n${USAGE}`);
  process.exit(2);
}
// With --tracing, every watcher and worker exports its spans to a sink here (it answers 200 and counts them),
// as they would to a Collector: what tracing costs the apps is then in their CPU figures.
const traceSink = a.tracing ? await startOtlpReceiver() : undefined;
setAppEnv({
  STATE_SOURCE: a['state-source'],
  ...(traceSink !== undefined ? { OTEL_EXPORTER_OTLP_ENDPOINT: traceSink.url } : {}),
});
const latencyEvent = a.event ?? 'podset-label';
if (latencyEvent !== 'pod-annotation' && latencyEvent !== 'podset-label') {
  console.error(`bench: --event must be pod-annotation or podset-label\n${USAGE}`);
  process.exit(2);
}
const common = {
  smoke,
  timeoutMs: num('timeout-s', a['timeout-s'], smoke ? 120 : 900) * 1000,
  createBurst: num('create-burst', a['create-burst'], 64),
  ...(a.profile ? { profileDir: path.resolve(a.profile) } : {}),
};
setAppNodeArgs([
  ...(a['keepalive-patch']
    ? ['--import', pathToFileURL(path.join(REPO, 'bench/lib/keepalive-preload.ts')).href]
    : []),
  ...(a['alloc-profile'] ? ['--import', allocProfilePreload(a['alloc-profile'])] : []),
  ...(a['app-node-args']?.split(/\s+/).filter((x) => x !== '') ?? []),
]);
/** `--alloc-profile DIR`: the preload's URL, naming the directory (made now: the apps write into it at exit). */
function allocProfilePreload(dir: string): string {
  const abs = path.resolve(dir);
  mkdirSync(abs, { recursive: true });
  const url = pathToFileURL(path.join(REPO, 'bench/lib/alloc-profile-preload.ts'));
  url.searchParams.set('dir', abs);
  return url.href;
}
/** `--worker-env` / `--watcher-env`: NAME=VALUE pairs separated by spaces. */
function envPairs(flag: string, value: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of value?.split(/\s+/).filter((x) => x !== '') ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      console.error(`bench: --${flag} takes NAME=VALUE pairs, got "${pair}"\n${USAGE}`);
      process.exit(2);
    }
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}
if (a['app-heap'] !== 'shipped' && a['app-heap'] !== 'host') {
  console.error(`bench: --app-heap must be shipped or host, not "${a['app-heap']}"\n${USAGE}`);
  process.exit(2);
}
const appHeapFlags = setAppHeap(a['app-heap'], REPO);
setRoleEnv('worker', envPairs('worker-env', a['worker-env']));
setRoleEnv('watcher', envPairs('watcher-env', a['watcher-env']));
setRedisStats(num('redis-stats', a['redis-stats'], 0));
const log = (s: string): void => {
  process.stderr.write(`[${new Date().toISOString().slice(11, 23)}] ${s}\n`);
};
cleanUpOnSignals(log);

const runners: Record<string, () => Promise<Result>> = {
  converge: () =>
    converge(
      {
        ...common,
        podsets: num('podsets', a.podsets, smoke ? 20 : 1000),
        replicas: num('replicas', a.replicas, smoke ? 3 : 10),
        workers: num('workers', a.workers, smoke ? 1 : 2),
        concurrency: num('concurrency', a.concurrency, smoke ? 4 : 16),
        latencyMs: num('latency-ms', a['latency-ms'], 0),
        ...podStartupOf(a['pod-startup-ms']),
        cluster,
        pods: podRunner,
        // The plot in docs/ is kube-sim's: a run on another cluster writes one only when asked.
        ...(a.plot
          ? { plot: path.resolve(a.plot) }
          : smoke || cluster !== undefined
            ? {}
            : { plot: path.join(REPO, 'docs/perf-converge.svg') }),
      },
      log,
    ),
  latency: () =>
    latency(
      {
        ...common,
        podsets: num('podsets', a.podsets, smoke ? 20 : 1000),
        workers: num('workers', a.workers, smoke ? 1 : 2),
        concurrency: num('concurrency', a.concurrency, smoke ? 4 : 16),
        rate: num('rate', a.rate, smoke ? 100 : 1000),
        seconds: num('seconds', a.seconds, smoke ? 2 : 10),
        event: latencyEvent,
      },
      log,
    ),
  scaling: () =>
    scaling(
      {
        ...common,
        podsets: num('podsets', a.podsets, smoke ? 6 : 400),
        replicas: num('replicas', a.replicas, smoke ? 2 : 5),
        concurrency: num('concurrency', a.concurrency, smoke ? 4 : 8),
        latencyMs: num('latency-ms', a['latency-ms'], 20),
        workerCounts: smoke ? [1, 2] : [1, 2, 4],
      },
      log,
    ),
  footprint: () =>
    footprint(
      {
        ...common,
        small: smoke ? 100 : 1000,
        large: num('pods', a.pods, smoke ? 1000 : 100_000),
        podsets: num('podsets', a.podsets, smoke ? 10 : 100),
        projection: a['state-source'] === 'projection',
      },
      log,
    ),
  'live-before-bulk': () =>
    liveBeforeBulk(
      {
        ...common,
        resync: num('resync', a.resync, smoke ? 100 : 10_000),
        workers: num('workers', a.workers, smoke ? 1 : 2),
        concurrency: num('concurrency', a.concurrency, smoke ? 4 : 16),
        repeats: smoke ? 1 : 2,
      },
      log,
    ),
};

const names = scenario === 'all' ? Object.keys(runners) : [scenario];
for (const name of names) {
  const run = runners[name];
  if (run === undefined) {
    console.error(`bench: unknown scenario "${name}"\n${USAGE}`);
    process.exit(2);
  }
}
let failed = false;
for (const name of names) {
  try {
    const result = await runners[name]!();
    if (a['keepalive-patch']) result.options.keepalivePatch = true;
    if (a['app-node-args']) result.options.appNodeArgs = a['app-node-args'];
    if (a['alloc-profile']) result.options.allocProfile = path.resolve(a['alloc-profile']);
    result.options.appHeap = a['app-heap'];
    result.options.appHeapFlags = Object.entries(appHeapFlags)
      .map(([app, flags]) => `${app}: ${flags.join(' ') || 'Node defaults'}`)
      .join('; ');
    if (a['worker-env']) result.options.workerEnv = a['worker-env'];
    if (a['watcher-env']) result.options.watcherEnv = a['watcher-env'];
    result.options.stateSource = a['state-source'];
    if (traceSink !== undefined) {
      const exports = [...traceSink.requests.values()].reduce((n, c) => n + c, 0);
      result.options.tracing = true;
      result.data.traceExports = exports;
      result.rows.push({ figure: 'tracing on: OTLP export requests received', value: String(exports) });
    }
    printTable(result);
    const file = writeJson(result, names.length === 1 ? a.json : undefined);
    console.log(`results: ${path.relative(process.cwd(), file)}`);
  } catch (err) {
    // Interrupted: the scenario's failure is the interruption's doing; the handler reports and exits.
    if (interrupted.aborted) break;
    failed = true;
    console.error(`bench ${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }
}
await awaitInterruptCleanup();
await traceSink?.close();
process.exit(failed ? 1 : 0);
