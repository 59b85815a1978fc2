// The operator as child processes — two watchers, two workers and a redis-server of its own — scoped to one
// namespace of the suite, in one of two identities:
//   deployed:  the shipped RBAC (k8s/base/rbac.yaml) made namespaced as k8s/overlays/namespaced makes it
//              (each ClusterRole a Role, each ClusterRoleBinding a RoleBinding) in the suite's namespace,
//              and each app given a kubeconfig with its ServiceAccount's token from the TokenRequest API
//              (`kubectl create token`); nothing cluster-scoped is created.
//              Their environment starts from the ConfigMap the Deployments use (k8s/base/config.yaml).
//   developer: the admin kubeconfig and the apps' defaults, as `npm run watcher` on a laptop.
// Either way WATCH_NAMESPACES and LEASE_NAMESPACE are the suite's namespace, so the operator touches
// nothing of the cluster beyond it.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startRedis, waitFor, type RedisServer } from '@podset/testkit';
import { parseAllDocuments } from 'yaml';
import { Proc, REPO, WATCHER_MAIN, WORKER_MAIN } from '../../e2e/support/harness.ts';
import type { Target } from './target.ts';

export type Identity = 'deployed' | 'developer';
export const LEASE_NAME = 'podset-watcher';
/** Short, so the failover scenario is quick; the handover bound itself is tested in test/e2e/watcher.test.ts. */
export const LEASE_SECONDS = 4;

interface K8sDoc {
  kind: string;
  metadata: { name: string; namespace?: string };
  roleRef?: { kind: string };
  subjects?: { kind: string; namespace?: string }[];
}

/** k8s/base/rbac.yaml with every object in `namespace` and cluster-wide grants turned into namespaced ones. */
export function namespacedRbac(namespace: string): K8sDoc[] {
  const text = readFileSync(path.join(REPO, 'k8s/base/rbac.yaml'), 'utf8');
  return parseAllDocuments(text).map((d) => {
    const o = d.toJS() as K8sDoc;
    if (o.kind === 'ClusterRole') o.kind = 'Role';
    if (o.kind === 'ClusterRoleBinding') o.kind = 'RoleBinding';
    if (o.roleRef?.kind === 'ClusterRole') o.roleRef.kind = 'Role';
    for (const s of o.subjects ?? []) if (s.kind === 'ServiceAccount') s.namespace = namespace;
    o.metadata.namespace = namespace;
    return o;
  });
}

/**
 * The shared settings the Deployments give every app (k8s/base/config.yaml's ConfigMap: the queue's name and
 * prefix, the log level), but REDIS_URL: the suite's own redis-server replaces the in-cluster Service.
 */
export function deployedSettings(): Record<string, string> {
  const text = readFileSync(path.join(REPO, 'k8s/base/config.yaml'), 'utf8');
  const configMap = parseAllDocuments(text)
    .map((d) => d.toJS() as { kind?: string; data?: Record<string, string> })
    .find((o) => o.kind === 'ConfigMap');
  if (configMap?.data === undefined) throw new Error('k8s/base/config.yaml: no ConfigMap with data');
  const { REDIS_URL: _inCluster, ...settings } = configMap.data;
  return settings;
}

export class Operator {
  readonly identity: Identity;
  readonly namespace: string;
  readonly watchers: Proc[] = [];
  readonly workers: Proc[] = [];
  /** Apps a scenario SIGKILLed on purpose. */
  readonly killed: Proc[] = [];
  readonly #target: Target;
  readonly #redis: RedisServer;
  /** What every app's environment starts from: the deployed settings, or nothing (the defaults). */
  readonly #settings: Record<string, string>;
  /** The kubeconfig each app runs with. */
  readonly kubeconfigs: { watcher: string; worker: string };

  private constructor(
    identity: Identity,
    namespace: string,
    target: Target,
    redis: RedisServer,
    kubeconfigs: { watcher: string; worker: string },
  ) {
    this.identity = identity;
    this.namespace = namespace;
    this.#target = target;
    this.#redis = redis;
    this.kubeconfigs = kubeconfigs;
    this.#settings = identity === 'deployed' ? deployedSettings() : {};
  }

