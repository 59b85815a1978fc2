// live-before-bulk: how long a user's scale change (PodSet spec.replicas + 1 → the new pod is created)
// takes on an idle queue, and while a resync of `resync` PodSets is queued at bulk priority. The resync
// is enqueued exactly as the watcher's resync does (ReconcileQueue.request, source bulk) with the queue
// paused, so that all of it is waiting; the queue is resumed 1 s before the change (workers at their steady
// pace through the backlog).
import { ReconcileQueue } from '@podset/queue';
import { type KubeObj } from '../lib/client.ts';
import { PODSETS_PATH, QUEUE_NAME, QUEUE_PREFIX, sleep, World, NS } from '../lib/cluster.ts';
import { pool, podSetBody } from '../lib/podsets.ts';
import { fmt, type Result } from '../lib/report.ts';
import { Tracker } from '../lib/tracker.ts';

export interface LiveBeforeBulkOptions {
  resync: number;
  workers: number;
  concurrency: number;
  repeats: number;
  createBurst: number;
  timeoutMs: number;
  profileDir?: string;
  smoke: boolean;
}

const median = (xs: number[]): number => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Per scale change, ms: commit → reconcile start, reconcile start → pod created. */
interface Phase {
  toReconcileStart: number;
  reconcile: number;
}

/** One run's world, its watch, the queue it enqueues the resync on, and the target's scale changes. */
class LiveBeforeBulkRun {
  readonly o: LiveBeforeBulkOptions;
  readonly world: World;
  readonly tracker: Tracker;
  readonly rq: ReconcileQueue;
  replicas = 1;
  readonly phases: Phase[] = [];

  constructor(o: LiveBeforeBulkOptions, world: World) {
    this.o = o;
    this.world = world;
    this.tracker = new Tracker(world.admin, '');
    this.rq = new ReconcileQueue({
      connection: world.redis.url,
      queueName: QUEUE_NAME,
      prefix: QUEUE_PREFIX,
    });
  }

  /** The operator, the target (1 replica) and the resync's PodSets (0 replicas), converged; the queue idle. */
  async setUp(log: (s: string) => void): Promise<void> {
    const { o, world, tracker } = this;
    await world.startOperator(o);
    await tracker.watch();
    log(`live-before-bulk: ${o.resync} PodSets (0 replicas) and the target, waiting for them to converge`);
    await world.admin.json('POST', PODSETS_PATH, podSetBody('target', 1));
    await pool(o.resync, 32, async (i) => {
      await world.admin.json('POST', PODSETS_PATH, podSetBody(`ps-${i}`, 0));
    });
    await tracker.until(
      () => tracker.converged.size === o.resync + 1,
      o.timeoutMs,
      () => `${tracker.converged.size}/${o.resync + 1} converged`,
    );
    await this.idleQueue();
  }

  async idleQueue(): Promise<void> {
    const deadline = Date.now() + this.o.timeoutMs;
    for (;;) {
      const c = await this.rq.queue.getJobCounts('active', 'waiting', 'prioritized', 'delayed');
      if (Object.values(c).every((n) => n === 0)) return;
      if (Date.now() > deadline) throw new Error(`queue never drained: ${JSON.stringify(c)}`);
      await sleep(200);
    }
  }

  /** Scale the target up by one; ms until its new pod is created (seen on the bench's pod watch). */
  async scaleUp(): Promise<number> {
    const { o, world, tracker } = this;
    const replicas = ++this.replicas;
    const before = new Set([...tracker.activePods].filter((n) => n.startsWith('target-')));
    let seen: () => void = () => undefined;
    const created = new Promise<void>((r) => (seen = r));
    tracker.onPod = (type, pod) => {
      if (type === 'ADDED' && pod.metadata.name.startsWith('target-') && !before.has(pod.metadata.name))
        seen();
    };
    const t0 = performance.now();
    const sinceIso = new Date(Date.now() - 5).toISOString();
    await world.admin.json(
      'PATCH',
      `${PODSETS_PATH}/target`,
      { spec: { replicas } },
      'application/merge-patch+json',
    );
    const timeout = sleep(o.timeoutMs).then(() => {
      throw new Error('the scale change never created a pod');
    });
    await Promise.race([created, timeout]);
    const ms = performance.now() - t0;
    tracker.onPod = undefined;
    this.phases.push(await this.phaseOf(sinceIso));
    await tracker.until(
      () => {
        const ps = tracker.podSets.get('target');
        return ps !== undefined && ps.spec?.replicas === replicas && tracker.converged.has('target');
      },
      o.timeoutMs,
      () => 'target did not converge',
    );
    return ms;
  }

  /**
   * Split from the audit: PATCH committed → the worker's GET of the target (watch, watcher, queue, a free
   * slot) and that GET → the pod create answered (the reconcile on the server).
   */
  async phaseOf(sinceIso: string): Promise<Phase> {
    const patchAt = (await this.world.audit('admin', sinceIso)).find(
      (e) => e.verb === 'patch' && e.resource === 'podsets' && e.name === 'target',
    );
    const mine = await this.world.audit('worker', sinceIso);
    const get = mine.find((e) => e.verb === 'get' && e.resource === 'podsets' && e.name === 'target');
    const create = mine.find((e) => e.verb === 'create' && e.resource === 'pods');
    const getStart = get ? Date.parse(get.time) - get.latencyMs : NaN;
    return {
      toReconcileStart: patchAt ? getStart - Date.parse(patchAt.time) : NaN,
      reconcile: create ? Date.parse(create.time) - getStart : NaN,
    };
  }

