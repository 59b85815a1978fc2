// Helpers for the watcher's integration tests (kube-sim and Redis come from useSimCluster): the watcher
// started as the process starts it (startWatcher), changes to make, and waits for what it did with them.
import net from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeSim } from '@podset/kube-sim';
import { waitFor } from '@podset/testkit';
import type { SimClusterFixture } from '@podset/testkit/sim-cluster';
import { silentLogger, type Logger } from '@podset/log';
import type { ReconcileRequester, WatcherRequest } from '../src/request.ts';
import type { WatchTerm } from '../src/term.ts';
import type { Tracer } from '@opentelemetry/api';
import { startWatcher, type RunningWatcher, type WatcherSettings } from '../src/watcher.ts';
import { redisKeys } from '../src/config.ts';

/** What the watcher's tests run against: the file's useSimCluster fixture (kube-sim with PodSets, Redis). */
export type Env = Pick<SimClusterFixture, 'sim' | 'redis'>;

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
  readonly requests: { key: string; source: 'live' | 'bulk'; rv?: string; delayMs?: number }[] = [];
  /** Requests made and not answered yet. */
  inFlight = 0;
  readonly #inner: ReconcileRequester | undefined;
  constructor(inner?: ReconcileRequester) {
    this.#inner = inner;
  }
  /** Recorded once they went through (with the projection: the events are recorded as requested by then). */
  async requestAll(items: readonly WatcherRequest[]) {
    this.inFlight++;
    try {
      const out =
        (await this.#inner?.requestAll(items)) ?? items.map(() => ({ outcome: 'created' as const }));
      for (const { key, opts } of items)
        this.requests.push({
          key,
          source: opts.source,
          ...(opts.delayMs === undefined ? {} : { delayMs: opts.delayMs }),
        });
      return out;
    } finally {
      this.inFlight--;
    }
  }
  has(key: string, source?: 'live' | 'bulk'): boolean {
    return this.requests.some((r) => r.key === key && (source === undefined || r.source === source));
  }
}

export interface TestWatcher {
  running: RunningWatcher;
  /** Its leadership term (it leads at once: a Lease of its own). */
  watcher: WatchTerm;
  /** Every request it made, passed on to the real queue. */
  recording: RecordingQueue;
  stop(): Promise<void>;
}

let leases = 0;

/**
 * startWatcher with the default state source and short test intervals, on a Lease of its own (so it leads
 * at once), every request recorded; resolves once its first term has begun. Jobs pile up in the queue
 * (no worker takes them), so an event whose key's job is waiting still requests (liveCover off): the tests
 * count requests.
 */
export async function startTestWatcher(
  env: Env,
  opts: {
    queuePrefix: string;
    queueName: string;
    /** Default: the keys a watcher of this queue and Lease derives by default (config.ts redisKeys). */
    keys?: WatcherSettings['keys'];
    kubeConfig?: KubeConfig;
    namespaces?: string[];
    watchTimeoutSeconds?: number;
    stallGraceMs?: number;
    logger?: Logger;
    stateSource?: WatcherSettings['stateSource'];
    statusCollapseMs?: number;
    statusCollapsePartialMs?: number;
    /** The queue's cover rule (and merge) in the fold, as a watcher runs by default (off here: see above). */
    liveCover?: boolean;
    /** Tracing on, with this tracer. */
    tracer?: Tracer;
  },
): Promise<TestWatcher> {
  const n = ++leases;
  let recording: RecordingQueue | undefined;
  const running = await startWatcher(
    {
      kubeConfig: opts.kubeConfig ?? kubeConfigFor(env.sim, 'watcher'),
      redisUrl: env.redis.url,
      queuePrefix: opts.queuePrefix,
      queueName: opts.queueName,
      maxAttempts: 8,
      stateSource: opts.stateSource ?? 'projection',
      ...(opts.statusCollapseMs !== undefined ? { statusCollapseMs: opts.statusCollapseMs } : {}),
      ...(opts.statusCollapsePartialMs !== undefined
        ? { statusCollapsePartialMs: opts.statusCollapsePartialMs }
        : {}),
      liveCover: opts.liveCover ?? false,
      namespaces: opts.namespaces ?? [],
      resyncPeriodMs: 0,
      watchTimeoutSeconds: opts.watchTimeoutSeconds ?? 60,
      stallGraceMs: opts.stallGraceMs ?? 30_000,
      // Long: a renewal held up by a test's fault (a frozen proxy) must not end the term mid-test.
      lease: { namespace: 'default', name: `test-watcher-${n}`, durationMs: 60_000 },
      identity: `test-watcher-${n}`,
      keys:
        opts.keys ??
        redisKeys({
          QUEUE_PREFIX: opts.queuePrefix,
          QUEUE_NAME: opts.queueName,
          EVENT_LOG_KEY: undefined,
          LEASE_NAME: `test-watcher-${n}`,
        }),
      eventLogMaxLen: 1000,
      checkpointEveryEvents: 100,
      checkpointEveryMs: 100,
      kubeQps: 1000,
      kubeBurst: 1000,
      httpPort: 0,
      backoff: { baseMs: 50, maxMs: 500 },
      dataLossCheckMs: 200,
    },
    {
      log: opts.logger ?? silentLogger,
      requester: (queue) => (recording = new RecordingQueue(queue)),
      ...(opts.tracer !== undefined ? { tracer: opts.tracer } : {}),
    },
  );
  try {
    const watcher = await waitFor('the watcher to lead', () => running.term());
    return { running, watcher, recording: recording!, stop: () => running.close() };
  } catch (err) {
    await running.close();
    throw err;
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
