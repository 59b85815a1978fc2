// What converge reports: the figures derived from its three runs, its table, its plot and its JSON record.
import { WRITE_VERBS, writesPer } from '../../lib/figures.ts';
import { helperShares, operatorSeconds, perPod, wakeUpsPerPod } from '../../lib/goals.ts';
import type { PodEventCounts } from '../../lib/pod-events.ts';
import { describeRunner } from '../../lib/pod-runner.ts';
import { fmt, lineChart, writeText, type Result, type Row, type Series } from '../../lib/report.ts';
import type { Sample } from '../../lib/tracker.ts';
import type { ConvergeOptions } from './options.ts';
import type { LimitRun, OperatorRun, PeerRun } from './runs.ts';

/** The figures converge judges, from the three runs of N × R pods. */
export function figuresOf(o: ConvergeOptions, op: OperatorRun, limit: LimitRun, peer: PeerRun) {
  const N = o.podsets;
  const R = o.replicas;
  const ratio = op.seconds / limit.seconds;
  const sum = (c: Record<string, number>): number => Object.values(c).reduce((a, b) => a + b, 0);
  const opCpu = sum(op.cpuSeconds);
  const limitCpu = sum(limit.cpuSeconds);
  const pods = N * R;
  const peerCpu = sum(peer.cpuSeconds);
  // CPU per converged pod of every process in the run (kube-sim included), as for the limit.
  const peerRatio = { time: op.seconds / peer.seconds, cpuPerPod: opCpu / peerCpu };
  const writesPerPod = op.writes / pods;
  // Issue 37: the workers read a key from the API before a reconcile that creates or deletes.
  const keyReadsPerPod = op.keyReads / pods;
  // One create per pod and two status writes per PodSet, as a ReplicaSet's (after the pass that creates
  // its pods, counting them, and once they are ready); the target allows a tenth of a write per pod more
  // (1.3 at the default 10 replicas), so it is never below what the work needs.
  const minWrites = (R + 2) / R;
  const maxWrites = minWrites + 0.1;
  // The operator's own processes (not kube-sim, not the bench's client) against the API server's CPU for the
  // same pods in the limit run: what running the operator costs beside the cluster it drives.
  const operatorCpu = operatorSeconds(op.cpuSeconds);
  // Issue 21: the operator's processes (watcher + workers + Redis) against the peer's one process, for the
  // same pods in the same run, so per pod this is the ratio of the totals.
  const peerProcessCpu = peer.cpuSeconds.peer ?? NaN;
  const operatorCpuPerPeerCpu = operatorCpu / peerProcessCpu;
  const per = perPod(op.cpuSeconds, pods);
  const wakeUps = wakeUpsPerPod(op.wakeUps, peer.wakeUps, pods);
  const helpers = helperShares(op, peer);
  const limitApiCpu = limit.cpuSeconds['kube-sim'] ?? NaN;
  const operatorCpuPerApiCpu = operatorCpu / limitApiCpu;
  return {
    o,
    op,
    limit,
    peer,
    N,
    R,
    pods,
    ratio,
    opCpu,
    limitCpu,
    peerRatio,
    writesPerPod,
    keyReadsPerPod,
    minWrites,
    maxWrites,
    operatorCpu,
    peerProcessCpu,
    operatorCpuPerPeerCpu,
    per,
    wakeUps,
    helpers,
    limitApiCpu,
    operatorCpuPerApiCpu,
  };
}

export type Figures = ReturnType<typeof figuresOf>;

/** The table: time and CPU against the limit and the peer, then what each pod cost in requests and CPU. */
export function convergeRows(f: Figures): Row[] {
  const rows = [...speedRows(f), ...costRows(f)];
  if (f.o.cluster !== undefined) onAnotherCluster(rows);
  return rows;
}

