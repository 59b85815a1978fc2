// The e2e process harness: kube-sim in-process (served over HTTP/TLS like a cluster), a real
// redis-server, and the operator's apps as separate child processes started the way a user starts
// them (`node apps/<app>/src/main.ts` with environment variables), plus the real `kubectl`.
// Every child is killed on close() — and, should the test process die first, by itself (see
// die-with-parent.ts).
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import { type AppUser } from '@podset/redis';
import { Queue } from 'bullmq';
import {
  startKubeSim,
  type AuditEntry,
  type KubeObject,
  type KubeSim,
  type KubeSimOptions,
} from '@podset/kube-sim';
import {
  kubectl,
  Proc as ChildProc,
  removeWhenParentDies,
  startRedis,
  type RedisOptions,
  type RedisServer,
} from '@podset/testkit';
export type { Exit } from '@podset/testkit';
import { reconcileStarts } from '../../../bench/lib/worker-log.ts';
import { LEASES, PODS, PODSETS, podSetProblems } from './check.ts';
import { aclRedisOptions, appRedisEnv, loaderRedisEnv, newRedisUsers, type RedisUsers } from './redis-acl.ts';

export const REPO = path.resolve(import.meta.dirname, '../../..');
export const NODE = path.join(REPO, 'node_modules/.bin/node');
export const WATCHER_MAIN = path.join(REPO, 'apps/watcher/src/main.ts');
/** The script loader's line for each load (at its start and after each Redis restart). */
const LOADED = /loaded \d+ scripts/;
/** The script loader (apps/redis-init/src/redis-scripts-main.ts). */
export const SCRIPT_LOADER_MAIN = path.join(REPO, 'apps/redis-init/src/redis-scripts-main.ts');
export const WORKER_MAIN = path.join(REPO, 'apps/worker/src/main.ts');
const PRELOAD = pathToFileURL(path.join(import.meta.dirname, 'die-with-parent.ts')).href;

/** Fast simulated pods, so that the suite runs in minutes (defaults: 200–800 ms start, 300 ms stop). */
/** kube-sim's fast lifecycle (Pending, then Running+Ready after 50–200 ms): the tests need speed, not pace. */
export const FAST_PODS = {
  podLifecycle: 'fast',
  startupDelayMs: 50,
  startupJitterMs: 150,
  containerExitMs: 50,
} as const;

/** A node process of the repo (an app, kube-sim, a bench tool) that dies with the test process. */
export class Proc extends ChildProc {
  constructor(name: string, args: string[], env: Record<string, string>, logDir: string) {
    super({
      name,
      command: NODE,
      args: ['--import', PRELOAD, ...args],
      cwd: REPO,
      env: { PATH: process.env.PATH ?? '', HOME: logDir, ...env },
      logFile: path.join(logDir, `${name}.log`),
    });
  }
}

/**
 * The apps run with their default queue location (what users get). E2E_QUEUE_PREFIX / E2E_QUEUE_NAME,
 * when set, are given to both apps (for debugging a run, not used by the suite).
 */
function queueOverride(): Record<string, string> {
  const o: Record<string, string> = {};
  if (process.env.E2E_QUEUE_PREFIX) o.QUEUE_PREFIX = process.env.E2E_QUEUE_PREFIX;
  if (process.env.E2E_QUEUE_NAME) o.QUEUE_NAME = process.env.E2E_QUEUE_NAME;
  return o;
}

