// The benchmark's world: kube-sim (the real CLI, in a child process) or any cluster a kubeconfig names (a
// fresh namespace of it), a real Redis, and the operator's apps as child processes started the way a user
// starts them. The bench's own client is client.ts; the measurements of those processes are figures.ts.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import { GROUP, PLURAL, podSetCrd } from '@podset/reconcile';
import { freePort, startRedis, type RedisServer } from '@podset/testkit';
import type { AuditEntry } from '@podset/kube-sim';
import { Client, type KubeObj, type Reply } from './client.ts';
import { Proc } from '../../test/e2e/support/harness.ts';
import { interrupted, throwIfInterrupted, track, untrack, type Closable } from './interrupt.ts';
import { heapEnvOf } from './app-heap.ts';

export const REPO = path.resolve(import.meta.dirname, '../..');
const SIM_MAIN = path.join(REPO, 'tools/kube-sim/src/cmd/main.ts');
const WORKER_MAIN = path.join(REPO, 'apps/worker/src/main.ts');
const WATCHER_MAIN = path.join(REPO, 'apps/watcher/src/main.ts');
const PEER_MAIN = path.join(REPO, 'bench/peer/main.ts');
const NODE_AGENT_MAIN = path.join(REPO, 'tools/node-agent/src/main.ts');
/** The identity the node agent runs as (its requests are audited under this name). */
export const NODE_AGENT_IDENTITY = 'node-agent';
export const NS = 'default';
// The queue where users' watchers and workers meet by default (set explicitly for both apps).
export const QUEUE_NAME = DEFAULT_QUEUE_NAME;
export const QUEUE_PREFIX = DEFAULT_PREFIX;
export const PODSETS_PATH = `/apis/podset.io/v1/namespaces/${NS}/podsets`;
export const PODS_PATH = `/api/v1/namespaces/${NS}/pods`;

/** Extra node flags for every worker and watcher started (e.g. an --import preload for an experiment). */
const appNodeArgs: string[] = [];
export function setAppNodeArgs(args: readonly string[]): void {
  appNodeArgs.splice(0, appNodeArgs.length, ...args);
}

/** Environment for every watcher and worker started (settings both must share, e.g. STATE_SOURCE). */
const appEnvExtra: Record<string, string> = {};
export function setAppEnv(env: Readonly<Record<string, string>>): void {
  for (const k of Object.keys(appEnvExtra)) delete appEnvExtra[k];
  Object.assign(appEnvExtra, env);
}