function speedRows(f: Figures): Row[] {
  const { op, limit, peer, ratio, peerRatio, operatorCpu, peerProcessCpu, operatorCpuPerPeerCpu, per, pods } =
    f;
  const w = f.wakeUps;
  return [
    { figure: 'operator: time to converge', value: `${fmt(op.seconds, 2)} s` },
    {
      figure: 'limit: creates done / all ready',
      value: `${fmt(limit.createSeconds, 2)} / ${fmt(limit.seconds, 2)} s`,
    },
    { figure: 'operator / limit', value: fmt(ratio, 2), target: '≤ 1.3', met: ratio <= 1.3 },
    { figure: 'peer: time to converge', value: `${fmt(peer.seconds, 2)} s` },
    {
      figure: 'operator / peer: time to converge',
      value: fmt(peerRatio.time, 2),
      target: '≤ 1.0',
      met: peerRatio.time <= 1.0,
    },
    {
      figure: 'operator / peer: CPU per pod (watcher + workers + Redis ÷ peer process)',
      value: `${fmt(operatorCpuPerPeerCpu, 2)} (${fmt(operatorCpu, 1)} / ${fmt(peerProcessCpu, 1)} s)`,
      target: '≤ 1.0',
      met: operatorCpuPerPeerCpu <= 1.0,
    },
    {
      figure: 'operator / peer: CPU per pod, every process (kube-sim, bench included)',
      value: fmt(peerRatio.cpuPerPod, 2),
    },
    {
      figure: 'watcher CPU per converged pod',
      value: `${fmt(per.watcherMs, 3)} ms`,
      target: '≤ 0.15 ms',
      met: per.watcherMs <= 0.15,
    },
    {
      figure: 'Redis CPU per converged pod',
      value: `${fmt(per.redisMs, 3)} ms`,
      target: '≤ 0.10 ms',
      met: per.redisMs <= 0.1,
    },
    {
      figure: 'ceiling: one core ÷ the larger of watcher, Redis per pod',
      value: `${fmt(per.ceilingPodsPerSecond)} pods/s`,
      target: '≥ 6,000 pods/s',
      met: per.ceilingPodsPerSecond >= 6000,
    },
    { figure: 'workers CPU per converged pod', value: `${fmt(per.workersMs, 3)} ms` },
    {
      // A process's CPU follows its wake-ups as much as its work: the count does not move with the load.
      figure: 'wake-ups per converged pod: watcher · workers · Redis (peer)',
      value: `${fmt(w.watcher, 2)} · ${fmt(w.workers, 2)} · ${fmt(w.redis, 2)} (peer ${fmt(w.peer, 2)})`,
    },
    {
      // The garbage collector's background work and the optimizing compiler, off the main thread: the young
      // generation's size (--app-heap) moves it.
      figure: 'of that CPU, helper threads (GC, compiler): watcher · workers (peer)',
      value: `${pct(f.helpers.watcher)} · ${pct(f.helpers.workers)} (peer ${pct(f.helpers.peer)})`,
    },
    {
      figure: 'peer: CPU s (peer / kube-sim), writes and reads per pod',
      value: `${fmt(peer.cpuSeconds.peer ?? NaN, 1)} / ${fmt(peer.cpuSeconds['kube-sim'] ?? NaN, 1)}, ${fmt(peer.writes / pods, 3)}, ${fmt(peer.reads / pods, 3)}`,
    },
  ];
}

