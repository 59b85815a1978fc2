// One chaos run's state and its phases: set-up (Redis, kube-sim, the apps), the initial convergence, the chaos
// window (user changes and faults on the schedule), the convergence after the faults, and the verdict. The
// faults and user changes themselves are in chaos-faults.ts; they act on this run's fields.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { startKubeSim, type KubeSim, type KubeSimOptions } from '@podset/kube-sim';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import { type AppUser } from '@podset/redis';
import { startRedis, type RedisServer } from '@podset/testkit';
import { NAME_LABEL, PODS, PODSETS, podSetProblems } from '../../e2e/support/check.ts';
import { FAST_PODS, OperatorEnv, Proc, applyCrd, sleep } from '../../e2e/support/harness.ts';
import { chaosAcl } from './chaos-acl.ts';
import { applyChange, applyFault } from './chaos-faults.ts';
import { History, ownerUid } from './history.ts';
import { LogTail, countWorkerLogs, sortRecord } from './log-tail.ts';
import { CHAOS_WATCH_TIMEOUTS, formatResult, type ChaosOptions, type ChaosResult } from './options.ts';
import { templateProblems } from './rollout-bounds.ts';
import { RECORD_FILES, RunRecord } from './run-record.ts';
import {
  API_FAULTS,
  makeSchedule,
  podSetObject,
  type Change,
  type Fault,
  type Schedule,
} from './schedule.ts';

/** The script loader's entry (repo-relative, as the harness runs the apps). */
const LOADER_MAIN = 'apps/redis-init/src/redis-scripts-main.ts';

/** What is made before the run's state: its directory, Redis (with its ACL), kube-sim, the apps' env. */
interface Started {
  dir: string;
  logDir: string;
  record: RunRecord;
  acl: ReturnType<typeof chaosAcl> | undefined;
  redis: RedisServer;
  redisDir: string;
  simOptions: KubeSimOptions;
  sim: KubeSim;
  env: OperatorEnv;
}

export class ChaosRun {
  readonly o: ChaosOptions;
  readonly say: (line: string) => void;
  readonly schedule: Schedule;
  readonly scheduleHash: string;
  readonly events: string[] = [];
  readonly t0: number;
  readonly violations: string[] = [];
  readonly dir: string;
  readonly logDir: string;
  readonly record: RunRecord;
  readonly acl: ReturnType<typeof chaosAcl> | undefined;
  readonly redis: RedisServer;
  /** Read at the start, while Redis is surely up: a fault's read of it could meet Redis restarting. */
  readonly redisDir: string;
  readonly simOptions: KubeSimOptions;
  sim: KubeSim;
  readonly env: OperatorEnv;
  /** The report, once the run got to its verdict (unset: it threw before). */
  finalReport: string | undefined;
  readonly history = new History();
  // After the etcd-restore fault: the keys a worker read from the restored kube-sim (a GET of the PodSet
  // comes first in every reconcile that reads the API, so before any create it plans), and so the pods made
  // there for a key no worker had read yet: planned from the cluster before the restore.
  afterRestore = false;
  readonly readSinceRestore = new Set<string>();
  unsubscribe: () => void;
  stopAudit: () => void;
  /** The copy of kube-sim's snapshot the etcd-backup fault took. */
  etcdBackup: string | undefined;
  // Audit: API calls of the operator by verb, errors by code, and each key's last reconcile start
  // (a worker's GET of the PodSet is the first thing a reconcile does).
  readonly apiCallsByVerb: Record<string, number> = {};
  readonly apiErrorsByCode: Record<string, number> = {};
  readonly lastReconcileStart = new Map<string, number>();
  // Planning from the projection, a reconcile reads no PodSet from the API: its start is read from the
  // workers' "reconciled" log lines instead (their time minus their duration).
  readonly workerLogStarts: LogTail;
  reconciles = 0;
  readonly names: string[];
  /** When the user last changed each PodSet (a reconcile must start after this). */
  readonly lastChange = new Map<string, number>();
  /** Desired replicas of PodSets deleted and waiting to be re-created. */
  readonly pendingRecreate = new Map<number, number>();
  readonly userChanges: Record<string, number> = {};
  readonly processKills: Record<string, number> = {};
  // Each app's kubeconfig in the run's own dir, written once: kube-sim's own files go with the kube-sim that
  // wrote them, and a process started while the etcd-restore fault swaps kube-sims (a worker or watcher
  // replacing a killed one) crashed on a missing file (seed 110: no watcher left, nothing converged). The
  // restored kube-sim keeps the port, CA and tokens, so these stay valid.
  readonly kubeconfigs = new Map<string, string>();
  readonly workers: Proc[] = [];
  readonly watchers: Proc[] = [];
  watcherSeq = 0;

