// The three runs of converge, each on a fresh world: the operator, the limit (a direct create loop) and the
// peer (one in-process controller), each until every pod is ready; each returns what it cost.
import type { PodSet } from '@podset/reconcile';
import { podManifest, templateHash } from '@podset/reconcile';
import { type KubeObj } from '../../lib/client.ts';
import { World, type ExternalCluster } from '../../lib/cluster.ts';
import {
  countByVerb,
  cpuSecondsOf,
  READ_VERBS,
  startEnvOf,
  sumMetric,
  WRITE_VERBS,
} from '../../lib/figures.ts';
import { pool, podSetBody } from '../../lib/podsets.ts';
import { benchCpuSince, meterCpu, meterHelperCpu, meterWakeUps } from '../../lib/cpu-meter.ts';
import { PodEventCounter, type PodEventCounts } from '../../lib/pod-events.ts';
import { reportRedis } from '../../lib/redis-profile.ts';
import { simOptionsFor, type PodRunner } from '../../lib/pod-runner.ts';
import { fmt } from '../../lib/report.ts';
import type { Sample } from '../../lib/tracker.ts';
import { simOptionsOf, type ConvergeOptions } from './options.ts';
import {
  createAndConverge,
  keyReadsOf,
  requestsFromMetrics,
  simPid,
  sumVerbs,
  trackerOf,
  warmEveryWorker,
  warmUp,
} from './steps.ts';

/** What one converge run cost, operator's or peer's. */
export interface RunCost {
  seconds: number;
  samples: Sample[];
  activePods: number;
  audit: Record<string, number>;
  writes: number;
  reads: number;
  reconciles: number;
  cpuSeconds: Record<string, number>;
  /** Each process's wake-ups (its main thread's sleeps: meterWakeUps) over the same window as cpuSeconds. */
  wakeUps: Record<string, number>;
  /** Of cpuSeconds, each process's helper threads' (meterHelperCpu: GC and compiler work off the main thread). */
  helperCpuSeconds: Record<string, number>;
  /** The measured pods' watch events and status writes. */
  podEvents: PodEventCounts;
}

export interface OperatorRun extends RunCost {
  reconcilesFromAudit: number;
  /** The workers' reads of a key from the API (GET of a PodSet, LIST of pods): acting reconciles and fallbacks. */
  keyReads: number;
  startLatency: { count: number; sum: number };
  /** Each process's CPU seconds from its start to the clock's start (start-up and warm-up: not counted). */
  cpuSecondsBeforeClock: Record<string, number>;
  /** Every worker reconciled during the warm-up (so none pays its first-request costs on the clock). */
  everyWorkerWarm: boolean;
  /** The NODE_OPTIONS each app process was started with, as /proc shows them (the heap it ran: --app-heap). */
  nodeOptions: Record<string, string>;
}

