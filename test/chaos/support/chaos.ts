// The chaos run: many PodSets under random user changes while workers, watchers, Redis and the API
// server fail, then faults stop and the cluster must converge. The verdict comes from kube-sim's own
// history (store events and the audit log), computed independently of the operator's code.
//
// Used by `npm run chaos` (bench/chaos.ts: the full run) and test/chaos/chaos-short.test.ts (CI).
// A fixed seed fixes the schedule (which PodSet, which change, which worker, when); what the OS
// scheduler does with it is not repeatable.
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { seededRandom, startKubeSim, type KubeObject } from '@podset/kube-sim';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import { aclFile, aclUsername, SCRIPTS_USERNAME, APP_USERS, type AppUser } from '@podset/redis';
import { startRedis } from '@podset/testkit';
import { NAME_LABEL, PODS, PODSETS, podSetProblems, specReplicas } from '../../e2e/support/check.ts';
import { reconcileStartOf } from '../../../bench/lib/worker-log.ts';
import { FAST_PODS, OperatorEnv, Proc, applyCrd, sleep } from '../../e2e/support/harness.ts';
import { History, ownerUid } from './history.ts';
import { templateProblems } from './rollout-bounds.ts';
import { RECORD_FILES, RunRecord } from './run-record.ts';

/** The script loader's entry (repo-relative, as the harness runs the apps). */
const LOADER_MAIN = 'apps/redis-init/src/redis-scripts-main.ts';

export interface ChaosOptions {
  seed: number;
  podSets: number;
  namespaces: string[];
  /** How long faults and user changes go on. */
  chaosSeconds: number;
  /** User changes per second during the chaos window. */
  changesPerSecond: number;
  workers: number;
  /** A random worker is SIGKILLed (and restarted) this often. */
  workerKillEverySeconds: number;
  /** Convergence deadline after the faults stop (the guarantee). */
  convergeSeconds: number;
  /** How long to keep waiting past the deadline, to report the real figure. */
  graceSeconds: number;
  /** Progress lines go here. */
  log?: (line: string) => void;
  /** Keep the run's directory (apps' logs, kube-sim's audit, store events) even when it passed. */
  keepLogs?: boolean;
  /** STATE_SOURCE of the watchers and workers. Default projection (the apps' default). */
  stateSource?: 'projection' | 'api';
  /** Each app with its own Redis ACL user (libs/redis's acl.ts), as an ACL-enabled install runs them. */
  redisAcl?: boolean;
}

/**
 * An ACL file for the apps' users, `default` keeping every right (for the run's own reads) under `admin`,
 * and the script loader's user: the apps' users run only the scripts it caches (again after each restart).
 */
function chaosAcl(
  dir: string,
  admin: string,
): { file: string; appEnv: (app: AppUser) => Record<string, string>; loaderEnv: Record<string, string> } {
  const passwords = Object.fromEntries(
    APP_USERS.map((app) => [app, randomBytes(18).toString('base64url')]),
  ) as Record<AppUser, string>;
  const scripts = randomBytes(18).toString('base64url');
  const file = path.join(dir, 'users.acl');
  const scope = {
    prefix: process.env.E2E_QUEUE_PREFIX || DEFAULT_PREFIX,
    queueName: process.env.E2E_QUEUE_NAME || DEFAULT_QUEUE_NAME,
  };
  writeFileSync(
    file,
    aclFile(scope, passwords, { scripts }).replace(
      /^user default .*$/m,
      `user default on >${admin} ~* &* +@all`,
    ),
  );
  return {
    file,
    appEnv: (app) => ({ REDIS_USERNAME: aclUsername(app), REDIS_PASSWORD: passwords[app] }),
    loaderEnv: { REDIS_USERNAME: SCRIPTS_USERNAME, REDIS_PASSWORD: scripts },
  };
}

export const FULL: ChaosOptions = {
  seed: 1,
  podSets: 200,
  namespaces: ['default', 'chaos-b'],
  chaosSeconds: 60,
  changesPerSecond: 10,
  workers: 3,
  workerKillEverySeconds: 5,
  convergeSeconds: 30,
  graceSeconds: 90,
};

/** The watchers' watch timeouts in a chaos run (see startWatcher in runChaos). */
export const CHAOS_WATCH_TIMEOUTS = { WATCH_TIMEOUT_SECONDS: '5', WATCH_STALL_GRACE_SECONDS: '2' };

export const SHORT: ChaosOptions = {
  ...FULL,
  podSets: 30,
  chaosSeconds: 15,
  changesPerSecond: 6,
  graceSeconds: 30,
};

