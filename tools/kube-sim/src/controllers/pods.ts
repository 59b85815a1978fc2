// Pod lifecycle simulation: the scheduler (spread over Ready nodes) and a kubelet per node.
//
//   new pod (no spec.nodeName) → spec.nodeName set (update), status Pending: PodScheduled=True, containers
//   waiting ContainerCreating → after the startup delay: Running with podIP, containers running, Ready=True
//   (or: Failed, or Running with Ready=False forever, or Running then Succeeded).
//   deletionTimestamp set → the simulated containers exit after `containerExitMs` (never later than the
//   grace period) → forceRemove.
//
// Per-pod behaviour can be pinned with annotations (handy for deterministic tests):
//   kube-sim.podset.io/fate: ready | fail | never-ready | succeed
//   kube-sim.podset.io/startup-delay-ms: "<ms>"   (Pending → Running/Failed delay)
//   kube-sim.podset.io/exit-delay-ms: "<ms>"      (time the containers take to stop once deleted)
import { createHash } from 'node:crypto';
import type { ClusterAccess, Json, JsonObject, KubeObject, StoreEvent } from '../types.ts';
import {
  isApiError,
  mutate,
  nowIso,
  type ErrorReporter,
  WorkQueue,
  subscribeQueued,
  seededRandom,
} from './util.ts';

export const FATE_ANNOTATION = 'kube-sim.podset.io/fate';
export const STARTUP_DELAY_ANNOTATION = 'kube-sim.podset.io/startup-delay-ms';
export const EXIT_DELAY_ANNOTATION = 'kube-sim.podset.io/exit-delay-ms';

export type PodFate = 'ready' | 'fail' | 'never-ready' | 'succeed';
const FATES: readonly string[] = ['ready', 'fail', 'never-ready', 'succeed'];

export interface PodLifecycleOptions {
  /** Minimum delay from scheduling (Pending) to Running/Failed, in ms. */
  startupDelayMs: number;
  /** Random extra delay added to startupDelayMs, uniform in [0, startupJitterMs]. */
  startupJitterMs: number;
  /** Fraction (0..1) of pods that go to phase Failed (containers terminated, exit code 1) instead of Running. */
  failFraction: number;
  /** Fraction (0..1) of pods that run but never become Ready (Ready=False forever). */
  neverReadyFraction: number;
  /** Time the simulated containers take to stop after the pod is deleted; removal happens at
   * min(this, deletionGracePeriodSeconds). */
  containerExitMs: number;
  /** How long a pod with fate `succeed` runs before phase Succeeded. */
  succeedAfterMs: number;
  /** Seed for the random choices (fate, delay); undefined uses Math.random. */
  seed: number | undefined;
  /** Record core/v1 Events as the scheduler and kubelet do (Scheduled, Pulled, Created, Started, Killing, …). */
  podEvents: boolean;
}

interface PodState {
  uid: string;
  namespace: string;
  name: string;
  stage: 'scheduling' | 'starting' | 'running' | 'terminating' | 'removing' | 'done';
  fate?: PodFate;
  timer?: NodeJS.Timeout;
  removeAt?: number;
  attempts: number;
}

interface NodeInfo {
  name: string;
  schedulable: boolean;
  hostIP: string;
  pods: number;
}

type Obj = { [k: string]: Json | undefined };

function field<T>(o: unknown, key: string): T | undefined {
  return o !== null && typeof o === 'object' ? ((o as Obj)[key] as T | undefined) : undefined;
}

function annotation(pod: KubeObject, key: string): string | undefined {
  return pod.metadata.annotations?.[key];
}