/** Runs the operator on a fresh world until N PodSets × R converge; returns what it cost. */
export async function runOperator(
  o: Pick<
    ConvergeOptions,
    'podsets' | 'replicas' | 'workers' | 'concurrency' | 'createBurst' | 'latencyMs' | 'timeoutMs'
  > & {
    profileDir?: string;
    name?: string;
    podStartup?: { delay: number; jitter: number };
    cluster?: ExternalCluster | undefined;
    /** Default fast. */
    pods?: PodRunner | undefined;
  },
  log: (s: string) => void,
): Promise<OperatorRun> {
  const world = await World.open(
    o.name ?? 'converge',
    {
      ...simOptionsOf(o),
      ...simOptionsFor(o.pods ?? 'fast'),
      ...(o.profileDir ? { profileDir: o.profileDir } : {}),
    },
    o.cluster,
  );
  const tracker = trackerOf(world);
  tracker.reportProgress(o.name ?? 'operator', { pods: o.podsets * o.replicas, podSets: o.podsets }, log);
  const podEvents = new PodEventCounter();
  tracker.onPod = (type, pod) => podEvents.onPod(type, pod);
  try {
    const workers = await world.startOperator(o);
    const describe = (): string => world.apps.map((p) => p.describe()).join('\n');
    // Warm up the whole path (watch → queue → worker → API) with one PodSet before the clock starts, then
    // until every worker has reconciled: a worker's first reconcile pays for its lazy loading, JIT and
    // connections, which are start-up, not the measured work (CPU is counted from here).
    await warmUp(world, describe);
    const everyWorkerWarm = await warmEveryWorker(world, workers, o.concurrency, describe);
    if (!everyWorkerWarm) log('operator: a worker took no warm-up request; its start-up CPU is counted');
    await tracker.watch();
    const before = await Promise.all(workers.map((w) => world.metrics(w)));
    const pids: Record<string, number> = { ...simPid(world), redis: world.redis.process.pid! };
    for (const p of world.apps) pids[p.name] = p.pid!;
    const redisReport = await reportRedis(world.redis.url, o.podsets * o.replicas, log);
    // Right before the first PodSet of the measured batch is created.
    const cpuMeter = meterCpu(pids);
    const wakeUpMeter = meterWakeUps(pids);
    const helperMeter = meterHelperCpu(pids);
    const cpuAtStart = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSecondsOf(pid)]));
    const since = new Date().toISOString();
    const N = o.podsets;
    const R = o.replicas;
    log(`operator: ${N} PodSets × ${R}, ${o.workers} workers × ${o.concurrency}`);
    const seconds = await createAndConverge(world, tracker, o, describe);
    tracker.stop();
    const cpu = cpuMeter();
    const wakeUps = wakeUpMeter();
    const helperCpuSeconds = helperMeter();
    log(`operator: converged in ${fmt(seconds, 2)} s`);
    await redisReport(cpu.redis);
    // Let in-flight requests land in the audit, then count.
    await new Promise((r) => setTimeout(r, 300));
    const after = await Promise.all(workers.map((w) => world.metrics(w)));
    const delta = (name: string): number =>
      after.reduce((s, m, i) => s + sumMetric(m, name) - sumMetric(before[i]!, name), 0);
    // No audit on another cluster: the workers' own request counters (the same requests, counted by the client).
    const entries = world.sim !== undefined ? await world.audit('worker', since) : undefined;
    const audit =
      entries !== undefined
        ? countByVerb(entries)
        : requestsFromMetrics(before, after, 'podset_kube_requests_total');
    const writes = sumVerbs(audit, WRITE_VERBS);
    const reads = sumVerbs(audit, READ_VERBS);
    const pods = await world.admin.json<{ items: KubeObj[] }>(
      'GET',
      `${world.podsPath}?labelSelector=app%3Dbench`,
    );
    const activePods = pods.items.filter(
      (p) =>
        p.metadata.name.startsWith('ps-') &&
        p.metadata.deletionTimestamp === undefined &&
        p.status?.phase !== 'Succeeded' &&
        p.status?.phase !== 'Failed',
    ).length;
    return {
      seconds,
      samples: tracker.samples,
      activePods,
      audit,
      writes,
      reads,
      reconciles: delta('podset_reconcile_total'),
      reconcilesFromAudit:
        entries?.filter((e) => e.verb === 'get' && e.resource === 'podsets').length ?? Number.NaN,
      keyReads: keyReadsOf(audit),
      startLatency: {
        count: delta('podset_reconcile_start_latency_seconds_count'),
        sum: delta('podset_reconcile_start_latency_seconds_sum'),
      },
      cpuSeconds: cpu,
      wakeUps,
      helperCpuSeconds,
      podEvents: podEvents.counts(),
      cpuSecondsBeforeClock: cpuAtStart,
      everyWorkerWarm,
      nodeOptions: Object.fromEntries(world.apps.map((p) => [p.name, startEnvOf(p.pid!, 'NODE_OPTIONS')])),
    };
  } finally {
    tracker.stop();
    await world.close();
  }
}

export type PeerRun = RunCost;

