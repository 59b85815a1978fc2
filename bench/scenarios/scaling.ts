// scaling: the same converge workload (N PodSets × R) with 1, 2 and 4 worker processes (C each) while
// kube-sim adds a fixed latency to every request; throughput = pods converged per second. Pods start
// at once (no simulated startup delay), so the time is the operator's.
import { perPod, workersSeconds } from '../lib/goals.ts';
import { fmt, type Result, type Row } from '../lib/report.ts';
import { runOperator, type OperatorRun } from './converge/runs.ts';

export interface ScalingOptions {
  podsets: number;
  replicas: number;
  concurrency: number;
  latencyMs: number;
  workerCounts: number[];
  createBurst: number;
  timeoutMs: number;
  profileDir?: string;
  smoke: boolean;
}

export async function scaling(o: ScalingOptions, log: (s: string) => void): Promise<Result> {
  const runs: { workers: number; run: OperatorRun; podsPerSecond: number }[] = [];
  const pods = o.podsets * o.replicas;
  for (const w of o.workerCounts) {
    const run = await runOperator(
      {
        name: `scaling-${w}`,
        podsets: o.podsets,
        replicas: o.replicas,
        workers: w,
        concurrency: o.concurrency,
        createBurst: o.createBurst,
        latencyMs: o.latencyMs,
        timeoutMs: o.timeoutMs,
        podStartup: { delay: 0, jitter: 0 },
        ...(o.profileDir ? { profileDir: o.profileDir } : {}),
      },
      log,
    );
    if (run.activePods !== pods)
      throw new Error(`${w} workers left ${run.activePods} pods, expected ${pods}`);
    runs.push({ workers: w, run, podsPerSecond: pods / run.seconds });
  }
  const base = runs[0]!.podsPerSecond;
  // Workers' CPU per pod, counted from right before the first measured PodSet is created (after a
  // warm-up that gave every worker a reconcile), so start-up and module loading are not in it.
  const workersMs = (r: (typeof runs)[number]): number => perPod(r.run.cpuSeconds, pods).workersMs;
  const first = runs[0]!;
  const last = runs.at(-1)!;
  const cpuRatio = workersMs(last) / workersMs(first);
  const rows: Row[] = runs.flatMap((r): Row[] => {
    const speedup = r.podsPerSecond / base;
    const target = r.workers === 4 ? { target: '≥ 3.2×', met: speedup >= 3.2 } : {};
    return [
      {
        figure: `${r.workers} worker${r.workers > 1 ? 's' : ''}: time, pods/s`,
        value: `${fmt(r.run.seconds, 2)} s, ${fmt(r.podsPerSecond, 1)}/s`,
      },
      {
        figure: `${r.workers} worker${r.workers > 1 ? 's' : ''}: CPU s (kube-sim, workers)`,
        value: `${fmt(r.run.cpuSeconds['kube-sim'] ?? NaN, 1)}, ${fmt(workersSeconds(r.run.cpuSeconds), 1)}`,
      },
      {
        figure: `${r.workers} worker${r.workers > 1 ? 's' : ''}: workers CPU per pod (from the first request)`,
        value: `${fmt(workersMs(r), 3)} ms`,
      },
      {
        figure: `${r.workers} worker${r.workers > 1 ? 's' : ''}: mean request → reconcile start`,
        value: `${fmt((r.run.startLatency.sum / Math.max(1, r.run.startLatency.count)) * 1000)} ms`,
      },
      {
        figure: `${r.workers} worker${r.workers > 1 ? 's' : ''}: speed-up`,
        value: `${fmt(speedup, 2)}×`,
        ...target,
      },
    ];
  });
  // The goal compares 4 workers with 1; a run with other counts (--smoke: 1, 2) prints its own ratio, unjudged.
  const judged = first.workers === 1 && last.workers === 4;
  rows.push({
    figure: `workers CPU per pod: ${last.workers} workers ÷ ${first.workers}`,
    value: `${fmt(cpuRatio, 2)}× (${fmt(workersMs(last), 3)} / ${fmt(workersMs(first), 3)} ms)`,
    ...(judged ? { target: '≤ 1.1×', met: cpuRatio <= 1.1 } : {}),
  });
  return {
    scenario: 'scaling',
    smoke: o.smoke,
    options: {
      podsets: o.podsets,
      replicas: o.replicas,
      concurrency: o.concurrency,
      latencyMs: o.latencyMs,
      workerCounts: o.workerCounts,
    },
    rows,
    data: {
      runs: runs.map((r) => ({
        workers: r.workers,
        seconds: r.run.seconds,
        podsPerSecond: r.podsPerSecond,
        speedup: r.podsPerSecond / base,
        reconciles: r.run.reconciles,
        writes: r.run.writes,
        reads: r.run.reads,
        audit: r.run.audit,
        cpuSeconds: r.run.cpuSeconds,
        cpuSecondsBeforeClock: r.run.cpuSecondsBeforeClock,
        everyWorkerWarm: r.run.everyWorkerWarm,
        workersCpuMsPerPod: workersMs(r),
        startLatency: r.run.startLatency,
      })),
      workersCpuPerPodRatio: cpuRatio,
    },
  };
}