function costRows(f: Figures): Row[] {
  const { o, op, peer, N, pods, writesPerPod, maxWrites, minWrites, keyReadsPerPod, opCpu, limitCpu } = f;
  const { operatorCpu, operatorCpuPerApiCpu, limit, limitApiCpu } = f;
  return [
    { figure: 'pods converged per second', value: fmt(pods / op.seconds) },
    {
      figure: 'API writes per converged pod',
      value: fmt(writesPerPod, 3),
      target: `≤ ${fmt(maxWrites, 2)} (min ${fmt(minWrites, 2)})`,
      met: writesPerPod <= maxWrites,
    },
    {
      figure: 'API reads per converged pod (GET PodSet + LIST pods)',
      value: fmt(keyReadsPerPod, 3),
      target: '≤ 0.2',
      met: keyReadsPerPod <= 0.2,
    },
    { figure: 'reads per reconcile', value: fmt(op.reads / Math.max(1, op.reconciles), 2) },
    { figure: 'reconciles per PodSet', value: fmt(op.reconciles / N, 2) },
    ...podCostRows(o, op, peer, pods),
    { figure: 'active pods at the end (want N×R)', value: `${op.activePods} (${pods})` },
    {
      figure: 'kube-sim CPU s: operator run / limit run',
      value: `${fmt(op.cpuSeconds['kube-sim'] ?? NaN, 1)} / ${fmt(limit.cpuSeconds['kube-sim'] ?? NaN, 1)}`,
    },
    {
      figure: 'CPU s, every process: operator run / limit run',
      value: `${fmt(opCpu, 1)} / ${fmt(limitCpu, 1)} (${fmt(opCpu / limitCpu, 2)}×)`,
    },
    {
      figure: 'operator CPU s (workers + watcher + redis)',
      value: `${fmt(operatorCpu, 1)} (watcher ${fmt(op.cpuSeconds.watcher ?? NaN, 1)}, redis ${fmt(op.cpuSeconds.redis ?? NaN, 1)})`,
    },
    {
      figure: 'operator CPU per pod ÷ API server CPU per pod (limit run)',
      value: `${fmt(operatorCpuPerApiCpu, 2)}× (${fmt((operatorCpu / pods) * 1000, 2)} / ${fmt((limitApiCpu / pods) * 1000, 2)} ms)`,
      target: '≤ 1.0',
      met: operatorCpuPerApiCpu <= 1.0,
    },
    {
      figure: 'mean start latency (worker histogram)',
      value: `${fmt((op.startLatency.sum / Math.max(1, op.startLatency.count)) * 1000, 1)} ms`,
    },
  ];
}

/** The SVG plot of pods ready over time in the three runs (and pods in converged status, the operator's). */
export function plotConverge(file: string, f: Figures): void {
  const { o, op, limit, peer, N, R, ratio } = f;
  const toSeries = (
    label: string,
    color: string,
    s: Sample[],
    pick: (x: Sample) => number,
    dashed = false,
  ): Series => ({
    label,
    color,
    dashed,
    points: s.map((x) => [x.t, pick(x)]),
  });
  writeText(
    file,
    lineChart(
      `converge: ${N} PodSets × ${R} pods, ${o.workers} workers × ${o.concurrency} (operator ${fmt(ratio, 2)}× the limit)`,
      'seconds',
      'pods',
      [
        toSeries('limit: pods ready (direct create loop)', '#888', limit.samples, (x) => x.readyPods, true),
        toSeries('operator: pods ready', '#1f77b4', op.samples, (x) => x.readyPods),
        toSeries(
          'peer: pods ready (informers, in-process queue)',
          '#2ca02c',
          peer.samples,
          (x) => x.readyPods,
        ),
        toSeries('operator: pods in converged PodSet status', '#d62728', op.samples, (x) => x.convergedPods),
      ],
    ),
  );
}

/** The JSON record of the run. */
export function convergeResult(f: Figures, rows: Row[]): Result {
  const { o, op, limit, peer, N, R, ratio, opCpu, limitCpu, operatorCpuPerApiCpu, operatorCpuPerPeerCpu } = f;
  const { per, peerProcessCpu, pods, peerRatio, writesPerPod, keyReadsPerPod } = f;
  return {
    scenario: 'converge',
    smoke: o.smoke,
    options: {
      podsets: N,
      replicas: R,
      workers: o.workers,
      concurrency: o.concurrency,
      createBurst: o.createBurst,
      latencyMs: o.latencyMs,
      ...(o.podStartup !== undefined ? { podStartupMs: o.podStartup } : {}),
      ...(o.cluster !== undefined ? { kubeconfig: o.cluster.kubeconfig } : { pods: o.pods ?? 'kubelet' }),
    },
    rows,
    data: {
      operator: { ...op, samples: thin(op.samples) },
      limit: { ...limit, samples: thin(limit.samples) },
      ratio,
      cpuRatio: opCpu / limitCpu,
      operatorCpuPerApiCpu,
      operatorCpuPerPeerCpu,
      perPod: { ...per, peerMs: (peerProcessCpu / pods) * 1000 },
      wakeUpsPerPod: f.wakeUps,
      helperShares: f.helpers,
      peer: { ...peer, samples: thin(peer.samples), ratio: peerRatio.time, cpuRatio: peerRatio.cpuPerPod },
      writesPerPod,
      keyReadsPerPod,
      namespace: o.cluster === undefined ? 'default' : 'a fresh one per run',
      cluster: o.cluster === undefined ? 'kube-sim' : 'kubeconfig',
    },
  };
}

