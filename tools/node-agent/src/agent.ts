// The node agent: registers Nodes and keeps their Leases renewed, binds pending pods to them (as the
// scheduler does, through pods/binding) and plays their kubelet: Pending → Running (Ready or not) or Failed
// or Succeeded, as the pod's fate says (the rules kube-sim's simulated kubelet follows, imported from it),
// and a deleted pod removed with gracePeriodSeconds=0 and a UID precondition once its containers stopped.
import type { KubeConfig } from '@kubernetes/client-node';
import {
  createKube,
  isKubeApiError,
  PODS,
  resourcePath,
  ResourceClient,
  type Kube,
  type Pod,
} from '@podset/kube';
import { chooseFate, readinessDelayOf, removalDelayOf, startupDelayOf } from '@podset/kube-sim/pod-fate';
import {
  crashLoopBackoffMs,
  crashLoopStatus,
  pendingStatus,
  readyStatus,
  restartsOnFailure,
  startedStatus,
  succeededStatus,
  type PodFate,
} from '@podset/kube-sim/pod-status';
import type { Logger } from '@podset/log';
import { errorText, inform } from './informer.ts';
import { Lanes } from './lanes.ts';
import {
  heartbeatPatch,
  hostIPOf,
  leaseObject,
  microTime,
  NODE_LEASE_NAMESPACE,
  nodeObject,
  nodeStatus,
  podIPOf,
  secondTime,
  type NodeObject,
  type NodeShape,
} from './nodes.ts';
import type { AgentOptions } from './options.ts';
import { isTerminal, pickNode, podAction } from './plan.ts';

/** The pod documents kube-sim's status rules read and write (its own object type). */
type SimPod = Parameters<typeof pendingStatus>[0];

const NODES = { group: '', version: 'v1', plural: 'nodes' };
const NAMESPACES = { group: '', version: 'v1', plural: 'namespaces' };
const LEASES = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' };
/** A failed step is tried again after 1, 2, 4, 8, 16 s, then given up (the next event of the pod retries). */
const STEP_RETRIES = 5;
const STEP_RETRY_MS = 1000;
/** Bindings in flight at once: the scheduler binds asynchronously, but not every pending pod at once. */
const SCHEDULER_LANES = 16;
/** The node status (lastHeartbeatTime) is reported every this many lease renewals. */
const STATUS_EVERY_RENEWALS = 6;

interface PodState {
  uid: string;
  namespace: string;
  name: string;
  stage: 'binding' | 'waiting' | 'starting' | 'running' | 'terminating' | 'removing' | 'done';
  node?: string;
  fate?: PodFate;
  timer?: NodeJS.Timeout;
  removeAt?: number;
  /** Steps of one pod run one after another. */
  chain: Promise<void>;
}

interface NodeEntry {
  shape: NodeShape;
  uid?: string;
  pods: number;
  /** Pods started on this node so far (their IPs). */
  started: number;
}

export interface Agent {
  readonly nodes: string[];
  /** Stops watching, timers and heartbeats; leaves the nodes and pods as they are. */
  stop(): Promise<void>;
}

/** The rate limit of the agent's client: --qps, bursts of twice that (qps 0: none). */
export function clientRate(options: Pick<AgentOptions, 'qps'>): { qps: number; burst: number } {
  return { qps: options.qps, burst: Math.max(1, options.qps * 2) };
}

/** Registers the nodes, lists the pods and starts watching; resolves once all of that is done. */
export async function startAgent(kubeConfig: KubeConfig, options: AgentOptions, log: Logger): Promise<Agent> {
  const kube = createKube(kubeConfig, { ...clientRate(options), userAgent: 'podset-node-agent' });
  const agent = new NodeAgent(kube, options, log);
  try {
    await agent.start();
  } catch (err) {
    await agent.stop();
    throw err;
  }
  return agent;
}

class NodeAgent implements Agent {
  readonly #kube: Kube;
  readonly #options: AgentOptions;
  readonly #log: Logger;
  readonly #pods: ResourceClient<Pod>;
  readonly #nodeClient: ResourceClient<NodeObject>;
  readonly #leases: ResourceClient<Record<string, unknown> & { metadata: { name: string } }>;
  readonly #nodes = new Map<string, NodeEntry>();
  readonly #states = new Map<string, PodState>();
  readonly #abort = new AbortController();
  /** A node's kubelet steps run one at a time (a kubelet's status manager is one loop); binds in a few lanes. */
  readonly #lanes = new Lanes();
  #binds = 0;
  #informers: Promise<void>[] = [];
  #heartbeat: NodeJS.Timeout | undefined;
  #renewals = 0;
  #stopped = false;