  static async start(o: ChaosOptions): Promise<ChaosRun> {
    const t0 = Date.now();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-chaos-'));
    // The harness's log directory (OperatorEnv's), made now so kube-sim's audit can go there from its start.
    const logDir = path.join(dir, 'logs');
    mkdirSync(logDir, { recursive: true });
    const record = new RunRecord(logDir, t0);
    const admin = randomBytes(18).toString('base64url');
    const acl = o.redisAcl === true ? chaosAcl(dir, admin) : undefined;
    const redis = await startRedis({
      appendOnly: true,
      ...(acl !== undefined ? { password: admin, args: ['--aclfile', acl.file] } : {}),
    });
    const redisDir = await redisDataDir(redis);
    const simOptions = {
      kubeconfigPath: path.join(dir, 'kubeconfig'),
      // No pod Events: the chaos runs (and their benchmark) churn thousands of pods.
      controllerOptions: { ...FAST_PODS, seed: o.seed, podEvents: false },
      // Every request, appended (also by the kube-sim the etcd-restore fault starts): who made it, how answered.
      auditLog: path.join(logDir, RECORD_FILES.audit),
    };
    // A data dir, as etcd's, so that the etcd-backup fault can copy it and etcd-restore start from the copy.
    const sim = await startKubeSim({ ...simOptions, dataDir: path.join(dir, 'etcd') });
    const env = new OperatorEnv({ name: 'chaos' }, sim, redis, dir, new Date().toISOString());
    if (acl !== undefined) {
      // The script loader beside Redis, as in k8s/: it caches the scripts again after each Redis restart.
      const loader = new Proc(
        'redis-scripts',
        [LOADER_MAIN],
        { REDIS_URL: `redis://127.0.0.1:${redis.port}`, ...acl.loaderEnv },
        env.logDir,
      );
      env.procs.push(loader);
      await loader.waitForLine(/loaded \d+ scripts/, 60_000);
    }
    return new ChaosRun(o, t0, { dir, logDir, record, acl, redis, redisDir, simOptions, sim, env });
  }

  private constructor(o: ChaosOptions, t0: number, s: Started) {
    this.o = o;
    this.say = o.log ?? (() => {});
    this.schedule = makeSchedule(o);
    this.scheduleHash = createHash('sha256').update(JSON.stringify(this.schedule)).digest('hex').slice(0, 12);
    this.t0 = t0;
    this.dir = s.dir;
    this.logDir = s.logDir;
    this.record = s.record;
    this.acl = s.acl;
    this.redis = s.redis;
    this.redisDir = s.redisDir;
    this.simOptions = s.simOptions;
    this.sim = s.sim;
    this.env = s.env;
    this.unsubscribe = this.subscribe();
    this.stopAudit = this.sim.audit.onEntry(this.onAudit);
    this.workerLogStarts = new LogTail(this.env.logDir, /^worker-/);
    this.names = Array.from({ length: o.podSets }, (_, i) => `cps-${String(i).padStart(3, '0')}`);
  }

  note(line: string): void {
    const l = `+${((Date.now() - this.t0) / 1000).toFixed(1)}s ${line}`;
    this.events.push(l);
    this.record.note(l);
    this.say(l);
  }

