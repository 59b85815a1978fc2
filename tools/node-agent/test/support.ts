// What the node agent's tests share: kube-sim's CLI as a bare control plane (its own pod lifecycle and nodes
// off, so nothing but the agent binds or runs a pod), the agent's CLI as a child process, and the pod shapes
// they read.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { kubectl, Proc, waitFor, type KubectlResult } from '@podset/testkit';

export const REPO = path.resolve(import.meta.dirname, '../../..');
export const NODE = path.join(REPO, 'node_modules/.bin/node');
/** Children exit when the test process dies without stopping them. */
export const PRELOAD = pathToFileURL(path.join(REPO, 'test/e2e/support/die-with-parent.ts')).href;

export interface Condition {
  type: string;
  status: string;
}
export interface ContainerStatus {
  name: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  state: {
    running?: { startedAt: string };
    terminated?: { exitCode: number; reason: string };
    waiting?: { reason: string };
  };
  lastState?: { terminated?: { exitCode: number; reason: string } };
}
export interface PodJson {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status?: {
    phase?: string;
    podIP?: string;
    hostIP?: string;
    startTime?: string;
    conditions?: Condition[];
    containerStatuses?: ContainerStatus[];
  };
}

export const condition = (pod: PodJson, type: string): string | undefined =>
  pod.status?.conditions?.find((c) => c.type === type)?.status;

export interface PodOptions {
  namespace?: string;
  annotations?: Record<string, string>;
  restartPolicy?: string;
}

/** kube-sim's CLI started with `--no-lifecycle --nodes 0`, and calls to it as admin. */
export class BareControlPlane {
  readonly sim: Proc;
  readonly kubeconfig: string;
  readonly env: Record<string, string | undefined>;
  readonly #dir: string;
  readonly #url: string;
  readonly #token: string;

  private constructor(sim: Proc, dir: string, url: string) {
    this.sim = sim;
    this.#dir = dir;
    this.kubeconfig = path.join(dir, 'kubeconfig');
    this.env = { PATH: process.env.PATH, HOME: dir };
    this.#url = url;
    this.#token = /token: (\S+)/.exec(readFileSync(this.kubeconfig, 'utf8'))![1]!;
  }

  static async start(dir: string): Promise<BareControlPlane> {
    const sim = new Proc({
      name: 'kube-sim',
      command: NODE,
      args: [
        '--import',
        PRELOAD,
        path.join(REPO, 'tools/kube-sim/src/cmd/main.ts'),
        '--port',
        '0',
        '--kubeconfig',
        path.join(dir, 'kubeconfig'),
        '--no-lifecycle',
        '--nodes',
        '0',
      ],
      env: { PATH: process.env.PATH, HOME: dir },
    });
    const url = (await sim.waitForLine(/listening on (http:\/\/\S+)/))[1]!;
    return new BareControlPlane(sim, dir, url);
  }

  async api<T>(method: string, p: string, body?: unknown): Promise<{ status: number; json: T }> {
    const res = await fetch(this.#url + p, {
      method,
      headers: {
        authorization: `Bearer ${this.#token}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as T };
  }

  kubectl(args: string[]): Promise<KubectlResult> {
    return kubectl(args, { kubeconfig: this.kubeconfig, cacheDir: path.join(this.#dir, 'kubectl-cache') });
  }

  async pod(name: string, namespace = 'default'): Promise<PodJson> {
    return (await this.api<PodJson>('GET', `/api/v1/namespaces/${namespace}/pods/${name}`)).json;
  }

  createPod(name: string, o: PodOptions = {}): Promise<{ status: number }> {
    return this.api('POST', `/api/v1/namespaces/${o.namespace ?? 'default'}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, ...(o.annotations ? { annotations: o.annotations } : {}) },
      spec: {
        containers: [{ name: 'app', image: 'nginx:1.27' }],
        ...(o.restartPolicy ? { restartPolicy: o.restartPolicy } : {}),
      },
    });
  }

  /** Waits until the pod passes `check`; returns it. */
  waitPod(
    name: string,
    what: string,
    check: (p: PodJson) => boolean,
    o: { namespace?: string; describe?: () => string } = {},
  ): Promise<PodJson> {
    return waitFor(
      `${name}: ${what}`,
      async () => ((p) => (check(p) ? p : undefined))(await this.pod(name, o.namespace)),
      { timeoutMs: 30_000, ...(o.describe ? { describe: o.describe } : {}) },
    );
  }
}

/** `node tools/node-agent/src/main.ts --kubeconfig … args`, as a child process. */
export function startAgent(cluster: BareControlPlane, args: string[]): Proc {
  return new Proc({
    name: 'node-agent',
    command: NODE,
    args: [
      '--import',
      PRELOAD,
      path.join(REPO, 'tools/node-agent/src/main.ts'),
      '--kubeconfig',
      cluster.kubeconfig,
      ...args,
    ],
    env: cluster.env,
  });
}

/** Whether the agent logged `msg` (for `pod`, namespace/name, when given). */
export function logged(agent: Proc, msg: string, pod?: string): boolean {
  return agent
    .lines()
    .some((l) => l.includes(`"msg":"${msg}"`) && (pod === undefined || l.includes(`"pod":"${pod}"`)));
}

/** A line is logged after the write it reports: the API may show the write before the line arrives. */
export function waitLog(agent: Proc, msg: string, pod?: string): Promise<boolean> {
  return waitFor(
    `the agent logs "${msg}"${pod !== undefined ? ` for ${pod}` : ''}`,
    () => logged(agent, msg, pod),
    { describe: () => agent.tail(30) },
  );
}