  /** Scale changes on the idle queue (two more than the repeats: the first two warm up the path). */
  async idleChanges(log: (s: string) => void): Promise<number[]> {
    const idle: number[] = [];
    for (let i = 0; i < this.o.repeats + 2; i++) {
      idle.push(await this.scaleUp());
      await this.idleQueue();
      await sleep(300);
    }
    log(`live-before-bulk: idle ${idle.map((x) => fmt(x, 1)).join(', ')} ms`);
    return idle;
  }

  /** Scale changes each with the resync queued at bulk priority (enqueued paused, resumed 1 s before). */
  async loadedChanges(log: (s: string) => void) {
    const { o, rq } = this;
    const loaded: number[] = [];
    const backlog: number[] = [];
    const backlogAtChange: number[] = [];
    const keys = Array.from({ length: o.resync }, (_, i) => ({
      key: `${NS}/ps-${i}`,
      opts: { source: 'bulk' as const, reason: 'resync' },
    }));
    let enqueueSeconds = 0;
    for (let i = 0; i < o.repeats; i++) {
      await rq.queue.pause();
      const t0 = performance.now();
      await rq.requestAll(keys);
      enqueueSeconds = (performance.now() - t0) / 1000;
      const queued = await rq.queue.getJobCounts('waiting', 'prioritized');
      await rq.queue.resume();
      // Let the workers reach their steady pace through the backlog (every slot busy, slots freeing at
      // staggered times) rather than measuring the one moment when all of them just took a bulk job.
      await sleep(o.smoke ? 200 : 1000);
      const atChange = await rq.queue.getJobCounts('waiting', 'prioritized');
      const ms = await this.scaleUp();
      const left = await rq.queue.getJobCounts('waiting', 'prioritized');
      loaded.push(ms);
      backlog.push((left.waiting ?? 0) + (left.prioritized ?? 0));
      backlogAtChange.push((atChange.waiting ?? 0) + (atChange.prioritized ?? 0));
      log(
        `live-before-bulk: with ${(queued.waiting ?? 0) + (queued.prioritized ?? 0)} queued: ${fmt(ms, 1)} ms (${backlog.at(-1)} bulk still queued then)`,
      );
      await this.idleQueue();
      await sleep(300);
    }
    return { loaded, backlog, backlogAtChange, enqueueSeconds };
  }
}

export async function liveBeforeBulk(o: LiveBeforeBulkOptions, log: (s: string) => void): Promise<Result> {
  const world = await World.start('live-before-bulk', o.profileDir ? { profileDir: o.profileDir } : {});
  const run = new LiveBeforeBulkRun(o, world);
  try {
    await run.setUp(log);
    const idle = await run.idleChanges(log);
    const queued = await run.loadedChanges(log);
    return report(o, run, idle, queued);
  } finally {
    run.tracker.stop();
    await run.rq.close();
    await world.close();
  }
}

/** The table and the JSON record. */
function report(
  o: LiveBeforeBulkOptions,
  run: LiveBeforeBulkRun,
  idle: number[],
  queued: Awaited<ReturnType<LiveBeforeBulkRun['loadedChanges']>>,
): Result {
  const { phases, tracker } = run;
  const { loaded, backlog, backlogAtChange, enqueueSeconds } = queued;
  const idlePhases = phases.slice(2, o.repeats + 2);
  const loadedPhases = phases.slice(o.repeats + 2);
  // The first idle changes warm up the path; the median of the rest is the baseline.
  const idleMed = median(idle.slice(2));
  const loadedMed = median(loaded);
  const ratio = loadedMed / idleMed;
  const rows = [
    { figure: 'scale change → pod created, idle queue (median)', value: `${fmt(idleMed, 1)} ms` },
    {
      figure: `… with a ${o.resync}-PodSet resync queued (median)`,
      value: `${fmt(loadedMed, 1)} ms`,
    },
    { figure: 'queued / idle', value: fmt(ratio, 2), target: '≤ 2', met: ratio <= 2 },
    {
      figure: 'idle: commit → reconcile start, → pod created',
      value: `${fmt(median(idlePhases.map((p) => p.toReconcileStart)), 1)}, ${fmt(median(idlePhases.map((p) => p.reconcile)), 1)} ms`,
    },
    {
      figure: 'queued: commit → reconcile start, → pod created',
      value: `${fmt(median(loadedPhases.map((p) => p.toReconcileStart)), 1)}, ${fmt(median(loadedPhases.map((p) => p.reconcile)), 1)} ms`,
    },
    { figure: 'bulk requests queued at the change (1 s after resume)', value: backlogAtChange.join(', ') },
    { figure: 'bulk requests still queued when the pod appeared', value: backlog.join(', ') },
    { figure: `enqueueing the resync (${o.resync} requests)`, value: `${fmt(enqueueSeconds, 2)} s` },
  ];
  const target = tracker.podSets.get('target') as KubeObj;
  return {
    scenario: 'live-before-bulk',
    smoke: o.smoke,
    options: {
      resync: o.resync,
      workers: o.workers,
      concurrency: o.concurrency,
      repeats: o.repeats,
    },
    rows,
    data: {
      idle,
      loaded,
      backlog,
      backlogAtChange,
      ratio,
      enqueueSeconds,
      targetReplicas: target.spec?.replicas,
    },
  };
}