  nsOf(i: number): string {
    return this.o.namespaces[i % this.o.namespaces.length] as string;
  }

  keyOf(i: number): string {
    return `${this.nsOf(i)}/${this.names[i]}`;
  }

  count(rec: Record<string, number>, k: string): void {
    rec[k] = (rec[k] ?? 0) + 1;
  }

  /** The apps' URL carries no password: with ACLs each app gives its user and password apart. */
  appRedis(app: AppUser): Record<string, string> {
    return this.acl === undefined
      ? {}
      : { REDIS_URL: `redis://127.0.0.1:${this.redis.port}`, ...this.acl.appEnv(app) };
  }

  subscribe(): () => void {
    return this.sim.cluster.subscribe((ev) => {
      if (this.afterRestore && ev.type === 'ADDED' && ev.resource === PODS) {
        const key = this.history.podNames.get(ownerUid(ev.object) ?? '');
        if (key !== undefined && !this.readSinceRestore.has(key)) {
          this.history.plannedBeforeRestore(ev.object);
          this.note(
            `${ev.object.metadata.name} of ${key} made on the restored API server by a plan read before it`,
          );
        }
      }
      this.history.on(ev);
      this.record.onStoreEvent(ev);
    });
  }

  readonly onAudit: Parameters<KubeSim['audit']['onEntry']>[0] = (e) => {
    if (e.user !== 'worker' && e.user !== 'watcher') return;
    const verb = `${e.user} ${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ''}`;
    this.count(this.apiCallsByVerb, verb);
    if (e.code >= 400) this.count(this.apiErrorsByCode, String(e.code));
    if (e.user === 'worker' && e.verb === 'get' && e.resource === 'podsets' && e.subresource === '') {
      this.reconciles++;
      const key = `${e.namespace}/${e.name}`;
      if (this.afterRestore && e.code === 200) this.readSinceRestore.add(key);
      const start = Date.parse(e.time) - e.latencyMs;
      if (start > (this.lastReconcileStart.get(key) ?? 0)) this.lastReconcileStart.set(key, start);
    }
  };

  kubeconfigOf(identity: string): string {
    let file = this.kubeconfigs.get(identity);
    if (file === undefined) {
      file = path.join(this.dir, `kubeconfig-${identity}`);
      writeFileSync(file, this.sim.kubeconfigYaml(identity));
      this.kubeconfigs.set(identity, file);
    }
    return file;
  }

  startWatcher(): void {
    const name = `watcher-${this.watcherSeq++}`;
    this.watchers.push(
      this.env.startWatcher(name, {
        LOG_LEVEL: 'info',
        STATE_SOURCE: this.o.stateSource ?? 'projection',
        // A stalled watch (the stall-watches fault) is restarted once it outlives its timeout by the grace:
        // within 2 × 5 + 2 = 12 s of its start here, inside the run (the defaults would take up to 10.5 min).
        ...CHAOS_WATCH_TIMEOUTS,
        ...this.appRedis('watcher'),
        KUBECONFIG: this.kubeconfigOf('watcher'),
      }),
    );
  }

  startWorker(i: number): void {
    this.workers[i] = this.env.startWorker(`worker-${i}`, {
      STATE_SOURCE: this.o.stateSource ?? 'projection',
      ...this.appRedis('worker'),
      KUBECONFIG: this.kubeconfigOf('worker'),
    });
  }

  /** The whole run, its processes stopped and its directory kept or removed whatever happens. */
  async run(): Promise<ChaosResult> {
    try {
      const initialConvergeMs = await this.startAndConverge();
      await this.chaosWindow();
      const convergeAfterFaultsMs = await this.convergeAfterFaults();
      const result = await this.verdict(initialConvergeMs, convergeAfterFaultsMs);
      this.finalReport = formatResult(result);
      return result;
    } finally {
      await this.finish();
    }
  }