/** The peer on a fresh world, the same warm-up and work as the operator's; returns what it cost. */
export async function runPeer(o: ConvergeOptions, log: (s: string) => void): Promise<PeerRun> {
  const world = await World.open(
    'peer',
    { ...simOptionsOf(o), ...simOptionsFor(o.pods ?? 'kubelet') },
    o.cluster,
  );
  const tracker = trackerOf(world);
  tracker.reportProgress('peer', { pods: o.podsets * o.replicas, podSets: o.podsets }, log);
  const podEvents = new PodEventCounter();
  tracker.onPod = (type, pod) => podEvents.onPod(type, pod);
  try {
    const peer = await world.startPeer('peer', {
      env: { PEER_CONCURRENCY: String(o.workers * o.concurrency), CREATE_BURST: String(o.createBurst) },
    });
    await warmUp(world, () => peer.describe());
    await tracker.watch();
    const pids: Record<string, number> = { ...simPid(world), peer: peer.pid! };
    const cpuMeter = meterCpu(pids);
    const wakeUpMeter = meterWakeUps(pids);
    const helperMeter = meterHelperCpu(pids);
    const since = new Date().toISOString();
    const N = o.podsets;
    const R = o.replicas;
    log(`peer: ${N} PodSets × ${R}, ${o.workers * o.concurrency} reconciles at once`);
    const seconds = await createAndConverge(world, tracker, o, () => peer.describe());
    tracker.stop();
    const cpu = cpuMeter();
    const wakeUps = wakeUpMeter();
    const helperCpuSeconds = helperMeter();
    log(`peer: converged in ${fmt(seconds, 2)} s`);
    await new Promise((r) => setTimeout(r, 300));
    // The peer has no /metrics: without kube-sim's audit its requests are not counted.
    const entries = world.sim !== undefined ? await world.audit('controller', since) : undefined;
    const pods = await world.admin.json<{ items: KubeObj[] }>(
      'GET',
      `${world.podsPath}?labelSelector=app%3Dbench`,
    );
    await peer.stop(15_000);
    const stats = /peer-stats (\{.*\})/.exec(peer.lines().join('\n'))?.[1];
    return {
      seconds,
      samples: tracker.samples,
      activePods: pods.items.filter(
        (p) =>
          p.metadata.name.startsWith('ps-') &&
          p.metadata.deletionTimestamp === undefined &&
          p.status?.phase !== 'Succeeded' &&
          p.status?.phase !== 'Failed',
      ).length,
      audit: entries !== undefined ? countByVerb(entries) : {},
      writes: entries?.filter((e) => WRITE_VERBS.has(e.verb)).length ?? Number.NaN,
      reads: entries?.filter((e) => READ_VERBS.has(e.verb)).length ?? Number.NaN,
      // Counted over the whole run (the warm-up's few included).
      reconciles: stats !== undefined ? (JSON.parse(stats) as { reconciles: number }).reconciles : NaN,
      cpuSeconds: cpu,
      wakeUps,
      helperCpuSeconds,
      podEvents: podEvents.counts(),
    };
  } finally {
    tracker.stop();
    await world.close();
  }
}

/** What the limit run took: until its creates were done, until every pod was ready. */
export interface LimitRun {
  seconds: number;
  createSeconds: number;
  samples: Sample[];
  cpuSeconds: Record<string, number>;
}

/** The limit: the same creates from a tight loop, W×C in flight, until every pod is ready. */
export async function runLimit(o: ConvergeOptions, log: (s: string) => void): Promise<LimitRun> {
  const world = await World.open(
    'limit',
    { ...simOptionsOf(o), ...simOptionsFor(o.pods ?? 'kubelet') },
    o.cluster,
  );
  const tracker = trackerOf(world);
  tracker.reportProgress('limit', { pods: o.podsets * o.replicas }, log);
  const width = o.workers * o.concurrency;
  const client = await world.client('admin', width);
  try {
    await tracker.watch();
    const N = o.podsets;
    const R = o.replicas;
    log(`limit: ${N} PodSets + ${N * R} pods, ${width} in flight`);
    const pid = world.sim?.pid;
    const cpu0 = pid !== undefined ? cpuSecondsOf(pid) : Number.NaN;
    const benchCpu0 = process.cpuUsage();
    tracker.start();
    const sets: PodSet[] = new Array<PodSet>(N);
    await pool(N, width, async (i) => {
      sets[i] = await client.json<PodSet>('POST', world.podSetsPath, podSetBody(`ps-${i}`, R, world.ns));
    });
    await pool(N * R, width, async (k) => {
      await client.json(
        'POST',
        world.podsPath,
        podManifest(sets[Math.floor(k / R)]!, templateHash(sets[Math.floor(k / R)]!)),
      );
    });
    const createSeconds = tracker.elapsed();
    const seconds = await tracker.until(
      () => tracker.readyPods.size >= N * R,
      o.timeoutMs,
      () => `${tracker.readyPods.size}/${N * R} pods ready`,
    );
    tracker.stop();
    log(`limit: all pods ready in ${fmt(seconds, 2)} s (creates done at ${fmt(createSeconds, 2)} s)`);
    return {
      seconds,
      createSeconds,
      samples: tracker.samples,
      cpuSeconds: {
        ...(pid !== undefined ? { 'kube-sim': Math.round((cpuSecondsOf(pid) - cpu0) * 100) / 100 } : {}),
        bench: benchCpuSince(benchCpu0),
      },
    };
  } finally {
    tracker.stop();
    client.close();
    await world.close();
  }
}