export interface ChaosResult {
  options: ChaosOptions;
  scheduleHash: string;
  /** Problems that break a guarantee (empty: the run passed). */
  violations: string[];
  figures: {
    initialConvergeMs: number;
    /** From the end of the faults until every check held; undefined: never within the grace time. */
    convergeAfterFaultsMs: number | undefined;
    overCreatedPods: number;
    /** Pods a reconcile planned before the etcd restore made after it (not counted as over-created). */
    madeFromBeforeRestore: number;
    orphanPods: number;
    reconciles: number;
    retries: number;
    malformedJobs: number;
    apiCallsByVerb: Record<string, number>;
    apiErrorsByCode: Record<string, number>;
    jobsByState: Record<string, number>;
    userChanges: Record<string, number>;
    processKills: Record<string, number>;
    podsCreated: number;
  };
  events: string[];
  /** Where the apps' logs, kube-sim's audit and the store events were kept (a failed run keeps them). */
  logDir?: string;
}

/** What kube-sim injects during the chaos window. */
const API_FAULTS = {
  errors: [
    ...['create', 'update', 'patch', 'delete'].flatMap((verb) => [
      { verb, code: 500, rate: 0.05 },
      { verb, code: 409, rate: 0.02, message: 'injected fault: the object has been modified' },
    ]),
    { code: 429, rate: 0.01, retryAfterSeconds: 1 },
  ],
  latencyMs: 50,
  watchCutAfterSeconds: 10,
};

/** The schedule's seeded PRNG: kube-sim's mulberry32, so one seed means one sequence everywhere. */
export const prng = seededRandom;

type Change =
  | { at: number; kind: 'scale'; ps: number; replicas: number }
  /** A new image (a new template): the PodSet rolls its pods. */
  | { at: number; kind: 'template'; ps: number; image: number }
  | { at: number; kind: 'delete-pod'; ps: number; pick: number }
  | { at: number; kind: 'recreate'; ps: number; replicas: number };

type Fault =
  | { at: number; kind: 'kill-worker'; worker: number }
  | { at: number; kind: 'kill-leader' }
  | { at: number; kind: 'redis-restart-aof' }
  | { at: number; kind: 'redis-restart-empty' }
  | { at: number; kind: 'api-restart' }
  | { at: number; kind: 'stall-watches' }
  /** Redis killed and started from its AOF as it was a second before: its last second of writes lost. */
  | { at: number; kind: 'redis-restart-lose-last-second' }
  /** A copy of kube-sim's data dir (etcd's), to restore later. */
  | { at: number; kind: 'etcd-backup' }
  /** kube-sim restarted from that copy: the cluster goes back in time (resourceVersions go back). */
  | { at: number; kind: 'etcd-restore' };

interface Schedule {
  initialReplicas: number[];
  changes: Change[];
  faults: Fault[];
}

/** The whole random schedule, from the seed alone. Times are ms from the start of the chaos window. */
export function makeSchedule(o: ChaosOptions): Schedule {
  const rnd = prng(o.seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const initialReplicas = Array.from({ length: o.podSets }, () => int(21));
  const windowMs = o.chaosSeconds * 1000;
  const changes: Change[] = [];
  const n = Math.round(o.chaosSeconds * o.changesPerSecond);
  for (let i = 0; i < n; i++) {
    const at = Math.floor((i / n) * windowMs + rnd() * (windowMs / n));
    const ps = int(o.podSets);
    const r = rnd();
    if (r < 0.35) changes.push({ at, kind: 'scale', ps, replicas: int(21) });
    else if (r < 0.55) changes.push({ at, kind: 'template', ps, image: int(1000) });
    else if (r < 0.85) changes.push({ at, kind: 'delete-pod', ps, pick: rnd() });
    else changes.push({ at, kind: 'recreate', ps, replicas: int(21) });
  }
  const faults: Fault[] = [];
  for (let t = o.workerKillEverySeconds * 1000; t < windowMs; t += o.workerKillEverySeconds * 1000) {
    faults.push({ at: t, kind: 'kill-worker', worker: int(o.workers) });
  }
  faults.push({ at: Math.floor(windowMs * 0.25), kind: 'kill-leader' });
  faults.push({ at: Math.floor(windowMs * 0.4), kind: 'redis-restart-aof' });
  faults.push({ at: Math.floor(windowMs * 0.55), kind: 'api-restart' });
  faults.push({ at: Math.floor(windowMs * 0.65), kind: 'kill-leader' });
  // Every open watch goes silent: the watcher's view (and the projection) lags while workers go on,
  // until a watch cut ends it or it outlives its timeout by the stall grace, and it re-watches.
  faults.push({ at: Math.floor(windowMs * 0.5), kind: 'stall-watches' });
  faults.push({ at: Math.floor(windowMs * 0.8), kind: 'redis-restart-empty' });
  faults.push({ at: Math.floor(windowMs * 0.45), kind: 'redis-restart-lose-last-second' });
  faults.push({ at: Math.floor(windowMs * 0.3), kind: 'etcd-backup' });
  faults.push({ at: Math.floor(windowMs * 0.7), kind: 'etcd-restore' });
  faults.sort((a, b) => a.at - b.at);
  return { initialReplicas, changes, faults };
}

function podSetObject(name: string, namespace: string, replicas: number): KubeObject {
  return {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name, namespace },
    spec: {
      replicas,
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }] },
      },
    },
  } as unknown as KubeObject;
}