  /** The namespaces, the CRD, the apps and the PodSets; resolves with the initial convergence time. */
  async startAndConverge(): Promise<number> {
    const { o, sim, schedule } = this;
    for (const ns of o.namespaces) {
      if (sim.cluster.get('namespaces', undefined, ns) === undefined) {
        sim.cluster.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      }
    }
    await applyCrd(this.env);
    this.startWatcher();
    this.startWatcher();
    for (let i = 0; i < o.workers; i++) this.startWorker(i);
    this.note(
      `seed ${o.seed}, schedule ${this.scheduleHash}: ${o.podSets} PodSets, ${schedule.changes.length} changes, ${schedule.faults.length} faults over ${o.chaosSeconds} s`,
    );
    this.names.forEach((n, i) => {
      sim.cluster.create(PODSETS, podSetObject(n, this.nsOf(i), schedule.initialReplicas[i] as number));
      this.lastChange.set(this.keyOf(i), Date.now());
    });
    const initialPods = schedule.initialReplicas.reduce((a, b) => a + b, 0);
    const tInit = Date.now();
    await this.env.waitFor(
      `${o.podSets} PodSets (${initialPods} pods) to converge before the chaos`,
      () => this.convergenceProblems(),
      { timeoutMs: 300_000, intervalMs: 500 },
    );
    const initialConvergeMs = Date.now() - tInit;
    this.note(`initial convergence: ${initialPods} pods in ${(initialConvergeMs / 1000).toFixed(1)} s`);
    return initialConvergeMs;
  }

  /** The user changes and faults on the schedule, with kube-sim's API faults on all the while. */
  async chaosWindow(): Promise<void> {
    this.sim.faults.set(API_FAULTS);
    this.note(
      'faults on: 5% 500 + 2% 409 on writes, 1% 429 (Retry-After 1), 50 ms latency, watches cut every 10 s',
    );
    const start = Date.now();
    const items: ({ type: 'change'; c: Change } | { type: 'fault'; f: Fault })[] = [
      ...this.schedule.changes.map((c) => ({ type: 'change' as const, c })),
      ...this.schedule.faults.map((f) => ({ type: 'fault' as const, f })),
    ].sort((a, b) => (a.type === 'change' ? a.c.at : a.f.at) - (b.type === 'change' ? b.c.at : b.f.at));

    const background: Promise<void>[] = [];
    // Redis faults one after another: one that began while another still restarts Redis would fail.
    let redisFaults: Promise<void> = Promise.resolve();
    for (const item of items) {
      const at = item.type === 'change' ? item.c.at : item.f.at;
      const wait = start + at - Date.now();
      if (wait > 0) await sleep(wait);
      this.tryRecreate();
      if (item.type === 'change') applyChange(this, item.c);
      else {
        const f = item.f;
        const run = f.kind.startsWith('redis-')
          ? (redisFaults = redisFaults.catch(() => undefined).then(() => applyFault(this, f)))
          : applyFault(this, f);
        // A fault that fails is the run's failure, said as such (not an unhandled rejection ending it).
        background.push(
          run.catch((err: unknown) => {
            const why = err instanceof Error ? err.message : String(err);
            this.note(`fault ${f.kind} failed: ${why}`);
            this.violations.push(`fault ${f.kind} (at +${f.at} ms) failed: ${why}`);
          }),
        );
      }
    }
    const left = start + this.o.chaosSeconds * 1000 - Date.now();
    if (left > 0) await sleep(left);
    await Promise.all(background);
  }

