// The cluster the suite runs against: the one a kubeconfig names (PODSET_TEST_CLUSTER_KUBECONFIG, set by
// `npm run test:cluster`), or a kube-sim of its own started from its CLI as a user starts it. Nothing here
// reads KUBECONFIG or ~/.kube: `npm test` must never reach a developer's cluster by accident.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kubectl, removeWhenParentDies, waitFor, type KubectlResult } from '@podset/testkit';
import { Proc, REPO } from '../../e2e/support/harness.ts';

/** The variable `npm run test:cluster` passes the chosen kubeconfig in (see test/cluster/run.ts). */
export const KUBECONFIG_VAR = 'PODSET_TEST_CLUSTER_KUBECONFIG';
export const CRD_NAME = 'podsets.podset.io';
/** Every namespace the suite creates carries this label, so leftovers of a killed run can be found. */
export const SUITE_LABEL = 'podset.io/e2e-suite';
/**
 * The run's id (`npm run test:cluster` passes one in PODSET_TEST_CLUSTER_RUN), on its namespaces and on the CRD
 * if it installed it, so the runner can remove what an interrupted run left.
 */
export const RUN_VAR = 'PODSET_TEST_CLUSTER_RUN';
export const RUN_LABEL = 'podset.io/e2e-run';

/** The labels of what this run creates. */
function runLabels(): Record<string, string> {
  const run = process.env[RUN_VAR];
  return { [SUITE_LABEL]: 'cluster', ...(run ? { [RUN_LABEL]: run } : {}) };
}

type DirGuard = ReturnType<typeof removeWhenParentDies>;

export class Target {
  /** The admin kubeconfig: what the suite's kubectl and the developer identity use. */
  readonly kubeconfig: string;
  /** Temp dir: logs, kubectl caches, kubeconfigs written for ServiceAccounts. */
  readonly dir: string;
  readonly logDir: string;
  /** The kube-sim this suite started, if it started one. */
  readonly kubeSim: Proc | undefined;
  /** The target serves kube-sim's control API (fault injection), whoever started it. */
  isKubeSim = false;
  #crdInstalled = false;
  readonly #dirGuard: DirGuard;

  constructor(kubeconfig: string, dir: string, dirGuard: DirGuard, kubeSim?: Proc) {
    this.kubeconfig = kubeconfig;
    this.dir = dir;
    this.logDir = path.join(dir, 'logs');
    this.kubeSim = kubeSim;
    this.#dirGuard = dirGuard;
  }

  /** The real kubectl as the admin; `kubeconfig` to act as someone else. Rejects on failure unless allowFail. */
  async kubectl(
    args: string[],
    opts: { allowFail?: boolean; timeoutMs?: number; input?: string; kubeconfig?: string } = {},
  ): Promise<KubectlResult> {
    const { kubeconfig = this.kubeconfig, ...rest } = opts;
    return await kubectl(args, { kubeconfig, cacheDir: path.join(this.dir, 'kube-cache'), ...rest });
  }

  /** `kubectl get … -o json`, parsed. */
  async getJson<T>(args: string[]): Promise<T> {
    return JSON.parse((await this.kubectl(['get', ...args, '-o', 'json'])).stdout) as T;
  }

  /** Writes objects as a multi-document YAML file (JSON documents) in the temp dir; returns its path. */
  writeManifest(file: string, objects: readonly unknown[]): string {
    const p = path.join(this.dir, file);
    writeFileSync(p, objects.map((o) => `---\n${JSON.stringify(o, null, 2)}\n`).join(''));
    return p;
  }

  /**
   * Installs the PodSet CRD unless the cluster has one, and waits for it to be served. One that was there
   * before is left as it is (and left in place at the end).
   */
  async ensureCrd(): Promise<void> {
    const found = await this.kubectl(['get', 'crd', CRD_NAME, '--ignore-not-found', '-o', 'name']);
    if (found.stdout.trim() === '') {
      await this.kubectl(['create', '-f', path.join(REPO, 'crds/podset.yaml')]);
      this.#crdInstalled = true;
      const labels = Object.entries(runLabels()).map(([k, v]) => `${k}=${v}`);
      await this.kubectl(['label', 'crd', CRD_NAME, ...labels]);
    }
    await this.kubectl(['wait', '--for=condition=Established', `crd/${CRD_NAME}`, '--timeout=60s']);
  }

  /** kube-sim answers its control API; a real API server has no /kube-sim/ path (404). */
  async detectKubeSim(): Promise<void> {
    const r = await this.kubectl(['get', '--raw', '/kube-sim/faults'], { allowFail: true });
    this.isKubeSim = r.code === 0;
  }

  /** A unique namespace name: the suite's prefix, the part given, and a random suffix. */
  static namespaceName(part: string): string {
    return `podset-e2e-${part}-${Math.random().toString(36).slice(2, 8)}`;
  }