export async function runChaos(o: ChaosOptions): Promise<ChaosResult> {
  const say = o.log ?? (() => {});
  const schedule = makeSchedule(o);
  const scheduleHash = createHash('sha256').update(JSON.stringify(schedule)).digest('hex').slice(0, 12);
  const events: string[] = [];
  const t0 = Date.now();
  const violations: string[] = [];

  const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-chaos-'));
  // The harness's log directory (OperatorEnv's), made now so kube-sim's audit can go there from its start.
  const logDir = path.join(dir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const record = new RunRecord(logDir, t0);
  const note = (line: string) => {
    const l = `+${((Date.now() - t0) / 1000).toFixed(1)}s ${line}`;
    events.push(l);
    record.note(l);
    say(l);
  };
  const admin = randomBytes(18).toString('base64url');
  const acl = o.redisAcl === true ? chaosAcl(dir, admin) : undefined;
  const redis = await startRedis({
    appendOnly: true,
    ...(acl !== undefined ? { password: admin, args: ['--aclfile', acl.file] } : {}),
  });
  // Read now, while Redis is surely up: a fault's read of it could meet Redis restarting after another fault.
  const redisDir = await redisDataDir();
  // The apps' URL carries no password: with ACLs each app gives its user and password apart.
  const appRedis = (app: AppUser): Record<string, string> =>
    acl === undefined ? {} : { REDIS_URL: `redis://127.0.0.1:${redis.port}`, ...acl.appEnv(app) };
  const simOptions = {
    kubeconfigPath: path.join(dir, 'kubeconfig'),
    // No pod Events: the chaos runs (and their benchmark) churn thousands of pods.
    controllerOptions: { ...FAST_PODS, seed: o.seed, podEvents: false },
    // Every request, appended (also by the kube-sim the etcd-restore fault starts): who made it, how answered.
    auditLog: path.join(logDir, RECORD_FILES.audit),
  };
  // A data dir, as etcd's, so that the etcd-backup fault can copy it and etcd-restore start from the copy.
  let sim = await startKubeSim({ ...simOptions, dataDir: path.join(dir, 'etcd') });
  const env = new OperatorEnv({ name: 'chaos' }, sim, redis, dir, new Date().toISOString());
  /** The report, once the run got to its verdict (unset: it threw before). */
  let finalReport: string | undefined;
  if (acl !== undefined) {
    // The script loader beside Redis, as in k8s/: it caches the scripts again after each Redis restart.
    const loader = new Proc(
      'redis-scripts',
      [LOADER_MAIN],
      {
        REDIS_URL: `redis://127.0.0.1:${redis.port}`,
        ...acl.loaderEnv,
      },
      env.logDir,
    );
    env.procs.push(loader);
    await loader.waitForLine(/loaded \d+ scripts/, 60_000);
  }
  const history = new History();
  // After the etcd-restore fault: the keys a worker read from the restored kube-sim (a GET of the PodSet
  // comes first in every reconcile that reads the API, so before any create it plans), and so the pods made
  // there for a key no worker had read yet: planned from the cluster before the restore.
  let afterRestore = false;
  const readSinceRestore = new Set<string>();
  const subscribe = () =>
    sim.cluster.subscribe((ev) => {
      if (afterRestore && ev.type === 'ADDED' && ev.resource === PODS) {
        const key = history.podNames.get(ownerUid(ev.object) ?? '');
        if (key !== undefined && !readSinceRestore.has(key)) {
          history.plannedBeforeRestore(ev.object);
          note(
            `${ev.object.metadata.name} of ${key} made on the restored API server by a plan read before it`,
          );
        }
      }
      history.on(ev);
      record.onStoreEvent(ev);
    });
  let unsubscribe = subscribe();
  /** The copy of kube-sim's snapshot the etcd-backup fault took. */
  let etcdBackup: string | undefined;

  // Audit: API calls of the operator by verb, errors by code, and each key's last reconcile start
  // (a worker's GET of the PodSet is the first thing a reconcile does).
  const apiCallsByVerb: Record<string, number> = {};
  const apiErrorsByCode: Record<string, number> = {};
  const lastReconcileStart = new Map<string, number>();
  // Planning from the projection, a reconcile reads no PodSet from the API: its start is read from the
  // workers' "reconciled" log lines instead (their time minus their duration).
  const workerLogStarts = new LogTail(env.logDir, /^worker-/);
  let reconciles = 0;
  const onAudit: Parameters<typeof sim.audit.onEntry>[0] = (e) => {
    if (e.user !== 'worker' && e.user !== 'watcher') return;
    const verb = `${e.user} ${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ''}`;
    apiCallsByVerb[verb] = (apiCallsByVerb[verb] ?? 0) + 1;
    if (e.code >= 400) apiErrorsByCode[e.code] = (apiErrorsByCode[e.code] ?? 0) + 1;
    if (e.user === 'worker' && e.verb === 'get' && e.resource === 'podsets' && e.subresource === '') {
      reconciles++;
      const key = `${e.namespace}/${e.name}`;
      if (afterRestore && e.code === 200) readSinceRestore.add(key);
      const start = Date.parse(e.time) - e.latencyMs;
      if (start > (lastReconcileStart.get(key) ?? 0)) lastReconcileStart.set(key, start);
    }
  };
  let stopAudit = sim.audit.onEntry(onAudit);

  const names = Array.from({ length: o.podSets }, (_, i) => `cps-${String(i).padStart(3, '0')}`);
  const nsOf = (i: number) => o.namespaces[i % o.namespaces.length] as string;
  const keyOf = (i: number) => `${nsOf(i)}/${names[i]}`;
  /** When the user last changed each PodSet (a reconcile must start after this). */
  const lastChange = new Map<string, number>();
  /** Desired replicas of PodSets deleted and waiting to be re-created. */
  const pendingRecreate = new Map<number, number>();
  const userChanges: Record<string, number> = {};
  const processKills: Record<string, number> = {};
  const count = (rec: Record<string, number>, k: string) => (rec[k] = (rec[k] ?? 0) + 1);

  // Each app's kubeconfig in the run's own dir, written once: kube-sim's own files go with the kube-sim that
  // wrote them, and a process started while the etcd-restore fault swaps kube-sims (a worker or watcher
  // replacing a killed one) crashed on a missing file (seed 110: no watcher left, nothing converged). The
  // restored kube-sim keeps the port, CA and tokens, so these stay valid.
  const kubeconfigs = new Map<string, string>();
  const kubeconfigOf = (identity: string): string => {
    let file = kubeconfigs.get(identity);
    if (file === undefined) {
      file = path.join(dir, `kubeconfig-${identity}`);
      writeFileSync(file, sim.kubeconfigYaml(identity));
      kubeconfigs.set(identity, file);
    }
    return file;
  };
  const workers: Proc[] = [];
  const watchers: Proc[] = [];
  let watcherSeq = 0;
  const startWatcher = () => {
    const name = `watcher-${watcherSeq++}`;
    watchers.push(
      env.startWatcher(name, {
        LOG_LEVEL: 'info',
        STATE_SOURCE: o.stateSource ?? 'projection',
        // A stalled watch (the stall-watches fault) is restarted once it outlives its timeout by the grace:
        // within 2 × 5 + 2 = 12 s of its start here, inside the run (the defaults would take up to 10.5 min).
        ...CHAOS_WATCH_TIMEOUTS,
        ...appRedis('watcher'),
        KUBECONFIG: kubeconfigOf('watcher'),
      }),
    );
  };
  const startWorker = (i: number) => {
    workers[i] = env.startWorker(`worker-${i}`, {
      STATE_SOURCE: o.stateSource ?? 'projection',
      ...appRedis('worker'),
      KUBECONFIG: kubeconfigOf('worker'),
    });
  };

  try {
    for (const ns of o.namespaces) {
      if (sim.cluster.get('namespaces', undefined, ns) === undefined) {
        sim.cluster.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      }
    }
    await applyCrd(env);
    startWatcher();
    startWatcher();
    for (let i = 0; i < o.workers; i++) startWorker(i);
    note(
      `seed ${o.seed}, schedule ${scheduleHash}: ${o.podSets} PodSets, ${schedule.changes.length} changes, ${schedule.faults.length} faults over ${o.chaosSeconds} s`,
    );

    names.forEach((n, i) => {
      sim.cluster.create(PODSETS, podSetObject(n, nsOf(i), schedule.initialReplicas[i] as number));
      lastChange.set(keyOf(i), Date.now());
    });
    const initialPods = schedule.initialReplicas.reduce((a, b) => a + b, 0);
    const tInit = Date.now();
    await env.waitFor(
      `${o.podSets} PodSets (${initialPods} pods) to converge before the chaos`,
      () => convergenceProblems(),
      { timeoutMs: 300_000, intervalMs: 500 },
    );
    const initialConvergeMs = Date.now() - tInit;
    note(`initial convergence: ${initialPods} pods in ${(initialConvergeMs / 1000).toFixed(1)} s`);

    // ---- the chaos window ----
    sim.faults.set(API_FAULTS);
    note(
      'faults on: 5% 500 + 2% 409 on writes, 1% 429 (Retry-After 1), 50 ms latency, watches cut every 10 s',
    );
    const start = Date.now();
    const items: ({ type: 'change'; c: Change } | { type: 'fault'; f: Fault })[] = [
      ...schedule.changes.map((c) => ({ type: 'change' as const, c })),
      ...schedule.faults.map((f) => ({ type: 'fault' as const, f })),
    ].sort((a, b) => (a.type === 'change' ? a.c.at : a.f.at) - (b.type === 'change' ? b.c.at : b.f.at));

    const background: Promise<void>[] = [];
    // Redis faults one after another: one that began while another still restarts Redis would fail.
    let redisFaults: Promise<void> = Promise.resolve();
    for (const item of items) {
      const at = item.type === 'change' ? item.c.at : item.f.at;
      const wait = start + at - Date.now();
      if (wait > 0) await sleep(wait);
      tryRecreate();
      if (item.type === 'change') applyChange(item.c);
      else {
        const f = item.f;
        const run = f.kind.startsWith('redis-')
          ? (redisFaults = redisFaults.catch(() => undefined).then(() => applyFault(f)))
          : applyFault(f);
        // A fault that fails is the run's failure, said as such (not an unhandled rejection ending it).
        background.push(
          run.catch((err: unknown) => {
            const why = err instanceof Error ? err.message : String(err);
            note(`fault ${f.kind} failed: ${why}`);
            violations.push(`fault ${f.kind} (at +${f.at} ms) failed: ${why}`);
          }),
        );
      }
    }
    const left = start + o.chaosSeconds * 1000 - Date.now();
    if (left > 0) await sleep(left);
    await Promise.all(background);

    // ---- faults stop ----
    sim.faults.reset();
    const tEnd = Date.now();
    note('faults off');
    for (let i = 0; i < o.workers; i++) if (!workers[i]?.running) startWorker(i);
    while (watchers.filter((w) => w.running).length < 2) startWatcher();

    let convergeAfterFaultsMs: number | undefined;
    let last: string[] = [];
    /** What was still wrong when the guarantee's deadline passed (to tell a slow run from a stuck key). */
    let atDeadline: string[] | undefined;
    const deadline = tEnd + (o.convergeSeconds + o.graceSeconds) * 1000;
    for (;;) {
      tryRecreate();
      last = convergenceProblems();
      if (last.length === 0) {
        convergeAfterFaultsMs = Date.now() - tEnd;
        break;
      }
      if (atDeadline === undefined && Date.now() > tEnd + o.convergeSeconds * 1000) {
        atDeadline = last;
        note(
          `${o.convergeSeconds} s after the faults: ${last.length} problems left, e.g. ${last.slice(0, 5).join('; ')}`,
        );
      }
      if (Date.now() > deadline) break;
      await sleep(250);
    }
    if (convergeAfterFaultsMs === undefined) {
      violations.push(
        `not converged ${o.convergeSeconds + o.graceSeconds} s after the faults stopped; still wrong:\n${last
          .slice(0, 30)
          .map((p) => `  - ${p}`)
          .join('\n')}${last.length > 30 ? `\n  … and ${last.length - 30} more` : ''}`,
      );
    } else if (convergeAfterFaultsMs > o.convergeSeconds * 1000) {
      violations.push(
        `converged ${(convergeAfterFaultsMs / 1000).toFixed(1)} s after the faults stopped (guarantee: ${o.convergeSeconds} s); at ${o.convergeSeconds} s still wrong:\n${(
          atDeadline ?? []
        )
          .slice(0, 20)
          .map((p) => `  - ${p}`)
          .join('\n')}`,
      );
    }
    note(
      convergeAfterFaultsMs === undefined
        ? 'did not converge'
        : `converged ${(convergeAfterFaultsMs / 1000).toFixed(1)} s after the faults stopped`,
    );

    // ---- verdict from the history ----
    const over = history.overCreation(t0);
    violations.push(...over.problems);
    violations.push(...history.rollouts.violations.map((v) => `rollout bound: ${v}`));
    const orphans = orphanPods();
    violations.push(...orphans.map((p) => `orphan pod left: ${p}`));

    const q = new Queue(DEFAULT_QUEUE_NAME, {
      connection: {
        host: '127.0.0.1',
        port: redis.port,
        ...(redis.password !== undefined ? { password: redis.password } : {}),
      },
      prefix: DEFAULT_PREFIX,
    });
    let jobsByState: Record<string, number> = {};
    try {
      jobsByState = await q.getJobCounts(
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
          violations.push(`job ${j.id} (${JSON.stringify(j.data)}) failed without a reason`);
        }
      }
    } finally {
      await q.close();
    }

    const { retries, malformed } = countWorkerLogs(env.logDir);
    const result: ChaosResult = {
      options: o,
      scheduleHash,
      violations,
      figures: {
        initialConvergeMs,
        convergeAfterFaultsMs,
        overCreatedPods: over.pods,
        madeFromBeforeRestore: history.madeFromBeforeRestore.length,
        orphanPods: orphans.length,
        reconciles,
        retries,
        malformedJobs: malformed,
        apiCallsByVerb: sortRecord(apiCallsByVerb),
        apiErrorsByCode: sortRecord(apiErrorsByCode),
        jobsByState,
        userChanges,
        processKills,
        podsCreated: history.podsCreated,
      },
      events,
    };
    if (violations.length > 0) {
      events.push(env.diagnostics());
    }
    // A failed run keeps its directory: over-creation or a lost request must be explainable afterwards.
    if (o.keepLogs === true || violations.length > 0) result.logDir = logDir;
    finalReport = formatResult(result);
    return result;
  } finally {
    unsubscribe();
    stopAudit();
    await Promise.all(env.procs.map((p) => p.stop(5_000)));
    await sim.close();
    await redis.close();
    // A run that threw (a fault that failed, a wait that timed out) is kept too: finalReport is unset then.
    const keep = o.keepLogs === true || finalReport === undefined || violations.length > 0;
    await record.finish(finalReport ?? `the run ended early\n${events.join('\n')}`);
    if (keep) say(`logs kept in ${logDir} (apps' logs, ${Object.values(RECORD_FILES).join(', ')})`);
    else rmSync(dir, { recursive: true, force: true });
  }

  // ---- helpers (closures over the run's state) ----

  function convergenceProblems(): string[] {
    workerLogStarts.scan(lastReconcileStart);
    const pods = sim.cluster.list(PODS);
    const problems: string[] = [];
    for (const [i, n] of names.entries()) {
      const key = keyOf(i);
      if (pendingRecreate.has(i)) {
        problems.push(`${key}: deleted, not yet gone (to be re-created)`);
        continue;
      }
      const ps = sim.cluster.get(PODSETS, nsOf(i), n);
      problems.push(...podSetProblems(ps, pods, key).map((p) => `${nsOf(i)}/${p}`));
      problems.push(...templateProblems(ps, pods, key));
      // No request lost: a reconcile started after the user's last change.
      const changed = lastChange.get(key) ?? 0;
      const started = lastReconcileStart.get(key) ?? 0;
      if (started < changed) {
        problems.push(
          `${key}: no reconcile started after its last change (${new Date(changed).toISOString()})`,
        );
      }
    }
    problems.push(...orphanPods().map((p) => `orphan pod: ${p}`));
    return problems;
  }

  function orphanPods(): string[] {
    const uids = new Set(sim.cluster.list(PODSETS).map((p) => p.metadata.uid));
    return sim.cluster
      .list(PODS)
      .filter((p) => p.metadata.labels?.[NAME_LABEL] !== undefined)
      .filter((p) => !uids.has(ownerUid(p)))
      .map((p) => `${p.metadata.namespace}/${p.metadata.name} (owner uid ${ownerUid(p) ?? 'none'})`);
  }

  function tryRecreate(): void {
    for (const [i, replicas] of pendingRecreate) {
      if (sim.cluster.get(PODSETS, nsOf(i), names[i] as string) !== undefined) continue;
      sim.cluster.create(PODSETS, podSetObject(names[i] as string, nsOf(i), replicas));
      lastChange.set(keyOf(i), Date.now());
      pendingRecreate.delete(i);
    }
  }

  function applyChange(c: Change): void {
    const ns = nsOf(c.ps);
    const name = names[c.ps] as string;
    const key = keyOf(c.ps);
    const ps = sim.cluster.get(PODSETS, ns, name);
    if (pendingRecreate.has(c.ps) || ps === undefined || ps.metadata.deletionTimestamp !== undefined) {
      if ((c.kind === 'scale' || c.kind === 'recreate') && pendingRecreate.has(c.ps))
        pendingRecreate.set(c.ps, c.replicas);
      count(userChanges, 'skipped (PodSet being re-created)');
      return;
    }
    try {
      if (c.kind === 'scale') {
        const copy = structuredClone(ps) as KubeObject & { spec: { replicas: number } };
        // A scale to the replicas it has changes nothing: no reconcile is owed for it.
        if (copy.spec.replicas === c.replicas) {
          count(userChanges, 'skipped (scale to the same replicas)');
          return;
        }
        copy.spec.replicas = c.replicas;
        sim.cluster.update(PODSETS, copy);
        lastChange.set(key, Date.now());
        count(userChanges, 'scale');
      } else if (c.kind === 'template') {
        const copy = structuredClone(ps) as KubeObject & {
          spec: { template: { spec: { containers: { image: string }[] } } };
        };
        copy.spec.template.spec.containers[0]!.image = `busybox:1.36.${c.image}`;
        sim.cluster.update(PODSETS, copy);
        lastChange.set(key, Date.now());
        count(userChanges, 'template');
      } else if (c.kind === 'delete-pod') {
        const pods = sim.cluster
          .list(PODS, ns)
          .filter((p) => ownerUid(p) === ps.metadata.uid && p.metadata.deletionTimestamp === undefined)
          .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
        const pod = pods[Math.floor(c.pick * pods.length)];
        if (pod === undefined) {
          count(userChanges, 'skipped (no pod to delete)');
          return;
        }
        history.rollouts.userDeleted(pod.metadata.uid ?? '');
        sim.cluster.delete(PODS, ns, pod.metadata.name as string);
        lastChange.set(key, Date.now());
        count(userChanges, 'delete pod');
      } else {
        sim.cluster.delete(PODSETS, ns, name);
        pendingRecreate.set(c.ps, c.replicas);
        lastChange.set(key, Date.now());
        count(userChanges, 'delete + re-create PodSet');
      }
    } catch (err) {
      count(userChanges, `failed: ${err instanceof Error ? err.message.slice(0, 60) : String(err)}`);
    }
  }

  /**
   * Redis killed and started from its AOF as it was a second before: the writes of its last second are lost
   * (as when the machine, not only the process, dies with appendfsync everysec).
   */
  async function restartRedisLosingLastSecond(): Promise<void> {
    const aofDir = path.join(redisDir, 'appendonlydir');
    const copy = path.join(dir, 'aof-a-second-ago');
    rmSync(copy, { recursive: true, force: true });
    cpSync(aofDir, copy, { recursive: true });
    await sleep(1000);
    note('Redis: hard restart from its AOF of a second ago (its last second of writes lost)');
    await redis.stop({ hard: true });
    rmSync(aofDir, { recursive: true, force: true });
    cpSync(copy, aofDir, { recursive: true });
    await redis.restart();
    count(processKills, 'redis restart (last second lost)');
    note('Redis: back, a second behind');
  }

  async function redisDataDir(): Promise<string> {
    const c = new Redis(redis.url, { maxRetriesPerRequest: 1, lazyConnect: true, retryStrategy: () => null });
    c.on('error', () => undefined); // the rejected command says it
    try {
      await c.connect();
      return ((await c.config('GET', 'dir')) as string[])[1] as string;
    } finally {
      c.disconnect();
    }
  }

  /**
   * kube-sim restarted on its port from the etcd-backup copy: the objects and resourceVersions of then (the
   * identity too, so every kubeconfig holds). Changes made since are gone, deleted objects are back. The
   * run's own view follows: its recorder takes the restored store as it is, a PodSet deleted to be re-created
   * is as the backup has it, one the backup lacks is made again, and every key is owed a reconcile after now.
   */
  async function restoreEtcd(): Promise<void> {
    if (etcdBackup === undefined) {
      violations.push('etcd-restore: no backup was taken');
      return;
    }
    const desired = names.map((n, i) => {
      const ps = sim.cluster.get(PODSETS, nsOf(i), n);
      return ps === undefined ? undefined : specReplicas(ps);
    });
    unsubscribe();
    stopAudit();
    const port = sim.port;
    await sim.close();
    const restored = mkdtempSync(path.join(dir, 'etcd-restored-'));
    copyFileSync(etcdBackup, path.join(restored, 'snapshot.json'));
    sim = await startKubeSim({ ...simOptions, dataDir: restored, port });
    env.sim = sim;
    unsubscribe = subscribe();
    stopAudit = sim.audit.onEntry(onAudit);
    history.replaced(sim.cluster.list(PODSETS), sim.cluster.list(PODS));
    record.onReplaced(sim.cluster.list(PODSETS), sim.cluster.list(PODS));
    afterRestore = true;
    sim.faults.set(API_FAULTS);
    for (const [i, n] of names.entries()) {
      // Restored alive: as the user sees it now. Absent, or restored being deleted: made again once gone.
      const ps = sim.cluster.get(PODSETS, nsOf(i), n);
      if (ps !== undefined && ps.metadata.deletionTimestamp === undefined) pendingRecreate.delete(i);
      else if (!pendingRecreate.has(i)) pendingRecreate.set(i, desired[i] ?? 1);
      lastChange.set(keyOf(i), Date.now());
    }
    count(processKills, 'API server restored from a backup');
    note('API server: restored from the backup (the cluster went back in time)');
  }

  async function applyFault(f: Fault): Promise<void> {
    switch (f.kind) {
      case 'kill-worker': {
        const w = workers[f.worker];
        if (w?.running) {
          await w.kill();
          count(processKills, 'worker SIGKILL');
          note(`SIGKILL ${w.name}`);
        }
        await sleep(300);
        startWorker(f.worker);
        return;
      }
      case 'kill-leader': {
        // The standby of the last kill may still be taking over: wait (bounded) for a running leader.
        const leaderNow = () => {
          const lease = sim.cluster.get('leases.coordination.k8s.io', 'default', 'podset-watcher') as
            (KubeObject & { spec?: { holderIdentity?: string } }) | undefined;
          const h = lease?.spec?.holderIdentity;
          return { holder: h, leader: watchers.find((w) => w.running && w.name === h) };
        };
        const waitUntil = Date.now() + 20_000;
        while (leaderNow().leader === undefined && Date.now() < waitUntil) await sleep(200);
        const { holder, leader } = leaderNow();
        if (leader === undefined) {
          note(`kill-leader: no running leader (lease holder ${holder ?? 'none'})`);
          violations.push(
            `kill-leader at +${f.at} ms: no running watcher took the lease within 20 s (holder ${holder ?? 'none'})`,
          );
          return;
        }
        await leader.kill();
        count(processKills, 'leading watcher SIGKILL');
        note(`SIGKILL leading ${leader.name}`);
        startWatcher();
        return;
      }
      case 'redis-restart-aof':
        note('Redis: hard restart with AOF');
        await redis.restart({ hard: true });
        count(processKills, 'redis restart (AOF)');
        note('Redis: back (AOF replayed)');
        return;
      case 'redis-restart-empty': {
        note('Redis: hard restart losing every key (no persistence)');
        await redis.stop({ hard: true });
        for (const f of readdirSync(redisDir))
          rmSync(path.join(redisDir, f), { recursive: true, force: true });
        await redis.restart();
        count(processKills, 'redis restart (data lost)');
        note('Redis: back, empty');
        return;
      }
      case 'api-restart':
        note('API server: restart (store kept)');
        await sim.restart();
        count(processKills, 'API server restart');
        return;
      case 'redis-restart-lose-last-second':
        await restartRedisLosingLastSecond();
        return;
      case 'etcd-backup': {
        // The snapshot is written whole (temp file, rename) at most a second after a change: a consistent
        // state of a moment ago, as an etcd backup is.
        etcdBackup = path.join(dir, 'etcd-backup.json');
        copyFileSync(path.join(dir, 'etcd', 'snapshot.json'), etcdBackup);
        note('API server: its data dir backed up (as an etcd snapshot)');
        return;
      }
      case 'etcd-restore':
        await restoreEtcd();
        return;
      case 'stall-watches': {
        // The leader may have no watch open right now (it closes them while Redis is away, and Redis is
        // restarted just before): stalled at once, this fault stalled nothing in 24 of 25 short runs. Wait
        // (bounded) for a watch to stall; counted only when one was (still none, at times, when the leader
        // changes and Redis restarts within those 10 s: not asserted by chaos-short).
        const until = Date.now() + 10_000;
        let n = sim.faults.stallWatches();
        while (n === 0 && Date.now() < until) {
          await sleep(100);
          n = sim.faults.stallWatches();
        }
        note(`API server: ${n} open watches stalled (no events, no bookmarks)`);
        if (n > 0) count(processKills, 'watches stalled');
        return;
      }
    }
  }
}