function indent(text: string, pad: string): string {
  return text
    .split('\n')
    .map((l) => pad + l)
    .join('\n');
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface EnvOptions {
  /** A short name for temp dirs and messages. */
  name: string;
  /** kube-sim controller options (default FAST_PODS). */
  controllerOptions?: Record<string, unknown>;
  /** Extra kube-sim identities (besides admin, watcher, worker, controller, viewer). */
  identities?: string[];
  /** kube-sim admission plugins to enforce (e.g. OwnerReferencesPermissionEnforcement). */
  admissionPlugins?: KubeSimOptions['admissionPlugins'];
  historyLimit?: number;
  bookmarkIntervalMs?: number;
  /** Environment for every watcher / worker started (merged over the harness defaults). */
  watcherEnv?: Record<string, string>;
  workerEnv?: Record<string, string>;
  /** How the harness's redis-server starts (e.g. with a password). */
  redis?: RedisOptions;
  /**
   * Redis with the shipped ACL file and one user per app (support/redis-acl.ts): fresh passwords in
   * `env.redisUsers`, the script loader as its own user, and every watcher and worker started as its app's
   * user unless its env says otherwise. `redis.args` are added after the ACL file's.
   */
  redisAcl?: boolean;
  /**
   * The script loader beside Redis (as podset-scripts with redisAcl, else as the harness's administrator):
   * the apps' ACL users run only cached scripts, so it runs by default when Redis has an ACL file
   * (redisAcl, or `--aclfile` in `redis.args`), and caches them again after each restart. false: the test
   * starts its own.
   */
  scriptLoader?: boolean;
  /**
   * kube-sim keeps its identity and objects in this directory (its etcd), snapshotted 50 ms after a change:
   * restartSim can then bring it back from a copy taken earlier (an etcd backup) or emptied.
   */
  simDataDir?: string;
}

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

export class OperatorEnv {
  /** Replaced by restartSim. */
  sim: KubeSim;
  readonly redis: RedisServer;
  readonly dir: string;
  readonly logDir: string;
  readonly startedAt: string;
  readonly procs: Proc[] = [];
  /** The script loader beside Redis, when this env runs one. */
  scriptLoader: Proc | undefined;
  /** PROJECTION_HMAC_KEY of this env's watchers and workers (as a Secret gives it: theirs only). */
  readonly projectionKey = randomBytes(32).toString('base64');
  readonly #redisUsers: RedisUsers | undefined;
  /** Removes `dir` if the test process dies without close(). */
  dirGuard: ReturnType<typeof removeWhenParentDies> | undefined;
  readonly #options: EnvOptions;

  constructor(
    options: EnvOptions,
    sim: KubeSim,
    redis: RedisServer,
    dir: string,
    startedAt: string,
    redisUsers?: RedisUsers,
  ) {
    this.#options = options;
    this.#redisUsers = redisUsers;
    this.sim = sim;
    this.redis = redis;
    this.dir = dir;
    this.logDir = path.join(dir, 'logs');
    this.startedAt = startedAt;
  }

  /** The Redis users' passwords (EnvOptions.redisAcl). */
  get redisUsers(): RedisUsers {
    if (this.#redisUsers === undefined)
      throw new Error(`e2e ${this.#options.name}: started without redisAcl`);
    return this.#redisUsers;
  }

  /** REDIS_URL, REDIS_USERNAME and REDIS_PASSWORD of `app` as its own Redis user (EnvOptions.redisAcl). */
  appRedisEnv(app: AppUser): Record<string, string> {
    return appRedisEnv(this.redis.port, this.redisUsers, app);
  }

  /** The admin kubeconfig: what the user's kubectl uses. */
  get kubeconfig(): string {
    return this.sim.kubeconfigPath;
  }

  startWatcher(name: string, env: Record<string, string> = {}, identity = 'watcher'): Proc {
    return this.#start(name, WATCHER_MAIN, {
      KUBECONFIG: this.sim.kubeconfigFor(identity),
      ...this.#redisEnv('watcher'),
      HTTP_PORT: '0',
      LOG_LEVEL: 'debug',
      POD_NAME: name,
      // Resync would hide a missed event: the tests prove that the watch path alone suffices.
      RESYNC_PERIOD_SECONDS: '0',
      LEASE_DURATION_SECONDS: '4',
      PROJECTION_HMAC_KEY: this.projectionKey,
      ...queueOverride(),
      ...this.#options.watcherEnv,
      ...env,
    });
  }

  startWorker(name: string, env: Record<string, string> = {}, identity = 'worker'): Proc {
    return this.#start(name, WORKER_MAIN, {
      KUBECONFIG: this.sim.kubeconfigFor(identity),
      ...this.#redisEnv('worker'),
      HTTP_PORT: '0',
      LOG_LEVEL: 'info',
      POD_NAME: name,
      REQUEUE_PENDING_SECONDS: '0.5',
      SHUTDOWN_TIMEOUT_SECONDS: '5',
      PROJECTION_HMAC_KEY: this.projectionKey,
      ...queueOverride(),
      ...this.#options.workerEnv,
      ...env,
    });
  }

  #start(name: string, main: string, env: Record<string, string>): Proc {
    const proc = new Proc(name, [main], env, this.logDir);
    this.procs.push(proc);
    return proc;
  }

  /** Runs the real kubectl as the admin user. Rejects on a non-zero exit unless `allowFail`. */
  async kubectl(
    args: string[],
    opts: { allowFail?: boolean; timeoutMs?: number } = {},
  ): Promise<KubectlResult> {
    return await kubectl(args, {
      kubeconfig: this.kubeconfig,
      cacheDir: path.join(this.dir, 'kube-cache'),
      ...opts,
    });
  }

  /** Writes `objects` as a multi-document YAML file (JSON documents) in the env's dir; returns its path. */
  writeManifest(file: string, objects: readonly unknown[]): string {
    const p = path.join(this.dir, file);
    writeFileSync(p, objects.map((o) => `---\n${JSON.stringify(o, null, 2)}\n`).join(''));
    return p;
  }

  podSet(name: string, namespace = 'default'): KubeObject | undefined {
    return this.sim.cluster.get(PODSETS, namespace, name);
  }

  podSets(namespace = 'default'): KubeObject[] {
    return this.sim.cluster.list(PODSETS, namespace);
  }

  pods(namespace = 'default'): KubeObject[] {
    return this.sim.cluster.list(PODS, namespace);
  }

  lease(name: string, namespace = 'default'): KubeObject | undefined {
    return this.sim.cluster.get(LEASES, namespace, name);
  }

  /** Convergence problems of these PodSets (empty: all converged). */
  problems(names: readonly string[], namespace = 'default'): string[] {
    const pods = this.pods(namespace);
    return names.flatMap((n) => podSetProblems(this.podSet(n, namespace), pods, n));
  }

  async waitConverged(
    names: readonly string[],
    opts: WaitOptions & { namespace?: string } = {},
  ): Promise<number> {
    const started = Date.now();
    await this.waitFor(
      `PodSets ${names.length > 6 ? `${names.slice(0, 6).join(', ')}, … (${names.length})` : names.join(', ')} to converge`,
      () => this.problems(names, opts.namespace),
      opts,
    );
    return Date.now() - started;
  }

  /**
   * Polls `check` (problems seen; empty means done) until it returns none. On timeout, throws with what
   * was expected, what was last seen, and the state and last log lines of every child.
   */
  async waitFor(
    what: string,
    check: () => string[] | Promise<string[]>,
    opts: WaitOptions = {},
  ): Promise<void> {
    const timeoutMs = opts.timeoutMs ?? 60_000;
    const deadline = Date.now() + timeoutMs;
    let last: string[] = [];
    for (;;) {
      try {
        last = await check();
      } catch (err) {
        last = [`check threw: ${err instanceof Error ? err.message : String(err)}`];
      }
      if (last.length === 0) return;
      if (Date.now() >= deadline) break;
      await new Promise((r) => setTimeout(r, opts.intervalMs ?? 200));
    }
    const shown = last.slice(0, 25).map((p) => `  - ${p}`);
    if (last.length > 25) shown.push(`  … and ${last.length - 25} more`);
    throw new Error(
      `timed out after ${timeoutMs / 1000} s waiting for ${what}; still wrong:\n${shown.join('\n')}\n${this.diagnostics()}`,
    );
  }

  diagnostics(): string {
    return `processes:\n${this.procs.map((p) => indent(p.describe(), '  ')).join('\n')}`;
  }

  /** Audit entries of operator identities (or `users`) since `since` (ISO time), by "user verb resource[/sub]". */
  auditSummary(users: readonly string[], since = this.startedAt): Map<string, number> {
    const counts = new Map<string, number>();
    for (const e of this.sim.audit.query({ since })) {
      if (!users.includes(e.user)) continue;
      const k = `${e.user} ${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ''}`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    return counts;
  }

  /** Throws with the children's state if one of them has exited (they are all meant to be running). */
  assertAllRunning(except: readonly Proc[] = []): void {
    const dead = this.procs.filter((p) => !p.running && !except.includes(p));
    if (dead.length > 0) {
      throw new Error(
        `expected every started process to be running, saw:\n${dead.map((p) => p.describe()).join('\n')}`,
      );
    }
  }

  /** An app's Redis settings: its own user with redisAcl, else the harness's URL. */
  #redisEnv(app: AppUser): Record<string, string> {
    return this.#redisUsers === undefined ? { REDIS_URL: this.redis.url } : this.appRedisEnv(app);
  }

  /**
   * How many reconciles of `key` started at or after `sinceMs`, from the workers' logs: a reconcile that
   * plans from the projection reads nothing from the API, so the audit log does not show it.
   */
  reconcilesSince(key: string, sinceMs: number): number {
    return reconcileStarts(this.logDir, /^worker-/, sinceMs).filter((s) => s.podset === key).length;
  }

  /** Jobs still to run (waiting, prioritized, delayed, active): 0 means no reconcile is asked for. */
  async pendingJobs(): Promise<number> {
    const o = queueOverride();
    const queue = new Queue(o.QUEUE_NAME ?? DEFAULT_QUEUE_NAME, {
      connection: { url: this.redis.url },
      prefix: o.QUEUE_PREFIX ?? DEFAULT_PREFIX,
    });
    try {
      const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
      return Object.values(counts).reduce((a, b) => a + b, 0);
    } finally {
      await queue.close();
    }
  }

  /**
   * Stops kube-sim and starts it again on the same port from `dataDir` (with EnvOptions.simDataDir: e.g. a
   * copy of it taken earlier, as etcd restored from a backup). The identity (CA, tokens) is the data dir's,
   * so kubeconfigs written before stay valid.
   */
  /**
   * Restarts Redis and, when a script loader runs beside it, waits until it has cached the scripts again:
   * until then an app user's script is refused (NOSCRIPT, then NOPERM for the EVAL it may not send), the
   * gap a test of what the apps do on a working Redis must not measure.
   */
  async restartRedis(opts?: { hard?: boolean }): Promise<void> {
    const loads = (): number => this.scriptLoader?.lines().filter((l) => LOADED.test(l)).length ?? 0;
    const before = loads();
    await this.redis.restart(opts);
    if (this.scriptLoader === undefined) return;
    const deadline = Date.now() + 60_000;
    while (loads() === before) {
      if (Date.now() > deadline || !this.scriptLoader.running)
        throw new Error(
          `the script loader did not load the scripts again after the restart:\n${this.scriptLoader.describe()}`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async restartSim(dataDir: string): Promise<void> {
    const port = this.sim.port;
    await this.sim.close();
    this.sim = await startKubeSim({ ...simOptionsOf(this.#options, this.dir), dataDir, port });
  }

  async close(): Promise<void> {
    await Promise.all(this.procs.map((p) => p.stop(5_000)));
    await this.sim.close();
    await this.redis.close();
    const keep = process.env.E2E_KEEP_LOGS !== undefined;
    this.dirGuard?.release({ keep });
    if (!keep) rmSync(this.dir, { recursive: true, force: true });
    else console.log(`e2e ${this.#options.name}: logs kept in ${this.logDir}`);
  }
}

/** kube-sim's options for an env in `dir`. */
function simOptionsOf(options: EnvOptions, dir: string): KubeSimOptions {
  return {
    kubeconfigPath: path.join(dir, 'kubeconfig'),
    controllerOptions: options.controllerOptions ?? FAST_PODS,
    ...(options.identities
      ? {
          auth: {
            identities: ['admin', 'watcher', 'worker', 'controller', 'viewer', ...options.identities],
          },
        }
      : {}),
    ...(options.historyLimit !== undefined ? { historyLimit: options.historyLimit } : {}),
    ...(options.admissionPlugins ? { admissionPlugins: options.admissionPlugins } : {}),
    ...(options.bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs: options.bookmarkIntervalMs } : {}),
    ...(options.simDataDir !== undefined ? { dataDir: options.simDataDir, snapshotIntervalMs: 50 } : {}),
  };
}

export async function startEnv(options: EnvOptions): Promise<OperatorEnv> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `podset-e2e-${options.name}-`));
  // A test process killed mid-run (Ctrl-C, a runner's SIGKILL) leaves no temp dir behind.
  const dirGuard = removeWhenParentDies(dir);
  const startedAt = new Date().toISOString();
  const users = options.redisAcl === true ? newRedisUsers() : undefined;
  const redisOptions = users === undefined ? options.redis : withAcl(dir, users, options.redis);
  const redis = await startRedis(redisOptions);
  let sim: KubeSim;
  try {
    sim = await startKubeSim(simOptionsOf(options, dir));
  } catch (err) {
    await redis.close();
    dirGuard.release();
    throw err;
  }
  const env = new OperatorEnv(options, sim, redis, dir, startedAt, users);
  env.dirGuard = dirGuard;
  mkdirSync(env.logDir, { recursive: true });
  if (options.scriptLoader ?? redisOptions?.args?.includes('--aclfile') === true) {
    const as = users === undefined ? { REDIS_URL: redis.url } : loaderRedisEnv(redis.port, users);
    const loader = new Proc('redis-scripts', [SCRIPT_LOADER_MAIN], as, env.logDir);
    env.procs.push(loader);
    env.scriptLoader = loader;
    await loader.waitForLine(LOADED, 60_000);
  }
  return env;
}

/** `extra` with the shipped ACL file (written into `dir`) for the queue's scope the apps use. */
function withAcl(dir: string, users: RedisUsers, extra: RedisOptions = {}): RedisOptions {
  const o = queueOverride();
  const scope = { prefix: o.QUEUE_PREFIX ?? DEFAULT_PREFIX, queueName: o.QUEUE_NAME ?? DEFAULT_QUEUE_NAME };
  const acl = aclRedisOptions(dir, scope, users);
  return { ...extra, ...acl, args: [...(acl.args ?? []), ...(extra.args ?? [])] };
}

/** Applies the PodSet CRD with kubectl, as a user installing the operator would. */
export async function applyCrd(env: OperatorEnv): Promise<void> {
  await env.kubectl(['apply', '-f', path.join(REPO, 'crds/podset.yaml')]);
}

/** A PodSet manifest (YAML is a superset of JSON: kubectl apply takes this as is). */
export function podSetManifest(
  name: string,
  replicas: number,
  extra: { labels?: Record<string, string>; namespace?: string } = {},
): Record<string, unknown> {
  return {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name, namespace: extra.namespace ?? 'default' },
    spec: {
      replicas,
      template: {
        metadata: { labels: { app: name, ...extra.labels } },
        spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }] },
      },
    },
  };
}

/** Start time of an audited request (entries are recorded when the response ends). */
export function startedAtMs(e: AuditEntry): number {
  return Date.parse(e.time) - e.latencyMs;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