  /** Faults off, the apps made whole, and the wait for every check to hold; undefined: it never did. */
  async convergeAfterFaults(): Promise<number | undefined> {
    const o = this.o;
    this.sim.faults.reset();
    const tEnd = Date.now();
    this.note('faults off');
    for (let i = 0; i < o.workers; i++) if (!this.workers[i]?.running) this.startWorker(i);
    while (this.watchers.filter((w) => w.running).length < 2) this.startWatcher();

    let convergeAfterFaultsMs: number | undefined;
    let last: string[] = [];
    /** What was still wrong when the guarantee's deadline passed (to tell a slow run from a stuck key). */
    let atDeadline: string[] | undefined;
    const deadline = tEnd + (o.convergeSeconds + o.graceSeconds) * 1000;
    for (;;) {
      this.tryRecreate();
      last = this.convergenceProblems();
      if (last.length === 0) {
        convergeAfterFaultsMs = Date.now() - tEnd;
        break;
      }
      if (atDeadline === undefined && Date.now() > tEnd + o.convergeSeconds * 1000) {
        atDeadline = last;
        this.note(
          `${o.convergeSeconds} s after the faults: ${last.length} problems left, e.g. ${last.slice(0, 5).join('; ')}`,
        );
      }
      if (Date.now() > deadline) break;
      await sleep(250);
    }
    this.judgeConvergence(convergeAfterFaultsMs, last, atDeadline);
    return convergeAfterFaultsMs;
  }

  judgeConvergence(convergeAfterFaultsMs: number | undefined, last: string[], atDeadline?: string[]): void {
    const o = this.o;
    if (convergeAfterFaultsMs === undefined) {
      this.violations.push(
        `not converged ${o.convergeSeconds + o.graceSeconds} s after the faults stopped; still wrong:\n${last
          .slice(0, 30)
          .map((p) => `  - ${p}`)
          .join('\n')}${last.length > 30 ? `\n  … and ${last.length - 30} more` : ''}`,
      );
    } else if (convergeAfterFaultsMs > o.convergeSeconds * 1000) {
      this.violations.push(
        `converged ${(convergeAfterFaultsMs / 1000).toFixed(1)} s after the faults stopped (guarantee: ${o.convergeSeconds} s); at ${o.convergeSeconds} s still wrong:\n${(
          atDeadline ?? []
        )
          .slice(0, 20)
          .map((p) => `  - ${p}`)
          .join('\n')}`,
      );
    }
    this.note(
      convergeAfterFaultsMs === undefined
        ? 'did not converge'
        : `converged ${(convergeAfterFaultsMs / 1000).toFixed(1)} s after the faults stopped`,
    );
  }

  /** The verdict from kube-sim's history, the queue's final state and the workers' logs. */
  async verdict(initialConvergeMs: number, convergeAfterFaultsMs: number | undefined): Promise<ChaosResult> {
    const { history, violations } = this;
    const over = history.overCreation(this.t0);
    violations.push(...over.problems);
    violations.push(...history.rollouts.violations.map((v) => `rollout bound: ${v}`));
    const orphans = this.orphanPods();
    violations.push(...orphans.map((p) => `orphan pod left: ${p}`));
    const jobsByState = await this.queueVerdict();
    const { retries, malformed } = countWorkerLogs(this.env.logDir);
    const result: ChaosResult = {
      options: this.o,
      scheduleHash: this.scheduleHash,
      violations,
      figures: {
        initialConvergeMs,
        convergeAfterFaultsMs,
        overCreatedPods: over.pods,
        madeFromBeforeRestore: history.madeFromBeforeRestore.length,
        orphanPods: orphans.length,
        reconciles: this.reconciles,
        retries,
        malformedJobs: malformed,
        apiCallsByVerb: sortRecord(this.apiCallsByVerb),
        apiErrorsByCode: sortRecord(this.apiErrorsByCode),
        jobsByState,
        userChanges: this.userChanges,
        processKills: this.processKills,
        podsCreated: history.podsCreated,
      },
      events: this.events,
    };
    if (violations.length > 0) {
      this.events.push(this.env.diagnostics());
    }
    // A failed run keeps its directory: over-creation or a lost request must be explainable afterwards.
    if (this.o.keepLogs === true || violations.length > 0) result.logDir = this.logDir;
    return result;
  }