/** Reads the workers' log files as they grow: each key's latest reconcile start from its "reconciled" lines. */
class LogTail {
  readonly #dir: string;
  readonly #files: RegExp;
  readonly #offsets = new Map<string, number>();
  readonly #partial = new Map<string, string>();

  constructor(dir: string, files: RegExp) {
    this.#dir = dir;
    this.#files = files;
  }

  scan(starts: Map<string, number>): void {
    for (const f of readdirSync(this.#dir).filter((name) => this.#files.test(name))) {
      const file = path.join(this.#dir, f);
      const offset = this.#offsets.get(file) ?? 0;
      const size = statSync(file).size;
      if (size <= offset) continue;
      const fd = openSync(file, 'r');
      const buf = Buffer.alloc(size - offset);
      try {
        readSync(fd, buf, 0, buf.length, offset);
      } finally {
        closeSync(fd);
      }
      this.#offsets.set(file, size);
      const lines = ((this.#partial.get(file) ?? '') + buf.toString('utf8')).split('\n');
      this.#partial.set(file, lines.pop() ?? '');
      for (const line of lines) {
        const r = reconcileStartOf(line);
        if (r !== undefined && r.startMs > (starts.get(r.podset) ?? 0)) starts.set(r.podset, r.startMs);
      }
    }
  }
}

function countWorkerLogs(logDir: string): { retries: number; malformed: number } {
  let retries = 0;
  let malformed = 0;
  for (const f of readdirSync(logDir)) {
    if (!f.startsWith('worker-')) continue;
    for (const line of readFileSync(path.join(logDir, f), 'utf8').split('\n')) {
      if (line.includes('will retry')) retries++;
      if (line.includes('malformed job')) malformed++;
    }
  }
  return { retries, malformed };
}

function sortRecord(r: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)));
}

/** The figures as printed by `npm run chaos`. */
export function formatResult(r: ChaosResult): string {
  const f = r.figures;
  const s = (ms: number | undefined) => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);
  const rec = (x: Record<string, number>) =>
    Object.entries(x)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ') || '—';
  return [
    `chaos: seed ${r.options.seed} (schedule ${r.scheduleHash}), ${r.options.podSets} PodSets, ${r.options.chaosSeconds} s of faults, STATE_SOURCE=${r.options.stateSource ?? 'projection'}`,
    `  initial convergence:          ${s(f.initialConvergeMs)}`,
    `  converged after faults in:    ${s(f.convergeAfterFaultsMs)} (guarantee ${r.options.convergeSeconds} s)`,
    `  over-created pods:            ${f.overCreatedPods}`,
    `  made from before the restore: ${f.madeFromBeforeRestore} (planned before the etcd restore, made after it; not over-creation)`,
    `  orphan pods left:             ${f.orphanPods}`,
    `  pods created (total):         ${f.podsCreated}`,
    `  reconciles (worker GETs):     ${f.reconciles}`,
    `  retries (failed attempts):    ${f.retries}`,
    `  malformed jobs:               ${f.malformedJobs}`,
    `  user changes:                 ${rec(f.userChanges)}`,
    `  kills / restarts:             ${rec(f.processKills)}`,
    `  API calls by verb:            ${rec(f.apiCallsByVerb)}`,
    `  API errors by code:           ${rec(f.apiErrorsByCode)}`,
    `  jobs by final state:          ${rec(f.jobsByState)}`,
    r.violations.length === 0
      ? '  verdict: PASS (every guarantee held)'
      : `  verdict: FAIL\n${r.violations.map((v) => `  ✗ ${v}`).join('\n')}`,
    ...(r.logDir !== undefined ? [`  logs kept in:                 ${r.logDir}`] : []),
  ].join('\n');
}
