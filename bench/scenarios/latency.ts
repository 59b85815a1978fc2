// latency: a steady stream of watch events at `rate`/s over P converged PodSets — PodSet label patches (a
// change a plan reads), or pod annotation patches (each a MODIFIED event for the pod's PodSet, which with
// either state source requests nothing, by design: left for a watcher that requests every event). For every
// reconcile (its start, from the workers' "reconciled" log lines), the latency is from the earliest event not
// yet served for that PodSet (the patch's commit, from the kube-sim audit) to the reconcile's start — the
// definition of the worker's podset_reconcile_start_latency_seconds, measured end to end through watch,
// watcher, Redis and worker.
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { PODS_PATH, PODSETS_PATH, QUEUE_NAME, QUEUE_PREFIX, sleep, World } from '../lib/cluster.ts';
import { countByVerb, quantile, sumMetric } from '../lib/figures.ts';
import { pool, podSetBody } from '../lib/podsets.ts';
import type { AuditEntry } from '@podset/kube-sim';
import { parseKey } from '@podset/reconcile';
import { meterCommands, perUnit } from '../lib/command-stats.ts';
import { byRole, meterCpu } from '../lib/cpu-meter.ts';
import { meterLogLines } from '../lib/log-lines.ts';
import { fmt, type Result, type Row } from '../lib/report.ts';
import {
  latencyName,
  MAX_LATE_SHARE,
  MIN_RATE_SHARE,
  saturation,
  type Saturation,
} from '../lib/saturation.ts';
import { Tracker } from '../lib/tracker.ts';
import { reconcileStarts } from '../lib/worker-log.ts';

export interface LatencyOptions {
  podsets: number;
  workers: number;
  concurrency: number;
  rate: number;
  seconds: number;
  createBurst: number;
  /** Which object each event patches. */
  event: 'pod-annotation' | 'podset-label';
  timeoutMs: number;
  profileDir?: string;
  smoke: boolean;
}

const WORKER_LOGS = /^worker-.*\.log$/;

type Metrics = Map<string, number>;

export async function latency(o: LatencyOptions, log: (s: string) => void): Promise<Result> {
  const world = await World.start('latency', o.profileDir ? { profileDir: o.profileDir } : {});
  const tracker = new Tracker(world.admin, 'ps-');
  try {
    // Info level: each reconcile's "reconciled" line is how its start is seen (whatever it read).
    const workers = await world.startOperator({ ...o, workerEnv: { LOG_LEVEL: 'info' } });
    const podNames = await convergeAndQuiet(world, tracker, o, log);
    // Its watches would parse every event the sends cause, in the process that paces them, and add a
    // watcher kube-sim serves that no cluster has: nothing reads the tracker from here on.
    tracker.stop();
    const before = await Promise.all(workers.map((w) => world.metrics(w)));
    const sinceMs = Date.now();
    const since = new Date(sinceMs).toISOString();
    const total = Math.round(o.rate * o.seconds);
    log(`latency: ${total} events at ${o.rate}/s`);
    // From the first send until the queue has drained: what each process spent on the events.
    const pids: Record<string, number> = { redis: world.redis.process.pid! };
    if (world.sim?.pid !== undefined) pids['kube-sim'] = world.sim.pid;
    for (const p of world.apps) pids[p.name] = p.pid!;
    const cpuMeter = meterCpu(pids);
    // Redis's commands and the processes' log lines over the same window, for the per-event counts.
    const statsClient = new Redis(world.redis.url);
    const commandMeter = await meterCommands(statsClient);
    const logMeter = meterLogLines(world.logDir);
    const sent = await sendEvents(world, o, podNames, total);
    await waitDrained(world, sinceMs);
    const cpu = byRole(cpuMeter());
    const commands = await commandMeter().finally(() => statsClient.disconnect());
    const logLines = logMeter();
    const m = await measure(world, o, since, sinceMs);
    const after = await Promise.all(workers.map((w) => world.metrics(w)));
    return report(o, log, { ...sent, ...m, cpu, commands, logLines, before, after });
  } finally {
    tracker.stop();
    await world.close();
  }
}

/**
 * P PodSets of one pod each, converged, then quiet before the clock: the watcher has forwarded every event
 * so far (its checkpoint reached the newest resourceVersion) and the queue holds nothing runnable (set-up
 * requests, requeues of not-ready pods). Resolves with one pod name per PodSet.
 */
