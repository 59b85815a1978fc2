// Helpers for the watcher's integration tests (kube-sim and Redis come from useSimCluster): make changes
// and wait for what the watcher did with them.
import net from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeSim } from '@podset/kube-sim';
import type { ReconcileRequester } from '../src/enqueue.ts';

/** A request to kube-sim as admin over plain HTTP. */
export async function call(
  sim: KubeSim,
  method: string,
  p: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(sim.url + p, {
    method,
    headers: { authorization: `Bearer ${sim.tokens.admin}`, 'content-type': contentType },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

export async function createPodSet(sim: KubeSim, name: string, namespace = 'default', replicas = 1) {
  const res = await call(sim, 'POST', `/apis/podset.io/v1/namespaces/${namespace}/podsets`, {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name, namespace },
    spec: { replicas },
  });
  if (res.status !== 201) throw new Error(`create podset ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { metadata: { uid: string; resourceVersion: string } };
}

/** Creates a PodSet in kube-sim's store directly (works while its HTTP server is paused). */
export function createPodSetInStore(sim: KubeSim, name: string, namespace = 'default') {
  return sim.cluster.create('podsets.podset.io', {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name, namespace },
    spec: { replicas: 1 },
  });
}

export async function scalePodSet(sim: KubeSim, name: string, replicas: number, namespace = 'default') {
  const res = await call(
    sim,
    'PATCH',
    `/apis/podset.io/v1/namespaces/${namespace}/podsets/${name}`,
    { spec: { replicas } },
    'application/merge-patch+json',
  );
  if (res.status !== 200) throw new Error(`patch podset ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { metadata: { resourceVersion: string } };
}

export async function createPod(
  sim: KubeSim,
  name: string,
  owner: { name: string; uid: string } | undefined,
  namespace = 'default',
) {
  const res = await call(sim, 'POST', `/api/v1/namespaces/${namespace}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels: { 'podset.io/name': owner?.name ?? 'none' },
      ...(owner === undefined
        ? {}
        : {
            ownerReferences: [
              {
                apiVersion: 'podset.io/v1',
                kind: 'PodSet',
                name: owner.name,
                uid: owner.uid,
                controller: true,
              },
            ],
          }),
    },
    spec: { containers: [{ name: 'app', image: 'busybox' }] },
  });
  if (res.status !== 201) throw new Error(`create pod ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Wraps a queue, recording every request (and passing it on when `inner` is given). */
export class RecordingQueue implements ReconcileRequester {
  readonly requests: { key: string; source: 'live' | 'bulk'; rv?: string }[] = [];
  readonly #inner: ReconcileRequester | undefined;
  constructor(inner?: ReconcileRequester) {
    this.#inner = inner;
  }
  async request(key: string, opts: { source: 'live' | 'bulk'; delayMs?: number; rv?: string }) {
    this.requests.push({ key, source: opts.source, ...(opts.rv === undefined ? {} : { rv: opts.rv }) });
    return await this.#inner?.request(key, opts);
  }
  has(key: string, source?: 'live' | 'bulk'): boolean {
    return this.requests.some((r) => r.key === key && (source === undefined || r.source === source));
  }
}

/** A kubeconfig (as a KubeConfig) for `identity`, optionally pointed at another port (a proxy). */
export function kubeConfigFor(sim: KubeSim, identity: string, port?: number): KubeConfig {
  const kc = new KubeConfig();
  let yaml = sim.kubeconfigYaml(identity);
  if (port !== undefined) yaml = yaml.replaceAll(`127.0.0.1:${sim.port}`, `127.0.0.1:${port}`);
  kc.loadFromString(yaml);
  return kc;
}

/**
 * A TCP proxy in front of kube-sim that can freeze its open connections: they stay open but carry
 * nothing more, the silent stall a dead NAT or load balancer causes. New connections work normally.
 */
export class StallProxy {
  readonly #server: net.Server;
  readonly #pairs = new Set<{ client: net.Socket; upstream: net.Socket; frozen: boolean }>();
  port = 0;

  constructor(upstreamPort: number) {
    this.#server = net.createServer((client) => {
      const upstream = net.connect(upstreamPort, '127.0.0.1');
      const pair = { client, upstream, frozen: false };
      this.#pairs.add(pair);
      upstream.on('data', (chunk) => {
        if (!pair.frozen) client.write(chunk);
      });
      client.on('data', (chunk) => {
        if (!pair.frozen) upstream.write(chunk);
      });
      const end = () => {
        this.#pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      upstream.on('close', end);
      client.on('close', end);
      upstream.on('error', end);
      client.on('error', end);
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Every connection open now goes silent (both ways), without closing. */
  freeze(): number {
    for (const p of this.#pairs) p.frozen = true;
    return this.#pairs.size;
  }

  async close(): Promise<void> {
    for (const p of this.#pairs) {
      p.client.destroy();
      p.upstream.destroy();
    }
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