  /** Sets up the identity in `namespace` (which exists) and starts the apps. */
  static async start(target: Target, identity: Identity, namespace: string): Promise<Operator> {
    const kubeconfigs =
      identity === 'developer'
        ? { watcher: target.kubeconfig, worker: target.kubeconfig }
        : await serviceAccountKubeconfigs(target, namespace);
    const redis = await startRedis();
    const op = new Operator(identity, namespace, target, redis, kubeconfigs);
    for (const i of [0, 1]) op.watchers.push(op.#startWatcher(`watcher-${i}`));
    for (const i of [0, 1]) op.workers.push(op.#startWorker(`worker-${i}`));
    return op;
  }

  get procs(): Proc[] {
    return [...this.watchers, ...this.workers];
  }

  #name(app: string): string {
    return `${this.identity}-${app}`;
  }

  #startWatcher(name: string): Proc {
    return new Proc(
      this.#name(name),
      [WATCHER_MAIN],
      {
        LOG_LEVEL: 'debug',
        ...this.#settings,
        KUBECONFIG: this.kubeconfigs.watcher,
        REDIS_URL: this.#redis.url,
        WATCH_NAMESPACES: this.namespace,
        LEASE_NAMESPACE: this.namespace,
        LEASE_NAME,
        LEASE_DURATION_SECONDS: String(LEASE_SECONDS),
        POD_NAME: this.#name(name),
        // A missed event must show: convergence comes from the watch alone.
        RESYNC_PERIOD_SECONDS: '0',
        HTTP_PORT: '0',
      },
      this.#target.logDir,
    );
  }

  #startWorker(name: string): Proc {
    return new Proc(
      this.#name(name),
      [WORKER_MAIN],
      {
        LOG_LEVEL: 'info',
        ...this.#settings,
        KUBECONFIG: this.kubeconfigs.worker,
        REDIS_URL: this.#redis.url,
        POD_NAME: this.#name(name),
        REQUEUE_PENDING_SECONDS: '1',
        SHUTDOWN_TIMEOUT_SECONDS: '5',
        HTTP_PORT: '0',
      },
      this.#target.logDir,
    );
  }

  /** The Lease's holder, as the cluster has it. */
  async leaseHolder(): Promise<string | undefined> {
    const r = await this.#target.kubectl(
      ['get', 'lease', LEASE_NAME, '-n', this.namespace, '--ignore-not-found', '-o', 'json'],
      { allowFail: true },
    );
    if (r.code !== 0 || r.stdout.trim() === '') return undefined;
    return (JSON.parse(r.stdout) as { spec?: { holderIdentity?: string } }).spec?.holderIdentity;
  }

  /** The watcher process holding the Lease, once one does. */
  async leader(): Promise<Proc> {
    return await waitFor(
      `a ${this.identity} watcher to hold the Lease`,
      async () => {
        const holder = await this.leaseHolder();
        return this.watchers.find((w) => w.name === holder && w.running);
      },
      { timeoutMs: 60_000, intervalMs: 250, describe: () => this.describe() },
    );
  }

  /** How many times this watcher's watches ended and were restarted, from its log file. */
  watchRestarts(watcher: Proc): number {
    if (watcher.logFile === undefined) return 0;
    return readFileSync(watcher.logFile, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"msg":"watch ended; restarting"')).length;
  }

  async kill(proc: Proc): Promise<void> {
    this.killed.push(proc);
    await proc.kill();
  }

  /** Throws with every app's state if one has exited that was not killed on purpose. */
  assertRunning(): void {
    const dead = this.procs.filter((p) => !p.running && !this.killed.includes(p));
    if (dead.length > 0)
      throw new Error(`expected to be running:\n${dead.map((p) => p.describe()).join('\n')}`);
  }

  describe(): string {
    return `${this.identity} operator:\n${this.procs.map((p) => p.describe()).join('\n')}`;
  }

  async stop(): Promise<void> {
    await Promise.all(this.procs.map((p) => p.stop(10_000)));
    await this.#redis.close();
  }
}

/**
 * Applies the namespaced RBAC and writes a kubeconfig per app: the admin's cluster entry (server, CA)
 * with the app's ServiceAccount token in place of the admin's credentials.
 */
async function serviceAccountKubeconfigs(
  target: Target,
  namespace: string,
): Promise<{ watcher: string; worker: string }> {
  await target.kubectl([
    'apply',
    '-f',
    target.writeManifest(`rbac-${namespace}.yaml`, namespacedRbac(namespace)),
  ]);
  const admin = JSON.parse(
    (await target.kubectl(['config', 'view', '--raw', '--minify', '--flatten', '-o', 'json'])).stdout,
  ) as { clusters: { name: string; cluster: Record<string, unknown> }[] };
  const cluster = admin.clusters[0];
  if (cluster === undefined) throw new Error(`the kubeconfig ${target.kubeconfig} names no cluster`);
  const out = { watcher: '', worker: '' };
  for (const app of ['watcher', 'worker'] as const) {
    const sa = `podset-${app}`;
    const token = (await target.kubectl(['create', 'token', sa, '-n', namespace])).stdout.trim();
    const file = path.join(target.dir, `${namespace}-${sa}.kubeconfig`);
    const config = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [cluster],
      users: [{ name: sa, user: { token } }],
      contexts: [{ name: sa, context: { cluster: cluster.name, user: sa, namespace } }],
      'current-context': sa,
    };
    writeFileSync(file, JSON.stringify(config, null, 2), { mode: 0o600 });
    out[app] = file;
  }
  return out;
}