/**
 * On a cluster given by a kubeconfig there is no kube-sim process to meter and no audit log: the figures
 * that need them say so, and those counted from the workers' /metrics instead say that.
 */
function onAnotherCluster(rows: Row[]): void {
  const NO_AUDIT = "n/a (needs kube-sim's audit)";
  const NO_SIM_CPU = "n/a (needs kube-sim's CPU: the cluster's API server is not a process here)";
  const FROM_METRICS = " (from the workers' /metrics)";
  const change: Record<string, (r: Row) => Row> = {
    'operator / peer: CPU per pod, every process (kube-sim, bench included)': (r) => ({
      ...r,
      value: NO_SIM_CPU,
    }),
    'peer: CPU s (peer / kube-sim), writes and reads per pod': (r) => ({
      ...r,
      value: `${r.value.split(' / ')[0] ?? ''} / n/a, ${NO_AUDIT}`,
    }),
    'API writes per converged pod': (r) => ({ ...r, value: r.value + FROM_METRICS }),
    'reads per reconcile': (r) => ({ ...r, value: r.value + FROM_METRICS }),
    'API reads per converged pod (GET PodSet + LIST pods)': (r) => ({ ...r, value: r.value + FROM_METRICS }),
    'kube-sim CPU s: operator run / limit run': (r) => ({ ...r, value: NO_SIM_CPU }),
    'CPU s, every process: operator run / limit run': (r) => ({
      ...r,
      value: `${r.value} (the API server's not counted)`,
    }),
    'operator CPU per pod ÷ API server CPU per pod (limit run)': ({ figure, target }) => ({
      figure,
      value: NO_SIM_CPU,
      ...(target !== undefined ? { target } : {}),
    }),
  };
  for (let i = 0; i < rows.length; i++) {
    const f = change[rows[i]!.figure];
    if (f !== undefined) rows[i] = f(rows[i]!);
  }
}

/**
 * What a real cluster's pods cost the operator, to hold against a run through the node agent: who ran the
 * pods, the watch events and the kubelet side's status writes per pod (both runs), and the operator's
 * PodSet status writes per pod.
 */
function podCostRows(o: ConvergeOptions, op: OperatorRun, peer: PeerRun, pods: number): Row[] {
  const per = (c: PodEventCounts, n: number): string => fmt(n / Math.max(1, c.pods), 2);
  let podSetStatusWrites = 0;
  for (const [k, v] of Object.entries(op.audit))
    if (WRITE_VERBS.has(k.split(' ')[0]!) && k.endsWith('podsets/status')) podSetStatusWrites += v;
  return [
    {
      figure: 'pods run by',
      value: o.cluster !== undefined ? 'the cluster' : describeRunner(o.pods ?? 'kubelet'),
    },
    {
      figure: 'watch events per pod: operator run / peer run',
      value: `${per(op.podEvents, op.podEvents.events)} / ${per(peer.podEvents, peer.podEvents.events)}`,
    },
    {
      figure: "kubelet side's status writes per pod: operator run / peer run",
      value: `${per(op.podEvents, op.podEvents.statusWrites)} / ${per(peer.podEvents, peer.podEvents.statusWrites)}`,
    },
    { figure: "operator's PodSet status writes per pod", value: fmt(podSetStatusWrites / pods, 3) },
    { figure: "operator's API writes per PodSet, by kind", value: writesPer(op.audit, o.podsets) },
  ];
}

/** At most ~400 samples (for the JSON). */
function thin<T>(xs: T[]): T[] {
  const step = Math.max(1, Math.ceil(xs.length / 400));
  return xs.filter((_, i) => i % step === 0 || i === xs.length - 1);
}

/** A share as a whole percent ("n/a" when it could not be measured). */
function pct(share: number): string {
  return Number.isFinite(share) ? `${Math.round(share * 100)} %` : 'n/a';
}