  async createNamespace(name: string): Promise<void> {
    const ns = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: runLabels() },
    };
    await this.kubectl(['create', '-f', '-'], { input: JSON.stringify(ns) });
  }

  /**
   * Deletes a namespace the suite created and waits until it is gone. Its PodSets are deleted first, while
   * the operator (which holds a finalizer on each) still runs: `stopOperator` is called once they are gone
   * (or could not go), and any PodSet left then has its finalizers removed so the namespace can go.
   */
  async removeNamespace(
    name: string,
    stopOperator: () => Promise<void>,
    opts: { podSetsTimeoutMs?: number; namespaceTimeoutMs?: number } = {},
  ): Promise<void> {
    const exists = await this.kubectl(['get', 'namespace', name, '--ignore-not-found', '-o', 'name']);
    if (exists.stdout.trim() === '') {
      await stopOperator();
      return;
    }
    await this.kubectl(['delete', 'podsets', '--all', '-n', name, '--wait=false'], { allowFail: true });
    const podSetsLeft = async () =>
      (await this.kubectl(['get', 'podsets', '-n', name, '-o', 'name'], { allowFail: true })).stdout.trim();
    await waitFor(`the PodSets of ${name} to be deleted`, async () => (await podSetsLeft()) === '', {
      timeoutMs: opts.podSetsTimeoutMs ?? 30_000,
      intervalMs: 500,
    }).catch(() => undefined);
    await stopOperator();
    for (const ps of (await podSetsLeft()).split('\n').filter((l) => l !== '')) {
      await this.kubectl(
        ['patch', ps, '-n', name, '--type=merge', '-p', '{"metadata":{"finalizers":null}}'],
        { allowFail: true },
      );
    }
    await this.kubectl(['delete', 'namespace', name, '--wait=false'], { allowFail: true });
    await waitFor(
      `namespace ${name} to be gone (it stays Terminating while an object in it keeps a finalizer, or without kube-controller-manager's namespace controller)`,
      async () =>
        (await this.kubectl(['get', 'namespace', name, '--ignore-not-found', '-o', 'name'])).stdout.trim() ===
        '',
      { timeoutMs: opts.namespaceTimeoutMs ?? 120_000, intervalMs: 500 },
    );
  }

  /** Removes the CRD if this suite installed it, then stops its kube-sim and removes the temp dir. */
  async close(): Promise<void> {
    try {
      if (this.#crdInstalled) {
        await this.kubectl(['delete', 'crd', CRD_NAME, '--ignore-not-found', '--timeout=60s']);
      }
    } finally {
      await this.kubeSim?.stop(5_000);
      const keep = process.env.E2E_KEEP_LOGS !== undefined;
      this.#dirGuard.release({ keep });
      if (keep) console.log(`cluster suite: logs kept in ${this.logDir}`);
      else rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

/**
 * kube-sim's CLI options for the suite: the fast lifecycle (the suite needs speed, not a kubelet's pace), pods
 * start in visible steps, the admission plugin OpenShift enables.
 */
const KUBE_SIM_ARGS = [
  '--lifecycle',
  'fast',
  '--startup-delay-ms',
  '150',
  '--startup-jitter-ms',
  '150',
  '--container-exit-ms',
  '50',
  '--enable-admission-plugins',
  'OwnerReferencesPermissionEnforcement',
];

/** The kubeconfig the suite was pointed at, if any: only ever PODSET_TEST_CLUSTER_KUBECONFIG, never KUBECONFIG. */
export function givenKubeconfig(env: NodeJS.ProcessEnv): string | undefined {
  const given = env[KUBECONFIG_VAR];
  return given === undefined || given === '' ? undefined : path.resolve(given);
}

/**
 * The target of this run: `given` (by default the kubeconfig in PODSET_TEST_CLUSTER_KUBECONFIG), else a kube-sim started here
 * (`node tools/kube-sim/src/cmd/main.ts --kubeconfig …`, as `npm run kube-sim` runs it).
 */
export async function openTarget(given = givenKubeconfig(process.env)): Promise<Target> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-cluster-suite-'));
  // A test process killed mid-run leaves no temp dir behind.
  const dirGuard = removeWhenParentDies(dir);
  mkdirSync(path.join(dir, 'logs'));
  let target: Target;
  if (given !== undefined) {
    target = new Target(given, dir, dirGuard);
  } else {
    const kubeconfig = path.join(dir, 'kube-sim.kubeconfig');
    const sim = new Proc(
      'kube-sim',
      [
        path.join(REPO, 'tools/kube-sim/src/cmd/main.ts'),
        '--port',
        '0',
        '--kubeconfig',
        kubeconfig,
        ...KUBE_SIM_ARGS,
      ],
      {},
      path.join(dir, 'logs'),
    );
    try {
      await sim.waitForLine(/kube-sim listening on (\S+)/, 60_000);
    } catch (err) {
      await sim.stop(2_000);
      dirGuard.release();
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    target = new Target(kubeconfig, dir, dirGuard, sim);
  }
  await target.detectKubeSim();
  return target;
}

/**
 * Removes what the run `runId` left in the cluster its kubeconfig names (an interrupted run: Ctrl-C, a
 * killed test process): its namespaces (PodSet finalizers removed, the operator being gone) and the CRD if
 * that run installed it. Returns what it removed.
 */
export async function removeRunLeftovers(kubeconfig: string, runId: string): Promise<string[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-cluster-cleanup-'));
  const target = new Target(kubeconfig, dir, removeWhenParentDies(dir));
  const removed: string[] = [];
  try {
    const selector = `${RUN_LABEL}=${runId}`;
    const list = async (kind: string) =>
      (await target.kubectl(['get', kind, '-l', selector, '-o', 'name'])).stdout
        .split('\n')
        .filter((l) => l !== '');
    for (const ns of await list('namespaces')) {
      const name = ns.replace(/^namespace\//, '');
      await target.removeNamespace(name, () => Promise.resolve(), { podSetsTimeoutMs: 0 });
      removed.push(ns);
    }
    for (const crd of await list('crd')) {
      await target.kubectl(['delete', crd, '--ignore-not-found', '--timeout=60s']);
      removed.push(crd);
    }
  } finally {
    await target.close();
  }
  return removed;
}