  /** The queue's jobs by state; a job that failed without a reason is a violation. */
  async queueVerdict(): Promise<Record<string, number>> {
    const q = new Queue(DEFAULT_QUEUE_NAME, {
      connection: {
        host: '127.0.0.1',
        port: this.redis.port,
        ...(this.redis.password !== undefined ? { password: this.redis.password } : {}),
      },
      prefix: DEFAULT_PREFIX,
    });
    try {
      const jobsByState = await q.getJobCounts(
        'active',
        'waiting',
        'prioritized',
        'delayed',
        'completed',
        'failed',
        'waiting-children',
      );
      const failed = await q.getFailed(0, -1);
      for (const j of failed) {
        if (typeof j.failedReason !== 'string' || j.failedReason.trim() === '') {
          this.violations.push(`job ${j.id} (${JSON.stringify(j.data)}) failed without a reason`);
        }
      }
      return jobsByState;
    } finally {
      await q.close();
    }
  }

  /** Everything stopped; the record written; the directory kept when asked, or when the run failed or threw. */
  async finish(): Promise<void> {
    this.unsubscribe();
    this.stopAudit();
    await Promise.all(this.env.procs.map((p) => p.stop(5_000)));
    await this.sim.close();
    await this.redis.close();
    // A run that threw (a fault that failed, a wait that timed out) is kept too: finalReport is unset then.
    const keep = this.o.keepLogs === true || this.finalReport === undefined || this.violations.length > 0;
    await this.record.finish(this.finalReport ?? `the run ended early\n${this.events.join('\n')}`);
    if (keep) this.say(`logs kept in ${this.logDir} (apps' logs, ${Object.values(RECORD_FILES).join(', ')})`);
    else rmSync(this.dir, { recursive: true, force: true });
  }

  convergenceProblems(): string[] {
    const { sim, names } = this;
    this.workerLogStarts.scan(this.lastReconcileStart);
    const pods = sim.cluster.list(PODS);
    const problems: string[] = [];
    for (const [i, n] of names.entries()) {
      const key = this.keyOf(i);
      if (this.pendingRecreate.has(i)) {
        problems.push(`${key}: deleted, not yet gone (to be re-created)`);
        continue;
      }
      const ps = sim.cluster.get(PODSETS, this.nsOf(i), n);
      problems.push(...podSetProblems(ps, pods, key).map((p) => `${this.nsOf(i)}/${p}`));
      problems.push(...templateProblems(ps, pods, key));
      // No request lost: a reconcile started after the user's last change.
      const changed = this.lastChange.get(key) ?? 0;
      const started = this.lastReconcileStart.get(key) ?? 0;
      if (started < changed) {
        problems.push(
          `${key}: no reconcile started after its last change (${new Date(changed).toISOString()})`,
        );
      }
    }
    problems.push(...this.orphanPods().map((p) => `orphan pod: ${p}`));
    return problems;
  }

  orphanPods(): string[] {
    const uids = new Set(this.sim.cluster.list(PODSETS).map((p) => p.metadata.uid));
    return this.sim.cluster
      .list(PODS)
      .filter((p) => p.metadata.labels?.[NAME_LABEL] !== undefined)
      .filter((p) => !uids.has(ownerUid(p)))
      .map((p) => `${p.metadata.namespace}/${p.metadata.name} (owner uid ${ownerUid(p) ?? 'none'})`);
  }

  tryRecreate(): void {
    for (const [i, replicas] of this.pendingRecreate) {
      const name = this.names[i] as string;
      if (this.sim.cluster.get(PODSETS, this.nsOf(i), name) !== undefined) continue;
      this.sim.cluster.create(PODSETS, podSetObject(name, this.nsOf(i), replicas));
      this.lastChange.set(this.keyOf(i), Date.now());
      this.pendingRecreate.delete(i);
    }
  }
}

async function redisDataDir(redis: RedisServer): Promise<string> {
  const c = new Redis(redis.url, { maxRetriesPerRequest: 1, lazyConnect: true, retryStrategy: () => null });
  c.on('error', () => undefined); // the rejected command says it
  try {
    await c.connect();
    return ((await c.config('GET', 'dir')) as string[])[1] as string;
  } finally {
    c.disconnect();
  }
}