async function convergeAndQuiet(
  world: World,
  tracker: Tracker,
  o: LatencyOptions,
  log: (s: string) => void,
): Promise<string[]> {
  await tracker.watch();
  const P = o.podsets;
  log(`latency: ${P} PodSets × 1, waiting for them to converge`);
  await pool(P, 32, async (i) => {
    await world.admin.json('POST', PODSETS_PATH, podSetBody(`ps-${i}`, 1));
  });
  await tracker.until(
    () => tracker.converged.size === P,
    o.timeoutMs,
    () => `${tracker.converged.size}/${P} converged`,
  );
  const podList = await world.admin.json<{ items: { metadata: { resourceVersion: string } }[] }>(
    'GET',
    `${PODS_PATH}?labelSelector=podset.io%2Fname`,
  );
  const rvNow = Math.max(...podList.items.map((p) => Number(p.metadata.resourceVersion)));
  const redis = new Redis(world.redis.url);
  const queue = new Queue(QUEUE_NAME, { connection: { url: world.redis.url }, prefix: QUEUE_PREFIX });
  try {
    const deadline = Date.now() + o.timeoutMs;
    for (;;) {
      const rv = Number((await redis.hget(`${QUEUE_PREFIX}:${QUEUE_NAME}:watcher:rv`, 'pods/*')) ?? 0);
      const c = await queue.getJobCounts('active', 'waiting', 'prioritized');
      const busy = (c.active ?? 0) + (c.waiting ?? 0) + (c.prioritized ?? 0);
      if (rv >= rvNow && busy === 0) break;
      if (Date.now() > deadline) throw new Error(`never quiet: watcher at ${rv}/${rvNow}, ${busy} jobs`);
      await sleep(200);
    }
  } finally {
    redis.disconnect();
    await queue.close();
  }
  await sleep(o.smoke ? 300 : 1000);
  const podsByPs = new Map<string, string>();
  for (const name of tracker.activePods) podsByPs.set(name.slice(0, name.lastIndexOf('-')), name);
  const podNames = [...podsByPs.values()];
  if (podNames.length !== P) throw new Error(`expected ${P} pods, saw ${podNames.length}`);
  return podNames;
}

/**
 * Paced: event k is sent at t0 + k/rate; a slow server shows up as lateness, not as a lower rate. Replies
 * are checked by status only: parsing each returned PodSet would cost the sender more than building it.
 */
async function sendEvents(
  world: World,
  o: LatencyOptions,
  podNames: readonly string[],
  total: number,
): Promise<{ sendSeconds: number; issueSeconds: number; late: number }> {
  const P = o.podsets;
  const t0 = performance.now();
  let late = 0;
  let lastIssue = t0;
  const inflight: Promise<void>[] = [];
  const field = o.event === 'pod-annotation' ? 'annotations' : 'labels';
  for (let k = 0; k < total; k++) {
    const due = t0 + (k * 1000) / o.rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    else if (wait < -50) late++;
    const target =
      o.event === 'pod-annotation' ? `${PODS_PATH}/${podNames[k % P]!}` : `${PODSETS_PATH}/ps-${k % P}`;
    const touch = { metadata: { [field]: { 'bench/touch': String(k) } } };
    lastIssue = performance.now();
    inflight.push(
      world.admin.call('PATCH', target, touch, 'application/merge-patch+json').then((r) => {
        if (r.status < 200 || r.status > 299)
          throw new Error(`PATCH ${target}: HTTP ${r.status} ${r.body.toString().slice(0, 300)}`);
      }),
    );
    if (inflight.length > 256) await Promise.all(inflight.splice(0, 128));
  }
  await Promise.all(inflight);
  const end = performance.now();
  return {
    sendSeconds: (end - t0) / 1000,
    issueSeconds: (lastIssue - t0 + 1000 / o.rate) / 1000,
    late,
  };
}

/** Lets the queue drain: no new reconcile for 2 s. */
async function waitDrained(world: World, sinceMs: number): Promise<void> {
  let last = -1;
  for (let quiet = 0; quiet < 4;) {
    await sleep(500);
    const n = reconcileStarts(world.logDir, WORKER_LOGS, sinceMs).length;
    quiet = n === last ? quiet + 1 : 0;
    last = n;
  }
}

/** The window's events (from the audit), reconcile starts (from the workers' logs) and API requests. */
async function measure(world: World, o: LatencyOptions, since: string, sinceMs: number) {
  const resource = o.event === 'pod-annotation' ? 'pods' : 'podsets';
  const events = (await world.audit('admin', since)).filter(
    (e) => e.verb === 'patch' && e.resource === resource,
  );
  const starts = reconcileStarts(world.logDir, WORKER_LOGS, sinceMs);
  // The workers' requests to the API over the window (a label patch acts on nothing: no reads expected).
  const workerRequests = countByVerb(await world.audit('worker', since));
  // The watcher's: its watches run on (a watch is audited when it starts); a relist or a new watch shows here.
  const watcherRequests = countByVerb(await world.audit('watcher', since));
  return {
    events,
    starts,
    workerRequests,
    watcherRequests,
    matched: matchLatencies(resource, events, starts),
  };
}