/** Extra environment by role, over the scenario's own: every worker's (--worker-env), the watcher's (--watcher-env). */
const roleEnvExtra: Record<'worker' | 'watcher', Record<string, string>> = { worker: {}, watcher: {} };
export function setRoleEnv(role: 'worker' | 'watcher', env: Readonly<Record<string, string>>): void {
  roleEnvExtra[role] = { ...env };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface SimOptions {
  latencyMs?: number;
  /** kube-sim's pod lifecycle (its --lifecycle); default fast, with fast pods. */
  lifecycle?: 'kubelet' | 'fast' | 'off';
  /** kube-sim's nodes (default its own, 3); 0 with a node agent, which registers its own. */
  nodes?: number;
  /** kube-sim's lifecycle off and the node agent (a child process) as scheduler and kubelets instead. */
  nodeAgent?: { nodes: number };
  startupDelayMs?: number;
  startupJitterMs?: number;
  history?: number;
  /** Start kube-sim with --cpu-prof into this directory. */
  profileDir?: string;
}

/** The pod start-up delay flags kube-sim and the node agent share (the bench's default: fast pods). */
function startupArgs(o: SimOptions): string[] {
  return [
    '--startup-delay-ms',
    String(o.startupDelayMs ?? 50),
    '--startup-jitter-ms',
    String(o.startupJitterMs ?? 150),
  ];
}

export interface AppOptions {
  env?: Record<string, string>;
  profileDir?: string;
}

/** Where the bench runs when not on a kube-sim it starts: the cluster a kubeconfig names. */
export interface ExternalCluster {
  kubeconfig: string;
}

/** Bench namespaces on a cluster given by --kubeconfig carry this label (value: the run's name). */
export const BENCH_NAMESPACE_LABEL = 'podset.io/bench';
const CRD_PATH = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${PLURAL}.${GROUP}`;

/**
 * A fresh world: kube-sim + Redis (+ apps started on demand), or, on a cluster given by a kubeconfig, a fresh
 * namespace there + Redis. close() stops everything it started and removes what it created; Ctrl-C calls it
 * too (./interrupt.ts).
 */
export class World implements Closable {
  readonly dir: string;
  readonly logDir: string;
  /** The kube-sim this world started; undefined on a cluster given by a kubeconfig. */
  readonly sim: Proc | undefined;
  readonly redis: RedisServer;
  /** The namespace of the PodSets and pods (kube-sim: default; another cluster: a fresh one). */
  readonly ns: string;
  readonly podSetsPath: string;
  readonly podsPath: string;
  readonly #httpsUrl: string;
  readonly #ca: string;
  readonly #kubeconfigDir: string;
  readonly #external: (ExternalCluster & { installedCrd: boolean }) | undefined;
  /** Admin: the bench's own setup and monitoring (plain http on kube-sim). */
  readonly admin: Client;
  readonly apps: Proc[] = [];
  readonly metricsPorts = new Map<Proc, number>();
  /** PROJECTION_HMAC_KEY of the watcher and the workers: the projection's entries are tagged and checked. */
  readonly projectionKey = randomBytes(32).toString('base64');
  /** attach()'s requests that create things on the cluster: a close waits for them before it removes. */
  #setup: Promise<void> = Promise.resolve();
  #closing: Promise<void> | undefined;

  private constructor(o: {
    dir: string;
    sim: Proc | undefined;
    redis: RedisServer;
    admin: Client;
    ns: string;
    httpsUrl?: string;
    ca?: string;
    kubeconfigDir?: string;
    external?: ExternalCluster & { installedCrd: boolean };
  }) {
    this.dir = o.dir;
    this.logDir = path.join(o.dir, 'logs');
    this.sim = o.sim;
    this.redis = o.redis;
    this.admin = o.admin;
    this.ns = o.ns;
    this.podSetsPath = `/apis/podset.io/v1/namespaces/${o.ns}/podsets`;
    this.podsPath = `/api/v1/namespaces/${o.ns}/pods`;
    this.#httpsUrl = o.httpsUrl ?? '';
    this.#ca = o.ca ?? '';
    this.#kubeconfigDir = o.kubeconfigDir ?? '';
    this.#external = o.external;
    track(this);
  }

  /** On the cluster `cluster` names when given (SimOptions then do not apply), else on a fresh kube-sim. */
  static async open(name: string, o: SimOptions, cluster: ExternalCluster | undefined): Promise<World> {
    throwIfInterrupted();
    return cluster === undefined ? World.start(name, o) : World.attach(name, cluster);
  }

  /** A fresh namespace on the cluster the kubeconfig names, the PodSet CRD installed there if missing. */
  static async attach(name: string, cluster: ExternalCluster): Promise<World> {
    const dir = mkdtempSync(path.join(os.tmpdir(), `podset-bench-${name}-`));
    mkdirSync(path.join(dir, 'logs'), { recursive: true });
    const admin = await Client.fromKubeconfig(cluster.kubeconfig);
    const ns = `podset-bench-${name}-${randomBytes(3).toString('hex')}`;
    let redis: RedisServer;
    let installedCrd: boolean;
    try {
      installedCrd = await admin.call('GET', CRD_PATH).then(
        (r) => r.status === 404,
        (err: unknown) => {
          const why = err instanceof Error ? err.message : String(err);
          throw new Error(`the cluster of --kubeconfig ${cluster.kubeconfig}: ${why}`, { cause: err });
        },
      );
      redis = await startRedis();
    } catch (err) {
      admin.close();
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    const world = new World({
      dir,
      sim: undefined,
      redis,
      admin,
      ns,
      external: { ...cluster, installedCrd },
    });
    world.#setup = (async () => {
      throwIfInterrupted();
      if (installedCrd) await admin.json('POST', CRD_PATH.replace(/\/[^/]+$/, ''), podSetCrd());
      throwIfInterrupted();
      await admin.json('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns, labels: { [BENCH_NAMESPACE_LABEL]: name } },
      });
      await world.#waitForPodSets();
    })();
    try {
      await world.#setup;
    } catch (err) {
      await world.close();
      throw err;
    }
    return world;
  }

  /** The CRD is served once established; wait until a list works. */
  async #waitForPodSets(): Promise<void> {
    for (let i = 0; ; i++) {
      const r = await this.admin.call('GET', this.podSetsPath);
      if (r.status === 200) return;
      throwIfInterrupted();
      if (i > 200)
        throw new Error(`PodSet CRD not served: HTTP ${r.status} ${r.body.toString().slice(0, 200)}`);
      await sleep(50);
    }
  }

  static async start(name: string, o: SimOptions = {}): Promise<World> {
    const dir = mkdtempSync(path.join(os.tmpdir(), `podset-bench-${name}-`));
    const logDir = path.join(dir, 'logs');
    mkdirSync(logDir, { recursive: true });
    const kubeconfigDir = path.join(dir, 'kubeconfigs');
    const args = [
      ...(o.profileDir ? ['--cpu-prof', '--cpu-prof-dir', o.profileDir] : []),
      SIM_MAIN,
      '--port',
      '0',
      '--kubeconfig',
      path.join(dir, 'kubeconfig'),
      '--kubeconfig-dir',
      kubeconfigDir,
      '--latency-ms',
      String(o.latencyMs ?? 0),
      ...(o.history !== undefined ? ['--history', String(o.history)] : []),
      ...(o.nodeAgent !== undefined
        ? [
            '--lifecycle',
            'off',
            '--nodes',
            '0',
            '--token',
            `${NODE_AGENT_IDENTITY}=${randomBytes(16).toString('hex')}`,
          ]
        : o.lifecycle === 'off'
          ? ['--lifecycle', 'off']
          : [
              '--lifecycle',
              o.lifecycle ?? 'fast',
              ...startupArgs(o),
              ...(o.nodes !== undefined ? ['--nodes', String(o.nodes)] : []),
              // Pod Events would triple the objects the benchmarks create.
              '--no-pod-events',
            ]),
    ];
    const sim = new Proc('kube-sim', args, {}, logDir);
    const redis = await startRedis();
    const deadline = Date.now() + 30_000;
    let url: string | undefined;
    while (url === undefined) {
      const m = /listening on (http:\/\/\S+)/.exec(sim.lines().join('\n'));
      if (m) url = m[1];
      else if (!sim.running || Date.now() > deadline) {
        await redis.close();
        await sim.kill();
        throw new Error(`kube-sim did not start:\n${sim.describe()}`);
      } else await sleep(50);
    }
    const httpsUrl = url.replace('http:', 'https:');
    const kc = readFileSync(path.join(kubeconfigDir, 'admin'), 'utf8');
    const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(kc)?.[1] ?? '', 'base64').toString();
    const token = /token: (\S+)/.exec(kc)?.[1];
    if (!token) throw new Error('no token for admin');
    const admin = new Client(url, token, { https: false, maxSockets: 64 });
    const world = new World({ dir, sim, redis, admin, ns: NS, httpsUrl, ca, kubeconfigDir });
    try {
      await world.admin.json('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', podSetCrd());
      await world.#waitForPodSets();
      if (o.nodeAgent !== undefined) await world.#startNodeAgent(o.nodeAgent.nodes, o);
    } catch (err) {
      await world.close();
      throw err;
    }
    return world;
  }

  /**
   * The node agent (tools/node-agent) as identity node-agent, with the pod timings kube-sim would use;
   * resolves once its nodes are registered. It is one of `apps` (stopped with them), named node-agent.
   */
  async #startNodeAgent(nodes: number, o: SimOptions): Promise<void> {
    const proc = new Proc(
      NODE_AGENT_IDENTITY,
      [
        NODE_AGENT_MAIN,
        '--kubeconfig',
        this.kubeconfigOf(NODE_AGENT_IDENTITY),
        '--nodes',
        String(nodes),
        '--qps',
        '0',
        ...startupArgs(o),
        '--log-level',
        'warn',
      ],
      {},
      this.logDir,
    );
    this.apps.push(proc);
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (!proc.running) throw new Error(`the node agent exited:\n${proc.describe()}`);
      const list = await this.admin.json<{ items: unknown[] }>('GET', '/api/v1/nodes');
      if (list.items.length >= nodes) return;
      if (Date.now() > deadline) throw new Error(`the node agent registered no ${nodes} nodes in 120 s`);
      await sleep(100);
    }
  }

  /** Whether this world is a cluster given by a kubeconfig (no kube-sim process, no audit). */
  get external(): boolean {
    return this.#external !== undefined;
  }

  /** The kubeconfig an app runs with as `identity` (on another cluster: the user's, whatever the identity). */
  kubeconfigOf(identity: string): string {
    return this.#external?.kubeconfig ?? path.join(this.#kubeconfigDir, identity);
  }

  /** Environment that confines the operator to this world's namespace on a shared cluster. */
  #scopeEnv(): Record<string, string> {
    return this.#external === undefined ? {} : { WATCH_NAMESPACES: this.ns, LEASE_NAMESPACE: this.ns };
  }

  token(identity: string): string {
    const kc = readFileSync(this.kubeconfigOf(identity), 'utf8');
    const t = /token: (\S+)/.exec(kc)?.[1];
    if (!t) throw new Error(`no token for ${identity}`);
    return t;
  }

  /** An https client as `identity` (what a controller uses), up to `maxSockets` connections. */
  async client(identity: string, maxSockets: number): Promise<Client> {
    if (this.#external !== undefined) return Client.fromKubeconfig(this.#external.kubeconfig, maxSockets);
    return new Client(this.#httpsUrl, this.token(identity), { https: true, ca: this.#ca, maxSockets });
  }

  /** Starts `main` as `identity` with the bench's common environment and a metrics port; not yet awaited. */
  private async startApp(
    name: string,
    main: string,
    identity: string,
    env: Record<string, string>,
    o: AppOptions,
  ): Promise<{ proc: Proc; port: number }> {
    const port = await freePort();
    const proc = new Proc(
      name,
      [...appNodeArgs, ...(o.profileDir ? ['--cpu-prof', '--cpu-prof-dir', o.profileDir] : []), main],
      {
        KUBECONFIG: this.kubeconfigOf(identity),
        REDIS_URL: this.redis.url,
        QUEUE_NAME,
        QUEUE_PREFIX,
        HTTP_PORT: String(port),
        LOG_LEVEL: 'warn',
        POD_NAME: name,
        ...(identity === 'watcher' || identity === 'worker' ? heapEnvOf(identity) : {}),
        ...this.#scopeEnv(),
        ...appEnvExtra,
        ...env,
      },
      this.logDir,
    );
    this.apps.push(proc);
    this.metricsPorts.set(proc, port);
    return { proc, port };
  }

  async startWorker(name: string, o: AppOptions = {}): Promise<Proc> {
    const { proc, port } = await this.startApp(
      name,
      WORKER_MAIN,
      'worker',
      {
        KUBE_QPS: '0',
        KUBE_BURST: '1000',
        SHUTDOWN_TIMEOUT_SECONDS: '5',
        PROJECTION_HMAC_KEY: this.projectionKey,
        ...o.env,
        ...roleEnvExtra.worker,
      },
      o,
    );
    // Ready when /readyz answers 200 (a busy shared machine can take long to load the app).
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (!proc.running) throw new Error(`worker ${name} exited:\n${proc.describe()}`);
      try {
        const r = await fetch(`http://127.0.0.1:${port}/readyz`);
        if (r.status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`worker ${name} not ready in 120 s:\n${proc.describe()}`);
      await sleep(100);
    }
    return proc;
  }

  async startWatcher(name: string, o: AppOptions = {}): Promise<Proc> {
    const { proc } = await this.startApp(
      name,
      WATCHER_MAIN,
      'watcher',
      {
        RESYNC_PERIOD_SECONDS: '0',
        KUBE_QPS: '1000',
        KUBE_BURST: '1000',
        PROJECTION_HMAC_KEY: this.projectionKey,
        ...o.env,
        ...roleEnvExtra.watcher,
      },
      o,
    );
    return proc;
  }

  /** The operator as the scenarios run it: one watcher and `workers` worker processes; returns the workers. */
  async startOperator(o: {
    workers: number;
    concurrency: number;
    createBurst: number;
    profileDir?: string | undefined;
    /** More environment for every worker (e.g. LOG_LEVEL). */
    workerEnv?: Record<string, string>;
  }): Promise<Proc[]> {
    const prof = o.profileDir ? { profileDir: o.profileDir } : {};
    await this.startWatcher('watcher', prof);
    return Promise.all(
      Array.from({ length: o.workers }, (_, i) =>
        this.startWorker(`worker-${i}`, {
          env: {
            WORKER_CONCURRENCY: String(o.concurrency),
            CREATE_BURST: String(o.createBurst),
            ...o.workerEnv,
          },
          ...prof,
        }),
      ),
    );
  }

  /** The in-process peer controller (bench/peer) as identity `controller`; resolves once it is watching. */
  async startPeer(name: string, o: AppOptions = {}): Promise<Proc> {
    const proc = new Proc(
      name,
      [...appNodeArgs, ...(o.profileDir ? ['--cpu-prof', '--cpu-prof-dir', o.profileDir] : []), PEER_MAIN],
      {
        KUBECONFIG: this.kubeconfigOf('controller'),
        NAMESPACE: this.ns,
        KUBE_QPS: '0',
        KUBE_BURST: '1000',
        ...o.env,
      },
      this.logDir,
    );
    this.apps.push(proc);
    const deadline = Date.now() + 120_000;
    while (!proc.lines().some((l) => l.includes('peer: started'))) {
      if (!proc.running) throw new Error(`peer ${name} exited:\n${proc.describe()}`);
      if (Date.now() > deadline) throw new Error(`peer ${name} not started in 120 s:\n${proc.describe()}`);
      await sleep(100);
    }
    return proc;
  }

  /** Prometheus text of an app's /metrics, as name{labels} → value. */
  async metrics(proc: Proc): Promise<Map<string, number>> {
    const port = this.metricsPorts.get(proc);
    const out = new Map<string, number>();
    if (port === undefined) return out;
    let text = '';
    try {
      text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    } catch {
      return out; // no metrics server (yet)
    }
    for (const line of text.split('\n')) {
      if (line === '' || line.startsWith('#')) continue;
      const i = line.lastIndexOf(' ');
      out.set(line.slice(0, i), Number(line.slice(i + 1)));
    }
    return out;
  }

  /** Audit entries (kube-sim's control API) of `user` since `since` (ISO). */
  async audit(user: string, since: string): Promise<AuditEntry[]> {
    return await this.admin.json<AuditEntry[]>(
      'GET',
      `/kube-sim/audit?user=${encodeURIComponent(user)}&since=${encodeURIComponent(since)}`,
    );
  }

  /** What close() stops and removes (for the messages of an interrupted run). */
  describe(): string {
    if (this.#external === undefined) return `kube-sim, Redis and the apps of ${this.dir}`;
    const crd = this.#external.installedCrd ? `; the PodSet CRD it installed` : '';
    return `namespace ${this.ns} (its PodSets, their finalizers and pods)${crd}; the operator's processes and Redis`;
  }

  /**
   * What this world made on a cluster given by a kubeconfig, with its apps already stopped (nothing else
   * removes the operator's finalizers then): the PodSets lose their finalizers and go, their pods go, the
   * namespace is deleted and waited for (3 minutes at most), and the CRD goes when this world installed it.
   */
  async #removeFromCluster(): Promise<void> {
    // Step by step on stderr when interrupted; a normal end stays quiet.
    const say = (s: string): void => {
      if (interrupted.aborted) process.stderr.write(`bench: ${s}\n`);
    };
    const ok = (what: string, r: Reply): void => {
      if (r.status !== 404 && (r.status < 200 || r.status > 299))
        throw new Error(`${what}: HTTP ${r.status} ${r.body.toString().slice(0, 300)}`);
    };
    const list = await this.admin.call('GET', this.podSetsPath);
    if (list.status === 200) {
      const items = (JSON.parse(list.body.toString()) as { items: KubeObj[] }).items;
      const held = items.filter((ps) => (ps.metadata.finalizers ?? []).length > 0);
      say(`${this.ns}: removing the finalizers of ${held.length} PodSets, deleting ${items.length} PodSets`);
      // The bench's own PodSets: whatever holds them was the operator it ran, now stopped.
      for (const ps of held)
        ok(
          `removing the finalizers of PodSet ${ps.metadata.name}`,
          await this.admin.call(
            'PATCH',
            `${this.podSetsPath}/${ps.metadata.name}`,
            { metadata: { finalizers: null } },
            'application/merge-patch+json',
          ),
        );
      ok(`DELETE the PodSets of ${this.ns}`, await this.admin.call('DELETE', this.podSetsPath));
    }
    say(`${this.ns}: deleting its pods and the namespace`);
    // A second of grace: the bench's pods run `sleep`, which ignores SIGTERM and would take the default 30 s.
    ok(
      `DELETE the pods of ${this.ns}`,
      await this.admin.call('DELETE', `${this.podsPath}?gracePeriodSeconds=1`),
    );
    const nsPath = `/api/v1/namespaces/${this.ns}`;
    ok(`DELETE namespace ${this.ns}`, await this.admin.call('DELETE', nsPath));
    if (!(await this.#gone(nsPath, 180_000)))
      throw new Error(`namespace ${this.ns} is still there after 3 minutes`);
    say(`${this.ns}: gone`);
    if (this.#external?.installedCrd === true) {
      say(`deleting the PodSet CRD the bench installed`);
      ok('DELETE the PodSet CRD', await this.admin.call('DELETE', CRD_PATH));
      if (!(await this.#gone(CRD_PATH, 60_000)))
        throw new Error(`the PodSet CRD is still there after a minute`);
    }
  }

  /** Whether GET `p` answers 404 within `timeoutMs`. */
  async #gone(p: string, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if ((await this.admin.call('GET', p)).status === 404) return true;
      await sleep(250);
    }
    return false;
  }

  async stopApps(): Promise<void> {
    await Promise.all(this.apps.map((p) => p.stop(15_000)));
    this.apps.length = 0;
  }

  /** Stops and removes everything; one path for a normal end, a failure and Ctrl-C (the same promise). */
  close(): Promise<void> {
    this.#closing ??= this.#close().finally(() => untrack(this));
    return this.#closing;
  }

  async #close(): Promise<void> {
    // What attach() is still creating must exist before it can be removed.
    await this.#setup.catch(() => undefined);
    await this.stopApps();
    let cleanup: unknown;
    if (this.#external !== undefined)
      cleanup = await this.#removeFromCluster().then(
        () => undefined,
        (err: unknown) => err ?? new Error('cleanup failed'),
      );
    this.admin.close();
    await this.sim?.stop(15_000);
    await this.redis.close();
    if (cleanup !== undefined) throw cleanup;
    if (process.env.BENCH_KEEP_LOGS === undefined) rmSync(this.dir, { recursive: true, force: true });
    else console.error(`bench: logs kept in ${this.logDir}`);
  }
}