function numberAnnotation(pod: KubeObject, key: string): number | undefined {
  const v = annotation(pod, key);
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

function phaseOf(pod: KubeObject): string | undefined {
  return field<string>(pod.status, 'phase');
}

function isTerminal(pod: KubeObject): boolean {
  const p = phaseOf(pod);
  return p === 'Succeeded' || p === 'Failed';
}

interface ContainerSpec {
  name: string;
  image?: string;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

function containersOf(pod: KubeObject, key: 'containers' | 'initContainers'): ContainerSpec[] {
  const list = field<Json[]>(pod.spec, key);
  return Array.isArray(list)
    ? (list as unknown as ContainerSpec[]).filter((c) => typeof c?.name === 'string')
    : [];
}

export function qosClass(pod: KubeObject): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const all = [...containersOf(pod, 'containers'), ...containersOf(pod, 'initContainers')];
  let any = false;
  let guaranteed = all.length > 0;
  for (const c of all) {
    const req = c.resources?.requests ?? {};
    const lim = c.resources?.limits ?? {};
    if (Object.keys(req).length || Object.keys(lim).length) any = true;
    for (const r of ['cpu', 'memory']) {
      if (lim[r] === undefined || (req[r] !== undefined && req[r] !== lim[r])) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

const imageCache = new Map<string, { image: string; imageID: string }>();

function normalizeImage(image: string | undefined): { image: string; imageID: string } {
  const key = image ?? '';
  let hit = imageCache.get(key);
  if (!hit) {
    hit = computeImage(image);
    if (imageCache.size > 1000) imageCache.clear();
    imageCache.set(key, hit);
  }
  return hit;
}

function computeImage(image: string | undefined): { image: string; imageID: string } {
  let ref = image && image.length ? image : 'busybox';
  const lastSlash = ref.lastIndexOf('/');
  if (!ref.includes('@') && !ref.slice(lastSlash + 1).includes(':')) ref += ':latest';
  const first = ref.split('/')[0]!;
  const hasRegistry =
    ref.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (!hasRegistry) ref = ref.includes('/') ? `docker.io/${ref}` : `docker.io/library/${ref}`;
  const repo = ref.replace(/[:@][^/]*$/, '');
  const digest = createHash('sha256').update(ref).digest('hex');
  return { image: ref, imageID: `${repo}@sha256:${digest}` };
}

function podCondition(
  type: string,
  status: boolean,
  at: string,
  reason?: string,
  message?: string,
): JsonObject {
  const c: JsonObject = {
    type,
    status: status ? 'True' : 'False',
    lastProbeTime: null,
    lastTransitionTime: at,
  };
  if (reason) c.reason = reason;
  if (message) c.message = message;
  return c;
}

/** Keeps lastTransitionTime of conditions whose status didn't change. */
function mergeConditions(old: Json | undefined, next: JsonObject[]): JsonObject[] {
  const prev = new Map<string, JsonObject>();
  if (Array.isArray(old))
    for (const c of old) if (c && typeof c === 'object' && !Array.isArray(c)) prev.set(String(c.type), c);
  return next.map((c) => {
    const p = prev.get(String(c.type));
    return p && p.status === c.status && p.lastTransitionTime
      ? { ...c, lastTransitionTime: p.lastTransitionTime }
      : c;
  });
}

export interface PodLifecycleController {
  stop(): void;
}

export function startPodLifecycle(
  cluster: ClusterAccess,
  options: PodLifecycleOptions,
  report: ErrorReporter,
): PodLifecycleController {
  const random = options.seed === undefined ? Math.random : seededRandom(options.seed);
  const queue = new WorkQueue('pod lifecycle', report);
  const states = new Map<string, PodState>();
  const nodes = new Map<string, NodeInfo>();
  const podNode = new Map<string, string>(); // uid → node, for active pods counted on a node
  const waiting = new Set<string>(); // uids of pods waiting for a schedulable node
  let ipCounter = 0;
  let stopped = false;

  function nextPodIP(): string {
    ipCounter++;
    let n = ipCounter;
    // 10.128.0.0/9, skipping .0 and .255 in the last octet.
    n = Math.floor(n / 254) * 256 + (n % 254) + 1;
    return `10.${128 + ((n >>> 16) & 127)}.${(n >>> 8) & 255}.${n & 255}`;
  }

  let eventCounter = 0;

  /** Records a core/v1 Event about a pod (when podEvents is on); failures to record are ignored. */
  function recordEvent(
    pod: KubeObject,
    reason: string,
    message: string,
    component: 'default-scheduler' | 'kubelet',
    host?: string,
    type: 'Normal' | 'Warning' = 'Normal',
    fieldPath?: string,
  ): void {
    if (!options.podEvents) return;
    const now = nowIso();
    const namespace = pod.metadata.namespace ?? 'default';
    eventCounter++;
    const suffix = (Date.now() * 1000 + (eventCounter % 1000)).toString(16);
    try {
      cluster.create('events', {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${pod.metadata.name ?? 'pod'}.${suffix}`, namespace },
        involvedObject: {
          apiVersion: 'v1',
          kind: 'Pod',
          namespace,
          name: pod.metadata.name ?? '',
          uid: pod.metadata.uid ?? '',
          resourceVersion: pod.metadata.resourceVersion ?? '',
          ...(fieldPath ? { fieldPath } : {}),
        },
        reason,
        message,
        source: host ? { component, host } : { component },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        type,
        eventTime: null,
        reportingComponent: component,
        reportingInstance: host ?? '',
      });
    } catch (err) {
      if (!isApiError(err, 403) && !isApiError(err, 404) && !isApiError(err, 409)) report(err, 'pod event');
    }
  }

  function containerEvents(pod: KubeObject, nodeName: string | undefined, fate: PodFate): void {
    if (!options.podEvents) return;
    for (const c of containersOf(pod, 'containers')) {
      const path = `spec.containers{${c.name}}`;
      const image = c.image ?? 'busybox';
      recordEvent(
        pod,
        'Pulled',
        `Container image "${image}" already present on machine`,
        'kubelet',
        nodeName,
        'Normal',
        path,
      );
      recordEvent(pod, 'Created', `Created container: ${c.name}`, 'kubelet', nodeName, 'Normal', path);
      recordEvent(pod, 'Started', `Started container ${c.name}`, 'kubelet', nodeName, 'Normal', path);
      if (fate === 'never-ready') {
        recordEvent(
          pod,
          'Unhealthy',
          'Readiness probe failed: simulated by kube-sim',
          'kubelet',
          nodeName,
          'Warning',
          path,
        );
      }
    }
  }

  function chooseFate(pod: KubeObject): PodFate {
    const pinned = annotation(pod, FATE_ANNOTATION);
    if (pinned && FATES.includes(pinned)) return pinned as PodFate;
    const r = random();
    if (r < options.failFraction) return 'fail';
    if (r < options.failFraction + options.neverReadyFraction) return 'never-ready';
    return 'ready';
  }

  function startupDelay(pod: KubeObject): number {
    const pinned = numberAnnotation(pod, STARTUP_DELAY_ANNOTATION);
    if (pinned !== undefined) return pinned;
    return options.startupDelayMs + Math.floor(random() * (options.startupJitterMs + 1));
  }

  function setTimer(st: PodState, ms: number, step: (st: PodState) => void): void {
    if (st.timer) clearTimeout(st.timer);
    st.timer = setTimeout(() => {
      st.timer = undefined;
      queue.push(() => {
        if (stopped || states.get(st.uid) !== st) return;
        try {
          step(st);
          st.attempts = 0;
        } catch (err) {
          report(err, `pod ${st.namespace}/${st.name}`);
          if (++st.attempts <= 5) setTimer(st, 1000, step);
        }
      });
    }, ms);
  }

  function forget(uid: string): void {
    const st = states.get(uid);
    if (st?.timer) clearTimeout(st.timer);
    states.delete(uid);
    waiting.delete(uid);
    unassign(uid);
  }

  function assign(uid: string, nodeName: string): void {
    if (podNode.has(uid)) return;
    podNode.set(uid, nodeName);
    const n = nodes.get(nodeName);
    if (n) n.pods++;
  }

  function unassign(uid: string): void {
    const nodeName = podNode.get(uid);
    if (nodeName === undefined) return;
    podNode.delete(uid);
    const n = nodes.get(nodeName);
    if (n) n.pods--;
  }

  function pickNode(): NodeInfo | undefined {
    let best: NodeInfo | undefined;
    for (const n of nodes.values()) if (n.schedulable && (!best || n.pods < best.pods)) best = n;
    return best;
  }

  // --- nodes ---------------------------------------------------------------------------------------------

  function onNode(event: StoreEvent): void {
    const name = event.object.metadata.name ?? '';
    if (event.type === 'DELETED') {
      nodes.delete(name);
      return;
    }
    const conditions = field<Json[]>(event.object.status, 'conditions');
    const ready =
      Array.isArray(conditions) &&
      conditions.some((c) => field(c, 'type') === 'Ready' && field(c, 'status') === 'True');
    const unschedulable = field<boolean>(event.object.spec, 'unschedulable') === true;
    const addresses = field<Json[]>(event.object.status, 'addresses');
    const internal = Array.isArray(addresses)
      ? addresses.find((a) => field(a, 'type') === 'InternalIP')
      : undefined;
    const existing = nodes.get(name);
    const info: NodeInfo = {
      name,
      schedulable: ready && !unschedulable,
      hostIP: field<string>(internal, 'address') ?? '192.168.49.250',
      pods: existing?.pods ?? 0,
    };
    nodes.set(name, info);
    if (info.schedulable && waiting.size) {
      for (const uid of [...waiting]) {
        const st = states.get(uid);
        waiting.delete(uid);
        if (st) {
          const pod = cluster.get('pods', st.namespace, st.name);
          if (pod && pod.metadata.uid === uid && !pod.metadata.deletionTimestamp) schedule(st);
        }
      }
    }
  }

  // --- pods ----------------------------------------------------------------------------------------------

  function onPod(event: StoreEvent): void {
    const pod = event.object;
    const uid = pod.metadata.uid;
    if (!uid) return;
    if (event.type === 'DELETED') return forget(uid);
    let st = states.get(uid);
    if (pod.metadata.deletionTimestamp) return deleting(pod, st);
    const nodeName = field<string>(pod.spec, 'nodeName');
    if (isTerminal(pod)) {
      if (st?.timer) clearTimeout(st.timer);
      if (st) st.stage = 'done';
      unassign(uid);
      return;
    }
    if (st) return; // in progress: our own writes come back here
    st = {
      uid,
      namespace: pod.metadata.namespace ?? 'default',
      name: pod.metadata.name ?? '',
      stage: 'scheduling',
      attempts: 0,
    };
    states.set(uid, st);
    if (!nodeName) return schedule(st);
    assign(uid, nodeName);
    if (phaseOf(pod) === 'Running') {
      st.stage = 'running'; // adopted after a restart: nothing more to simulate
      return;
    }
    st.stage = 'starting';
    pending(st, nodeName, field<string>(pod.status, 'startTime') !== undefined);
  }

  function schedule(st: PodState): void {
    const node = pickNode();
    if (!node) {
      waiting.add(st.uid);
      const now = nowIso();
      mutate(cluster, 'updateStatus', 'pods', st.namespace, st.name, st.uid, (p) => {
        if (p.metadata.deletionTimestamp || field(p.spec, 'nodeName')) return undefined;
        const status = (p.status ?? {}) as JsonObject;
        const conditions = mergeConditions(status.conditions, [
          podCondition('PodScheduled', false, now, 'Unschedulable', `0/${nodes.size} nodes are available.`),
        ]);
        if (status.phase === 'Pending' && JSON.stringify(status.conditions) === JSON.stringify(conditions))
          return undefined;
        p.status = { ...status, phase: 'Pending', conditions };
        return p;
      });
      return;
    }
    const bound = mutate(cluster, 'update', 'pods', st.namespace, st.name, st.uid, (p) => {
      if (p.metadata.deletionTimestamp || field(p.spec, 'nodeName')) return undefined;
      p.spec = { ...((p.spec ?? {}) as JsonObject), nodeName: node.name };
      return p;
    });
    const nodeName = field<string>((bound ?? cluster.get('pods', st.namespace, st.name))?.spec, 'nodeName');
    if (!nodeName) return; // gone or being deleted: the next event decides
    if (bound) {
      recordEvent(
        bound,
        'Scheduled',
        `Successfully assigned ${st.namespace}/${st.name} to ${nodeName}`,
        'default-scheduler',
      );
    }
    assign(st.uid, nodeName);
    st.stage = 'starting';
    pending(st, nodeName, false);
  }

  /** The kubelet accepted the pod: Pending with containers being created, then start after the delay. */
  function pending(st: PodState, nodeName: string, alreadyReported: boolean): void {
    const node = nodes.get(nodeName);
    let fresh: KubeObject | undefined;
    if (!alreadyReported) {
      const now = nowIso();
      fresh = mutate(cluster, 'updateStatus', 'pods', st.namespace, st.name, st.uid, (p) => {
        if (p.metadata.deletionTimestamp || isTerminal(p)) return undefined;
        const waitingState = { waiting: { reason: 'ContainerCreating' } };
        const status = (p.status ?? {}) as JsonObject;
        const notReady = `containers with unready status: [${containersOf(p, 'containers')
          .map((c) => c.name)
          .join(' ')}]`;
        const hostIP = node?.hostIP ?? '192.168.49.250';
        p.status = {
          ...status,
          phase: 'Pending',
          hostIP,
          hostIPs: [{ ip: hostIP }],
          startTime: now,
          qosClass: qosClass(p),
          conditions: mergeConditions(status.conditions, [
            podCondition('PodReadyToStartContainers', false, now),
            podCondition('Initialized', true, now),
            podCondition('Ready', false, now, 'ContainersNotReady', notReady),
            podCondition('ContainersReady', false, now, 'ContainersNotReady', notReady),
            podCondition('PodScheduled', true, now),
          ]),
          containerStatuses: containersOf(p, 'containers').map((c) => ({
            name: c.name,
            ...normalizeImage(c.image),
            ready: false,
            started: false,
            restartCount: 0,
            state: waitingState,
            lastState: {},
          })),
        };
        return p;
      });
    }
    fresh ??= cluster.get('pods', st.namespace, st.name);
    if (!fresh || fresh.metadata.uid !== st.uid) return;
    st.fate = chooseFate(fresh);
    setTimer(st, startupDelay(fresh), start);
  }

  function start(st: PodState): void {
    const fate = st.fate ?? 'ready';
    const now = nowIso();
    const written = mutate(cluster, 'updateStatus', 'pods', st.namespace, st.name, st.uid, (p) => {
      if (p.metadata.deletionTimestamp || isTerminal(p)) return undefined;
      const status = (p.status ?? {}) as JsonObject;
      const names = containersOf(p, 'containers').map((c) => c.name);
      const ip = nextPodIP();
      const failed = fate === 'fail';
      const ready = fate === 'ready' || fate === 'succeed';
      const cid = (i: number) =>
        `containerd://${st.uid.replace(/-/g, '')}${i.toString(16).padStart(32, '0')}`;
      const notReadyMsg = `containers with unready status: [${names.join(' ')}]`;
      const inits = containersOf(p, 'initContainers');
      const next: JsonObject = {
        ...status,
        phase: failed ? 'Failed' : 'Running',
        podIP: ip,
        podIPs: [{ ip }],
        startTime: (status.startTime as string | undefined) ?? now,
        conditions: mergeConditions(status.conditions, [
          podCondition('PodReadyToStartContainers', !failed, now),
          podCondition('Initialized', true, now),
          ready
            ? podCondition('Ready', true, now)
            : podCondition(
                'Ready',
                false,
                now,
                failed ? 'PodFailed' : 'ContainersNotReady',
                failed ? undefined : notReadyMsg,
              ),
          ready
            ? podCondition('ContainersReady', true, now)
            : podCondition(
                'ContainersReady',
                false,
                now,
                failed ? 'PodFailed' : 'ContainersNotReady',
                failed ? undefined : notReadyMsg,
              ),
          podCondition('PodScheduled', true, now),
        ]),
        containerStatuses: containersOf(p, 'containers').map((c, i) => ({
          name: c.name,
          ...normalizeImage(c.image),
          containerID: cid(i + 1),
          ready,
          started: !failed,
          restartCount: 0,
          state: (failed
            ? {
                terminated: {
                  exitCode: 1,
                  reason: 'Error',
                  startedAt: now,
                  finishedAt: now,
                  containerID: cid(i + 1),
                },
              }
            : { running: { startedAt: now } }) as JsonObject,
          lastState: {},
        })),
      };
      if (inits.length) {
        next.initContainerStatuses = inits.map((c, i) => ({
          name: c.name,
          ...normalizeImage(c.image),
          containerID: cid(1000 + i),
          ready: true,
          started: false,
          restartCount: 0,
          state: {
            terminated: {
              exitCode: 0,
              reason: 'Completed',
              startedAt: now,
              finishedAt: now,
              containerID: cid(1000 + i),
            },
          },
          lastState: {},
        }));
      }
      p.status = next;
      return p;
    });
    if (!written) return;
    containerEvents(written, field<string>(written.spec, 'nodeName'), fate);
    if (fate === 'fail') {
      st.stage = 'done';
      unassign(st.uid);
      return;
    }
    st.stage = 'running';
    if (fate === 'succeed') setTimer(st, options.succeedAfterMs, succeed);
  }

  function succeed(st: PodState): void {
    const now = nowIso();
    const written = mutate(cluster, 'updateStatus', 'pods', st.namespace, st.name, st.uid, (p) => {
      if (p.metadata.deletionTimestamp || isTerminal(p)) return undefined;
      const status = (p.status ?? {}) as JsonObject;
      p.status = {
        ...status,
        phase: 'Succeeded',
        conditions: mergeConditions(status.conditions, [
          podCondition('PodReadyToStartContainers', false, now),
          podCondition('Initialized', true, now, 'PodCompleted'),
          podCondition('Ready', false, now, 'PodCompleted'),
          podCondition('ContainersReady', false, now, 'PodCompleted'),
          podCondition('PodScheduled', true, now),
        ]),
        containerStatuses: (Array.isArray(status.containerStatuses) ? status.containerStatuses : []).map(
          (cs) => {
            const c = cs as JsonObject;
            const startedAt = field<string>(field(c.state, 'running'), 'startedAt') ?? now;
            return {
              ...c,
              ready: false,
              started: false,
              state: {
                terminated: {
                  exitCode: 0,
                  reason: 'Completed',
                  startedAt,
                  finishedAt: now,
                  containerID: c.containerID ?? null,
                },
              },
            };
          },
        ),
      };
      return p;
    });
    if (written) {
      st.stage = 'done';
      unassign(st.uid);
    }
  }

  // --- termination ---------------------------------------------------------------------------------------

  function deleting(pod: KubeObject, existing: PodState | undefined): void {
    const uid = pod.metadata.uid!;
    const st: PodState = existing ?? {
      uid,
      namespace: pod.metadata.namespace ?? 'default',
      name: pod.metadata.name ?? '',
      stage: 'terminating',
      attempts: 0,
    };
    states.set(uid, st);
    waiting.delete(uid);
    if (st.stage === 'removing') return; // forceRemove done; waiting for finalizers to go
    const graceMs = Math.max(0, (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000);
    const running = !!field<string>(pod.spec, 'nodeName') && !isTerminal(pod);
    const exitMs = numberAnnotation(pod, EXIT_DELAY_ANNOTATION) ?? (running ? options.containerExitMs : 0);
    const delay = Math.min(graceMs, exitMs);
    const at = Date.now() + delay;
    if (st.stage === 'terminating' && st.removeAt !== undefined && st.removeAt <= at) return;
    if (st.stage !== 'terminating' && running && options.podEvents) {
      const nodeName = field<string>(pod.spec, 'nodeName');
      for (const c of containersOf(pod, 'containers')) {
        recordEvent(
          pod,
          'Killing',
          `Stopping container ${c.name}`,
          'kubelet',
          nodeName,
          'Normal',
          `spec.containers{${c.name}}`,
        );
      }
    }
    st.stage = 'terminating';
    st.removeAt = at;
    if (st.timer) clearTimeout(st.timer);
    st.timer = undefined;
    if (delay <= 0) remove(st);
    else setTimer(st, delay, remove);
  }

  function remove(st: PodState): void {
    const pod = cluster.get('pods', st.namespace, st.name);
    if (!pod || pod.metadata.uid !== st.uid) return forget(st.uid);
    st.stage = 'removing';
    try {
      cluster.forceRemove('pods', st.namespace, st.name);
    } catch (err) {
      if (isApiError(err, 404)) return forget(st.uid);
      st.stage = 'terminating';
      throw err;
    }
  }

  // --- start ---------------------------------------------------------------------------------------------

  const unsubscribe = subscribeQueued(cluster, queue, (event) => {
    if (event.resource === 'pods') onPod(event);
    else if (event.resource === 'nodes') onNode(event);
  });
  queue.push(() => {
    for (const node of cluster.list('nodes')) onNode({ type: 'ADDED', resource: 'nodes', object: node });
    for (const pod of cluster.list('pods')) onPod({ type: 'ADDED', resource: 'pods', object: pod });
  });

  return {
    stop() {
      stopped = true;
      unsubscribe();
      queue.stop();
      for (const st of states.values()) if (st.timer) clearTimeout(st.timer);
      states.clear();
    },
  };
}