/**
 * Per PodSet, events (commit ≈ end of the patch request) and reconcile starts in time order: each start
 * serves the events before it, its latency from the earliest of them; events no start follows are unserved.
 */
function matchLatencies(
  resource: 'pods' | 'podsets',
  events: readonly AuditEntry[],
  starts: readonly { podset: string; startMs: number }[],
) {
  const evBy = new Map<string, number[]>();
  for (const e of events) {
    const ps = resource === 'pods' ? e.name.slice(0, e.name.lastIndexOf('-')) : e.name;
    const list = evBy.get(ps) ?? [];
    list.push(Date.parse(e.time));
    evBy.set(ps, list);
  }
  const stBy = new Map<string, number[]>();
  for (const s of starts) {
    const ps = parseKey(s.podset)?.name ?? s.podset;
    const list = stBy.get(ps) ?? [];
    list.push(s.startMs);
    stBy.set(ps, list);
  }
  const lat: number[] = [];
  let unserved = 0;
  let reconciles = 0;
  /** Events with no reconcile of their PodSet starting after them (at most 20, for the JSON). */
  const unservedDetails: {
    podset: string;
    eventAt: string;
    lastReconcileStart: string | undefined;
    reconciles: number;
  }[] = [];
  for (const [ps, evs] of evBy) {
    evs.sort((x, y) => x - y);
    const sts = (stBy.get(ps) ?? []).sort((x, y) => x - y);
    let i = 0;
    for (const s of sts) {
      if (i < evs.length && evs[i]! <= s) {
        lat.push(s - evs[i]!);
        reconciles++;
        while (i < evs.length && evs[i]! <= s) i++;
      }
    }
    unserved += evs.length - i;
    for (let j = i; j < evs.length && unservedDetails.length < 20; j++) {
      const last = sts.at(-1);
      unservedDetails.push({
        podset: ps,
        eventAt: new Date(evs[j]!).toISOString(),
        lastReconcileStart: last === undefined ? undefined : new Date(last).toISOString(),
        reconciles: sts.length,
      });
    }
  }
  lat.sort((x, y) => x - y);
  return { lat, unserved, reconciles, unservedDetails };
}

/** The share of the window's reconcile starts the worker's own histogram puts within 50 ms (bucket bounds). */
function within50Ms(
  before: readonly Metrics[],
  after: readonly Metrics[],
): { count: number; within50: number } {
  const bucket = (le: string): number =>
    after.reduce(
      (s, m, i) =>
        s +
        sumMetric(m, 'podset_reconcile_start_latency_seconds_bucket', (l) => l.includes(`le="${le}"`)) -
        sumMetric(before[i]!, 'podset_reconcile_start_latency_seconds_bucket', (l) =>
          l.includes(`le="${le}"`),
        ),
      0,
    );
  const count = bucket('+Inf');
  return { count, within50: count > 0 ? bucket('0.05') / count : NaN };
}

interface Measured extends Awaited<ReturnType<typeof measure>> {
  sendSeconds: number;
  issueSeconds: number;
  late: number;
  cpu: Record<string, number>;
  commands: Record<string, number>;
  logLines: Record<string, number>;
  before: Metrics[];
  after: Metrics[];
}

/** The first rows: whether the sends kept the rate, then what went out and how late. */
function paceRows(
  o: LatencyOptions,
  pace: Saturation,
  events: number,
  sendSeconds: number,
  late: number,
): Row[] {
  return [
    {
      figure: 'rate kept',
      value: pace.row,
      target: `≥ ${MIN_RATE_SHARE * 100} % of the rate asked, ≤ ${MAX_LATE_SHARE * 100} % of sends late`,
      met: !pace.saturated,
    },
    { figure: 'sends issued per second', value: `${fmt(pace.achieved)}/s of ${fmt(o.rate)}/s asked` },
    {
      figure: `watch events sent (${o.event === 'pod-annotation' ? 'pod annotation' : 'PodSet label'} patches)`,
      value: `${events} in ${fmt(sendSeconds, 2)} s (${fmt(events / sendSeconds)}/s)`,
    },
    { figure: 'sends late by > 50 ms', value: String(late) },
  ];
}