  constructor(kube: Kube, options: AgentOptions, log: Logger) {
    this.#kube = kube;
    this.#options = options;
    this.#log = log;
    this.#pods = kube.pods;
    this.#nodeClient = new ResourceClient(kube.client, NODES);
    this.#leases = new ResourceClient(kube.client, LEASES);
    for (let i = 1; i <= options.nodes; i++) {
      const name = `${options.nodePrefix}${i}`;
      this.#nodes.set(name, {
        shape: { name, index: i, maxPods: options.maxPods, prefix: options.nodePrefix },
        pods: 0,
        started: 0,
      });
    }
  }

  get nodes(): string[] {
    return [...this.#nodes.keys()];
  }

  async start(): Promise<void> {
    for (const node of this.#nodes.values()) await this.#register(node);
    await this.#ensureLeaseNamespace();
    await Promise.all([...this.#nodes.values()].map((n) => this.#renew(n)));
    const renewMs = (this.#options.leaseSeconds * 1000) / 4;
    this.#heartbeat = setInterval(() => void this.#beat(), renewMs);
    const namespaces = this.#options.namespaces.length > 0 ? this.#options.namespaces : [undefined];
    const listed = namespaces.map((namespace) => {
      let first: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (first = resolve));
      this.#informers.push(
        inform(
          this.#pods,
          namespace,
          {
            onList: (items) => {
              this.#onList(namespace, items);
              first();
            },
            onEvent: (type, pod) => this.#onPod(type, pod),
          },
          this.#log,
          this.#abort.signal,
        ),
      );
      return done;
    });
    await Promise.all(listed);
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#abort.abort();
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    for (const st of this.#states.values()) if (st.timer) clearTimeout(st.timer);
    await Promise.allSettled(this.#informers);
    await Promise.allSettled([...this.#states.values()].map((s) => s.chain));
    this.#states.clear();
    await this.#kube.client.close();
  }

  // --- nodes -----------------------------------------------------------------------------------------------

  async #register(node: NodeEntry): Promise<void> {
    const { name } = node.shape;
    let object: NodeObject;
    try {
      object = await this.#nodeClient.create(undefined, nodeObject(node.shape));
      this.#log.info({ node: name }, 'node registered');
    } catch (err) {
      if (!(isKubeApiError(err) && err.code === 409)) throw err;
      object = await this.#nodeClient.get(undefined, name);
      this.#log.info({ node: name }, 'node exists: taking it over');
    }
    node.uid = object.metadata.uid;
    await this.#nodeClient.patch(
      undefined,
      name,
      { status: nodeStatus(node.shape, secondTime(Date.now())) },
      {
        subresource: 'status',
      },
    );
  }

  async #ensureLeaseNamespace(): Promise<void> {
    try {
      await this.#kube.client.request({
        verb: 'create',
        method: 'POST',
        path: resourcePath(NAMESPACES),
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NODE_LEASE_NAMESPACE } },
      });
    } catch (err) {
      if (!(isKubeApiError(err) && err.code === 409)) throw err;
    }
  }

  /** Renews the node's Lease (creating it if missing), as the kubelet's heartbeat does. */
  async #renew(node: NodeEntry): Promise<void> {
    const { name } = node.shape;
    const now = microTime(Date.now());
    try {
      await this.#leases.patch(NODE_LEASE_NAMESPACE, name, {
        spec: { holderIdentity: name, leaseDurationSeconds: this.#options.leaseSeconds, renewTime: now },
      });
    } catch (err) {
      if (!(isKubeApiError(err) && err.code === 404)) throw err;
      await this.#leases.create(
        NODE_LEASE_NAMESPACE,
        leaseObject({ name, uid: node.uid }, this.#options.leaseSeconds, now) as never,
      );
    }
  }

  async #beat(): Promise<void> {
    const report = ++this.#renewals % STATUS_EVERY_RENEWALS === 0;
    await Promise.all(
      [...this.#nodes.values()].map(async (node) => {
        try {
          await this.#renew(node);
          if (report) {
            const current = await this.#nodeClient.get(undefined, node.shape.name);
            const conditions = (current.status as { conditions?: unknown } | undefined)?.conditions;
            await this.#nodeClient.patch(
              undefined,
              node.shape.name,
              heartbeatPatch(node.shape, conditions, secondTime(Date.now())),
              { subresource: 'status' },
            );
          }
        } catch (err) {
          // The next beat tries again: the interval is the backoff.
          if (!this.#stopped)
            this.#log.warn({ node: node.shape.name, err: errorText(err) }, 'heartbeat failed');
        }
      }),
    );
  }

  // --- pods: events ----------------------------------------------------------------------------------------

  /** A fresh list of `namespace` (undefined: all): pods tracked there but absent are gone. */
  #onList(namespace: string | undefined, items: Pod[]): void {
    const present = new Set(items.map((p) => p.metadata.uid));
    for (const st of [...this.#states.values()])
      if ((namespace === undefined || st.namespace === namespace) && !present.has(st.uid))
        this.#forget(st.uid);
    for (const pod of items) this.#onPod('ADDED', pod);
  }

  #onPod(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod): void {
    const uid = pod.metadata.uid;
    if (uid === undefined || this.#stopped) return;
    if (type === 'DELETED') return this.#forget(uid);
    const st = this.#states.get(uid);
    const nodeNames = new Set(this.#nodes.keys());
    switch (podAction(pod, nodeNames)) {
      case 'ignore':
        if (st !== undefined) this.#forget(uid);
        return;
      case 'bind':
        if (st === undefined) this.#bindLater(this.#track(pod, 'binding'));
        return;
      case 'terminate':
        return this.#terminating(pod, st ?? this.#track(pod, 'terminating'));
      case 'run':
        return this.#running(pod, st);
    }
  }

  #track(pod: Pod, stage: PodState['stage']): PodState {
    const st: PodState = {
      uid: pod.metadata.uid ?? '',
      namespace: pod.metadata.namespace ?? 'default',
      name: pod.metadata.name ?? '',
      stage,
      chain: Promise.resolve(),
    };
    this.#states.set(st.uid, st);
    return st;
  }

  #forget(uid: string): void {
    const st = this.#states.get(uid);
    if (st === undefined) return;
    if (st.timer) clearTimeout(st.timer);
    this.#states.delete(uid);
    this.#release(st);
  }

  /** The pod no longer counts on its node; a pod waiting for room may go now. */
  #release(st: PodState): void {
    if (st.node !== undefined) {
      const node = this.#nodes.get(st.node);
      if (node) node.pods--;
      st.node = undefined;
      const waiting = [...this.#states.values()].find((s) => s.stage === 'waiting');
      if (waiting) {
        waiting.stage = 'binding';
        this.#bindLater(waiting);
      }
    }
  }

  #assign(st: PodState, nodeName: string): void {
    if (st.node === nodeName) return;
    if (st.node !== undefined) this.#release(st);
    const node = this.#nodes.get(nodeName);
    if (node) node.pods++;
    st.node = nodeName;
  }

  // --- the scheduler ---------------------------------------------------------------------------------------

  #bindLater(st: PodState): void {
    const load = new Map([...this.#nodes].map(([name, n]) => [name, n.pods]));
    const nodeName = pickNode(load, this.#options.maxPods);
    if (nodeName === undefined) {
      st.stage = 'waiting';
      this.#log.warn({ pod: `${st.namespace}/${st.name}` }, 'every node is full: the pod waits');
      return;
    }
    this.#assign(st, nodeName);
    this.#step(st, 'bind', async () => {
      try {
        await this.#kube.client.request({
          verb: 'create',
          method: 'POST',
          path: resourcePath(PODS, st.namespace, st.name, 'binding'),
          body: {
            apiVersion: 'v1',
            kind: 'Binding',
            metadata: { name: st.name, namespace: st.namespace, uid: st.uid },
            target: { apiVersion: 'v1', kind: 'Node', name: nodeName },
          },
        });
        this.#log.info({ pod: `${st.namespace}/${st.name}`, node: nodeName }, 'pod bound');
      } catch (err) {
        // Bound meanwhile (409), gone (404) or its uid changed: the pod's next event says what it is now.
        if (isKubeApiError(err) && (err.code === 409 || err.code === 404)) return this.#forget(st.uid);
        throw err;
      }
    });
  }

  // --- the kubelet -----------------------------------------------------------------------------------------

  #running(pod: Pod, existing: PodState | undefined): void {
    const nodeName = pod.spec?.nodeName ?? '';
    const st = existing ?? this.#track(pod, 'starting');
    this.#assign(st, nodeName);
    if (isTerminal(pod)) {
      if (st.timer) clearTimeout(st.timer);
      st.timer = undefined;
      st.stage = 'done';
      this.#release(st);
      return;
    }
    if (existing !== undefined && existing.stage !== 'binding' && existing.stage !== 'waiting') return;
    if (pod.status?.phase === 'Running') {
      st.stage = 'running'; // already started (the agent restarted): nothing more to do
      return;
    }
    st.stage = 'starting';
    const accepted = pod.status?.startTime !== undefined;
    this.#step(st, 'accept', async () => {
      let fresh: Pod | undefined = pod;
      if (!accepted) {
        const now = secondTime(Date.now());
        const hostIP = hostIPOf(this.#nodes.get(nodeName)?.shape.index ?? 0);
        fresh = await this.#writeStatus(st, (p) => pendingStatus(p, hostIP, now));
        if (fresh === undefined) return;
      }
      st.fate = chooseFate(fresh as unknown as SimPod, this.#options, Math.random);
      const delay = startupDelayOf(fresh as unknown as SimPod, this.#options, Math.random);
      this.#later(st, delay, 'start', () => this.#start(st));
    });
  }

  async #start(st: PodState): Promise<void> {
    const fate = st.fate ?? 'ready';
    const node = st.node !== undefined ? this.#nodes.get(st.node) : undefined;
    const ip = podIPOf(node?.shape.index ?? 0, node ? node.started++ : 0);
    const now = secondTime(Date.now());
    // As kube-sim's kubelet lifecycle: a readinessProbe makes Running and Ready two writes.
    let readinessDelay: number | undefined;
    let crashLoop = false;
    const written = await this.#writeStatus(st, (p) => {
      crashLoop = fate === 'fail' && restartsOnFailure(p);
      if (crashLoop) return crashLoopStatus(p, { uid: st.uid, ip, now, restarts: 0, backoffMs: undefined });
      readinessDelay = fate !== 'fail' ? readinessDelayOf(p) : undefined;
      return startedStatus(p, { uid: st.uid, fate, ip, now, probing: readinessDelay !== undefined });
    });
    if (written === undefined) return;
    this.#log.info({ pod: `${st.namespace}/${st.name}`, node: st.node, fate }, 'pod started');
    if (crashLoop) {
      // As a kubelet: the first restart at once, then a back-off doubling per restart.
      st.stage = 'running';
      this.#later(st, 0, 'crash', () => this.#crashed(st, ip, 1));
      return;
    }
    if (fate === 'fail') {
      st.stage = 'done';
      this.#release(st);
      return;
    }
    st.stage = 'running';
    if (readinessDelay !== undefined && fate !== 'never-ready')
      this.#later(st, readinessDelay, 'ready', () => this.#ready(st, fate));
    else if (fate === 'succeed')
      this.#later(st, this.#options.succeedAfterMs, 'succeed', () => this.#succeed(st));
  }

  /** The restarted containers failed again: CrashLoopBackOff, the next restart after the back-off. */
  async #crashed(st: PodState, ip: string, restarts: number): Promise<void> {
    const backoffMs = crashLoopBackoffMs(this.#options.crashLoopBackoffMs, restarts);
    const now = secondTime(Date.now());
    const written = await this.#writeStatus(st, (p) =>
      crashLoopStatus(p, { uid: st.uid, ip, now, restarts, backoffMs }),
    );
    if (written === undefined) return;
    this.#later(st, backoffMs, 'crash', () => this.#crashed(st, ip, restarts + 1));
  }

  /** The readinessProbe passed: Ready. */
  async #ready(st: PodState, fate: PodFate): Promise<void> {
    const now = secondTime(Date.now());
    const written = await this.#writeStatus(st, (p) => readyStatus(p, now));
    if (written === undefined) return;
    if (fate === 'succeed') this.#later(st, this.#options.succeedAfterMs, 'succeed', () => this.#succeed(st));
  }

  async #succeed(st: PodState): Promise<void> {
    const now = secondTime(Date.now());
    const written = await this.#writeStatus(st, (p) => succeededStatus(p, now));
    if (written === undefined) return;
    this.#log.info({ pod: `${st.namespace}/${st.name}` }, 'pod succeeded');
    st.stage = 'done';
    this.#release(st);
  }

  /** Being deleted: removed once its containers have stopped, never later than its grace period. */
  #terminating(pod: Pod, st: PodState): void {
    if (pod.spec?.nodeName) this.#assign(st, pod.spec.nodeName);
    if (st.stage === 'removing') return; // removed; finalizers hold it
    const delay = removalDelayOf(pod as unknown as SimPod, this.#options.containerExitMs);
    const at = Date.now() + delay;
    if (st.stage === 'terminating' && st.removeAt !== undefined && st.removeAt <= at) return;
    st.stage = 'terminating';
    st.removeAt = at;
    this.#later(st, delay, 'remove', () => this.#remove(st));
  }

  async #remove(st: PodState): Promise<void> {
    try {
      await this.#pods.delete(st.namespace, st.name, {
        gracePeriodSeconds: 0,
        preconditions: { uid: st.uid },
      });
      st.stage = 'removing';
      this.#log.info({ pod: `${st.namespace}/${st.name}` }, 'pod removed');
    } catch (err) {
      // Gone already (404), or the name now belongs to another pod (409: the precondition failed).
      if (isKubeApiError(err) && (err.code === 404 || err.code === 409)) return this.#forget(st.uid);
      throw err;
    }
  }

  // --- plumbing --------------------------------------------------------------------------------------------

  /**
   * Reads the pod, computes its next status and writes it through pods/status with the resourceVersion read
   * (a conflict reads again). Undefined when the pod is gone, another pod by now, being deleted or finished.
   */
  async #writeStatus(st: PodState, next: (pod: SimPod) => Record<string, unknown>): Promise<Pod | undefined> {
    for (let attempt = 0; attempt < 5; attempt++) {
      let pod: Pod;
      try {
        pod = await this.#pods.get(st.namespace, st.name, { signal: this.#abort.signal });
      } catch (err) {
        if (isKubeApiError(err) && err.code === 404) return undefined;
        throw err;
      }
      if (pod.metadata.uid !== st.uid || pod.metadata.deletionTimestamp !== undefined || isTerminal(pod))
        return undefined;
      const status = next(pod as unknown as SimPod);
      try {
        return await this.#pods.replaceStatus(st.namespace, st.name, { ...pod, status } as Pod, {
          signal: this.#abort.signal,
        });
      } catch (err) {
        if (isKubeApiError(err) && err.code === 404) return undefined;
        if (isKubeApiError(err) && err.code === 409) continue;
        throw err;
      }
    }
    throw new Error(`the status of ${st.namespace}/${st.name} conflicted 5 times in a row`);
  }

  /** Runs `step` after `ms`, unless the pod was forgotten or another timer replaced this one. */
  #later(st: PodState, ms: number, what: string, step: () => Promise<void>): void {
    if (st.timer) clearTimeout(st.timer);
    st.timer = setTimeout(() => {
      st.timer = undefined;
      this.#step(st, what, step);
    }, ms);
  }

  /**
   * Runs `step` after the pod's previous one, in its lane (the scheduler's for a bind, else its node's
   * kubelet's); a failure is retried with a doubling backoff, then logged.
   */
  #step(st: PodState, what: string, step: () => Promise<void>, attempt = 0): void {
    const lane =
      what === 'bind'
        ? `scheduler-${this.#binds++ % SCHEDULER_LANES}`
        : st.node !== undefined
          ? `node-${st.node}`
          : `pod-${st.uid}`;
    st.chain = st.chain.then(async () => {
      if (this.#stopped || this.#states.get(st.uid) !== st) return;
      try {
        // Checked again when the lane gets to it: the pod may have gone while it waited.
        await this.#lanes.run(lane, async () => {
          if (!this.#stopped && this.#states.get(st.uid) === st) await step();
        });
      } catch (err) {
        if (this.#stopped) return;
        const pod = `${st.namespace}/${st.name}`;
        if (attempt >= STEP_RETRIES) {
          this.#log.error(
            { pod, step: what, err: errorText(err) },
            'step failed: giving up until the pod changes',
          );
          return this.#forget(st.uid);
        }
        const retryInMs = STEP_RETRY_MS * 2 ** attempt;
        this.#log.warn({ pod, step: what, err: errorText(err), retryInMs }, 'step failed');
        if (st.timer) clearTimeout(st.timer);
        st.timer = setTimeout(() => {
          st.timer = undefined;
          this.#step(st, what, step, attempt + 1);
        }, retryInMs);
      }
    });
  }
}