/** The table and the JSON record. */
function report(o: LatencyOptions, log: (s: string) => void, m: Measured): Result {
  const P = o.podsets;
  const { events, starts, sendSeconds, late, cpu, commands, logLines, workerRequests, watcherRequests } = m;
  const { lat, unserved, reconciles, unservedDetails } = m.matched;
  const pace = saturation({ asked: o.rate, sent: events.length, issueSeconds: m.issueSeconds, late });
  // A smoke run checks the plumbing and is never judged: its names stay put, so a brief stall of a busy
  // machine cannot take its rows away from the tests that read them.
  const backlog = pace.saturated && !o.smoke;
  const named = (figure: string): string => latencyName(figure, backlog);
  log(`latency: ${pace.verdict}`);
  const p50 = quantile(lat, 0.5);
  const p99 = quantile(lat, 0.99);
  const { count: histCount, within50 } = within50Ms(m.before, m.after);
  const eventsPerReconcile = events.length / Math.max(1, starts.length);
  // Issue 21's goal is stated at 1,000 events/s: judged when that was asked for and the bench sent at
  // least 95 % of it (a slower send would test an easier load); a lower --rate shows the target, unjudged.
  const sentRate = events.length / sendSeconds;
  const p99Goal =
    o.rate >= 1000
      ? { target: '≤ 50 ms at 1,000 events/s', met: p99 <= 50 && sentRate >= 950 && !pace.saturated }
      : { target: '≤ 50 ms at 1,000 events/s (not this rate)' };
  // The load generator is `bench` (its patches); the rest is the operator and kube-sim.
  const cpuMsPerEvent = Object.fromEntries(
    Object.entries(cpu).map(([role, seconds]) => [role, (seconds * 1000) / Math.max(1, events.length)]),
  );
  const latencies = {
    p50,
    p90: quantile(lat, 0.9),
    p99,
    max: lat.at(-1),
    histogram: { count: histCount, within50ms: within50 },
  };
  const rows = [
    ...paceRows(o, pace, events.length, sendSeconds, late),
    { figure: 'reconciles started', value: String(starts.length) },
    { figure: named('event → reconcile start p50'), value: `${fmt(p50, 1)} ms` },
    {
      figure: named('event → reconcile start p99'),
      value: `${fmt(p99, 1)} ms (${fmt(sentRate)} events/s sent)`,
      ...p99Goal,
    },
    { figure: named('event → reconcile start max'), value: `${fmt(lat.at(-1) ?? NaN, 1)} ms` },
    { figure: named('worker histogram: starts ≤ 50 ms'), value: `${fmt(within50 * 100, 1)} %` },
    { figure: 'events per reconcile', value: fmt(eventsPerReconcile, 2) },
    { figure: 'events never followed by a reconcile', value: String(unserved) },
    {
      figure: 'Redis commands per event (INFO commandstats, inside scripts too)',
      value: fmt(Object.values(commands).reduce((a, b) => a + b, 0) / Math.max(1, events.length), 2),
    },
    {
      figure: 'log lines per event: watcher · workers',
      value: `${fmt((logLines.watcher ?? 0) / Math.max(1, events.length), 2)} · ${fmt(
        Object.entries(logLines)
          .filter(([name]) => name.startsWith('worker-'))
          .reduce((a, [, n]) => a + n, 0) / Math.max(1, events.length),
        2,
      )}`,
    },
    {
      figure: "workers' API requests per event",
      value:
        Object.entries(workerRequests)
          .map(([what, n]) => `${what} ${fmt(n / Math.max(1, events.length), 3)}`)
          .join(' · ') || '0',
    },
    {
      figure: "watcher's API requests per event",
      value:
        Object.entries(watcherRequests)
          .map(([what, n]) => `${what} ${fmt(n / Math.max(1, events.length), 3)}`)
          .join(' · ') || '0',
    },
    {
      figure: 'CPU per event, first send → drained',
      value: Object.entries(cpuMsPerEvent)
        .map(([role, ms]) => `${role} ${fmt(ms, 3)}`)
        .join(' · ')
        .concat(' ms'),
    },
  ];
  // Not thrown: the record keeps the details (test/bench asserts unserved === 0 in the smoke run).
  if (unserved > 0)
    log(`latency: ${unserved} events never followed by a reconcile: ${JSON.stringify(unservedDetails)}`);
  return {
    scenario: 'latency',
    smoke: o.smoke,
    options: {
      podsets: P,
      workers: o.workers,
      concurrency: o.concurrency,
      rate: o.rate,
      seconds: o.seconds,
      event: o.event,
    },
    rows,
    data: {
      events: events.length,
      reconciles: starts.length,
      matched: reconciles,
      // A saturated run's latencies are kept under another name: compare matches figures by name.
      ...(backlog ? { backlog: latencies } : latencies),
      eventsPerReconcile,
      sentRate,
      issuedRate: pace.achieved,
      saturated: pace.saturated,
      late,
      unserved,
      unservedDetails,
      cpuSeconds: cpu,
      cpuMsPerEvent,
      commandsPerEvent: perUnit(commands, events.length),
      workerRequestsPerEvent: perUnit(workerRequests, events.length),
      watcherRequests,
      logLines,
    },
  };
}
