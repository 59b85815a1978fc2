// Pod lifecycle simulation: the scheduler (spread over Ready nodes) and a kubelet per node, in one of two
// lifecycles (option podLifecycle):
//
// kubelet (the default) writes what a watcher of a real cluster sees, spread in time as a kubelet spreads it:
//   binding (spec.nodeName), one pod at a time from the scheduler's queue → the kubelet's first status write, queued on its node's status manager:
//   Pending, Initialized, PodReadyToStartContainers=False, Ready/ContainersReady=False (ContainersNotReady),
//   containers waiting in ContainerCreating, hostIP, startTime (no podIP: the sandbox does not exist yet)
//   → the containers start after the startup delay, noticed at the node's next relist, queued again:
//   Running with podIP, containers running and started, and Ready=True in the same write (a container
//   without a readinessProbe is ready once it runs); with a readinessProbe Ready=False first, then Ready=True
//   after its initialDelaySeconds.
// fast: Pending right after binding, then after the startup delay Running and Ready in one write; no relist,
//   no queue (tests that need speed).
// Either way the fates: failing containers (Failed for restartPolicy Never; else a crash loop, as a kubelet
//   restarts them: Running, not ready, restartCount rising, CrashLoopBackOff between restarts with a back-off
//   from crashLoopBackoffMs doubling to 30 times it), or Running with Ready=False forever, or Running then
//   Succeeded.
//   deletionTimestamp set → the simulated containers exit after `containerExitMs` (never later than the
//   grace period) → forceRemove.
//
// Per-pod behaviour can be pinned with annotations (handy for deterministic tests):
//   kube-sim.podset.io/fate: ready | fail | never-ready | succeed
//   (unannotated: chosen by failFraction / neverReadyFraction, else `succeed` for restartPolicy Never or
//   OnFailure — Job pods run for succeedAfterMs and end Succeeded — and `ready` otherwise)
//   kube-sim.podset.io/startup-delay-ms: "<ms>"   (Pending → Running/Failed delay)
//   kube-sim.podset.io/exit-delay-ms: "<ms>"      (time the containers take to stop once deleted)
import type { ClusterAccess, KubeObject, StoreEvent } from '../apimachinery/types.ts';
import { PodEventRecorder } from './pod-events.ts';
import { NodeTracker } from './pod-nodes.ts';
import { KubeletPace, type KubeletPaceOptions } from './kubelet-pace.ts';
import {
  chooseFate,
  readinessDelayOf,
  removalDelayOf,
  startupDelayOf,
  type PodLifecycleMode,
} from './pod-fate.ts';
import {
  crashLoopBackoffMs,
  crashLoopStatus,
  field,
  isTerminal,
  pendingStatus,
  phaseOf,
  readyStatus,
  restartsOnFailure,
  startedStatus,
  succeededStatus,
  unschedulableStatus,
  type PodFate,
} from './pod-status.ts';
import {
  isApiError,
  mutate,
  nowIso,
  type ErrorReporter,
  WorkQueue,
  subscribeQueued,
  seededRandom,
} from './util.ts';

export { qosClass, type PodFate } from './pod-status.ts';

export { FATE_ANNOTATION, STARTUP_DELAY_ANNOTATION, EXIT_DELAY_ANNOTATION } from './pod-fate.ts';

/** A step that threw is tried again after this long, at most this many times. */
const STEP_RETRY_MS = 1000;
const STEP_RETRIES = 5;

export interface PodLifecycleOptions extends KubeletPaceOptions {
  /** kubelet: a kubelet's status writes at a kubelet's pace; fast: two writes, no relist, no queue. */
  podLifecycle: PodLifecycleMode;
  /** Minimum delay from scheduling (Pending) to Running/Failed, in ms. */
  startupDelayMs: number;
  /** Random extra delay added to startupDelayMs, uniform in [0, startupJitterMs]. */
  startupJitterMs: number;
  /** Fraction (0..1) of pods whose containers fail (exit code 1): phase Failed for restartPolicy Never, a
   * crash loop (Running, not ready, restarts after a growing back-off) for Always and OnFailure. */
  failFraction: number;
  /** The kubelet's first crash-loop back-off (10 s on a real one), doubled per restart up to 30 times it. */
  crashLoopBackoffMs: number;
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
  /** The node it is bound to (the kubelet lifecycle paces its writes by node). */
  node?: string;
  fate?: PodFate;
  timer?: NodeJS.Timeout;
  removeAt?: number;
  attempts: number;
}

export interface PodLifecycleController {
  stop(): void;
}

export function startPodLifecycle(
  cluster: ClusterAccess,
  options: PodLifecycleOptions,
  report: ErrorReporter,
): PodLifecycleController {
  const lifecycle = new PodLifecycle(cluster, options, report);
  lifecycle.start();
  return { stop: () => lifecycle.stop() };
}

/** The scheduler and a kubelet per node, driven by pod and node events, one step at a time. */
class PodLifecycle {
  readonly #cluster: ClusterAccess;
  readonly #options: PodLifecycleOptions;
  readonly #report: ErrorReporter;
  readonly #random: () => number;
  readonly #queue: WorkQueue;
  readonly #events: PodEventRecorder;
  readonly #nodes = new NodeTracker();
  readonly #pace: KubeletPace;
  readonly #states = new Map<string, PodState>();
  /** uids of pods waiting for a schedulable node. */
  readonly #waiting = new Set<string>();
  #ipCounter = 0;
  #stopped = false;
  #unsubscribe: () => void = () => undefined;

  constructor(cluster: ClusterAccess, options: PodLifecycleOptions, report: ErrorReporter) {
    this.#cluster = cluster;
    // Read on every decision: the options may be changed while running.
    this.#options = options;
    this.#report = report;
    this.#random = options.seed === undefined ? Math.random : seededRandom(options.seed);
    this.#queue = new WorkQueue('pod lifecycle', report);
    this.#events = new PodEventRecorder(cluster, options, report);
    this.#pace = new KubeletPace(options, this.#random);
  }

  start(): void {
    this.#unsubscribe = subscribeQueued(this.#cluster, this.#queue, (event) => {
      if (event.resource === 'pods') this.#onPod(event);
      else if (event.resource === 'nodes') this.#onNode(event);
    });
    this.#queue.push(() => {
      for (const node of this.#cluster.list('nodes'))
        this.#onNode({ type: 'ADDED', resource: 'nodes', object: node });
      for (const pod of this.#cluster.list('pods'))
        this.#onPod({ type: 'ADDED', resource: 'pods', object: pod });
    });
  }

  stop(): void {
    this.#stopped = true;
    this.#unsubscribe();
    this.#queue.stop();
    for (const st of this.#states.values()) if (st.timer) clearTimeout(st.timer);
    this.#states.clear();
  }

  // --- events ----------------------------------------------------------------------------------------------

  #onNode(event: StoreEvent): void {
    if (!this.#nodes.onNode(event) || this.#waiting.size === 0) return;
    for (const uid of [...this.#waiting]) {
      const st = this.#states.get(uid);
      this.#waiting.delete(uid);
      if (!st) continue;
      const pod = this.#cluster.get('pods', st.namespace, st.name);
      if (pod && pod.metadata.uid === uid && !pod.metadata.deletionTimestamp) this.#toScheduler(st);
    }
  }

  #onPod(event: StoreEvent): void {
    const pod = event.object;
    const uid = pod.metadata.uid;
    if (!uid) return;
    if (event.type === 'DELETED') return this.#forget(uid);
    const existing = this.#states.get(uid);
    if (pod.metadata.deletionTimestamp) return this.#deleting(pod, existing);
    if (isTerminal(pod)) {
      if (existing?.timer) clearTimeout(existing.timer);
      if (existing) existing.stage = 'done';
      this.#nodes.unassign(uid);
      return;
    }
    if (existing) return; // in progress: our own writes come back here
    const st = newState(pod, 'scheduling');
    this.#states.set(uid, st);
    const nodeName = field<string>(pod.spec, 'nodeName');
    if (!nodeName) return this.#toScheduler(st);
    this.#nodes.assign(uid, nodeName);
    if (phaseOf(pod) === 'Running') {
      st.stage = 'running'; // adopted after a restart: nothing more to simulate
      return;
    }
    st.stage = 'starting';
    this.#pending(st, nodeName, field<string>(pod.status, 'startTime') !== undefined);
  }

  // --- scheduler -------------------------------------------------------------------------------------------

  /** kubelet lifecycle: the pod joins the scheduler's queue, which binds one pod per schedulerBindMs. */
  #toScheduler(st: PodState): void {
    if (!this.#kubelet() || this.#options.schedulerBindMs <= 0) return this.#schedule(st);
    const at = this.#pace.reserveBinding(Date.now());
    this.#setTimer(st, Math.max(0, at - Date.now()), (s) => this.#schedule(s));
  }

  #schedule(st: PodState): void {
    const node = this.#nodes.pick();
    if (node === undefined) {
      this.#waiting.add(st.uid);
      const now = nowIso();
      this.#writeStatus(st, (p) => {
        if (p.metadata.deletionTimestamp || field(p.spec, 'nodeName')) return undefined;
        const status = unschedulableStatus(p, this.#nodes.size, now);
        return status && { ...p, status };
      });
      return;
    }
    // Through pods/binding, as the scheduler binds: an update may not set spec.nodeName.
    const bound = this.#bind(st, node);
    const nodeName = field<string>(
      (bound ?? this.#cluster.get('pods', st.namespace, st.name))?.spec,
      'nodeName',
    );
    if (!nodeName) return; // gone or being deleted: the next event decides
    if (bound) this.#events.scheduled(bound, nodeName);
    this.#nodes.assign(st.uid, nodeName);
    st.stage = 'starting';
    this.#pending(st, nodeName, false);
  }

  /** The bound pod, or undefined when it is gone, has a node already or is being deleted. */
  #bind(st: PodState, node: string): KubeObject | undefined {
    const current = this.#cluster.get('pods', st.namespace, st.name);
    if (!current || current.metadata.uid !== st.uid) return undefined;
    try {
      return this.#cluster.bind(st.namespace, st.name, node);
    } catch (err) {
      if (isApiError(err, 409) || isApiError(err, 404)) return undefined;
      throw err;
    }
  }

  // --- kubelet ---------------------------------------------------------------------------------------------

  /** The kubelet accepted the pod: Pending with containers being created, then start after the delay. */
  #pending(st: PodState, nodeName: string, alreadyReported: boolean): void {
    st.node = nodeName;
    if (this.#kubelet() && !alreadyReported) {
      this.#kubeletWrite(st, Date.now(), (s) => this.#accept(s));
      return;
    }
    if (!alreadyReported) return this.#accept(st);
    const fresh = this.#cluster.get('pods', st.namespace, st.name);
    if (fresh && fresh.metadata.uid === st.uid) this.#awaitStart(st, fresh);
  }

  /** The kubelet's first status write: Pending, containers waiting in ContainerCreating. */
  #accept(st: PodState): void {
    const now = nowIso();
    const hostIP = this.#nodes.hostIP(st.node ?? '');
    const written = this.#writeStatus(st, (p) =>
      p.metadata.deletionTimestamp || isTerminal(p)
        ? undefined
        : { ...p, status: pendingStatus(p, hostIP, now) },
    );
    if (written) this.#awaitStart(st, written);
  }

  /** The containers start after the startup delay; a kubelet reports it once its relist notices. */
  #awaitStart(st: PodState, pod: KubeObject): void {
    st.fate = this.#chooseFate(pod);
    const startedAt = Date.now() + this.#startupDelay(pod);
    if (!this.#kubelet()) return this.#setTimer(st, startedAt - Date.now(), (s) => this.#start(s));
    const noticedAt = this.#pace.noticed(st.node ?? '', startedAt);
    this.#kubeletWrite(st, noticedAt, (s) => this.#start(s));
  }

  #start(st: PodState): void {
    const fate = st.fate ?? 'ready';
    const now = nowIso();
    let readinessDelay: number | undefined;
    let crashLoop = false;
    const written = this.#writeStatus(st, (p) => {
      if (p.metadata.deletionTimestamp || isTerminal(p)) return undefined;
      crashLoop = fate === 'fail' && restartsOnFailure(p);
      if (crashLoop) {
        const ip = this.#nextPodIP();
        return {
          ...p,
          status: crashLoopStatus(p, { uid: st.uid, ip, now, restarts: 0, backoffMs: undefined }),
        };
      }
      readinessDelay = this.#kubelet() && fate !== 'fail' ? readinessDelayOf(p) : undefined;
      const probing = readinessDelay !== undefined;
      return { ...p, status: startedStatus(p, { uid: st.uid, fate, ip: this.#nextPodIP(), now, probing }) };
    });
    if (!written) return;
    this.#events.containersStarted(written, field<string>(written.spec, 'nodeName'), fate);
    if (crashLoop) {
      // The first restart is at once (the kubelet notices the exit at its next relist); the back-off after.
      st.stage = 'running';
      const at = this.#kubelet() ? this.#pace.noticed(st.node ?? '', Date.now()) : Date.now();
      return this.#kubeletWrite(st, at, (s) => this.#crashed(s, 1));
    }
    if (fate === 'fail') {
      st.stage = 'done';
      this.#nodes.unassign(st.uid);
      return;
    }
    st.stage = 'running';
    if (readinessDelay !== undefined && fate !== 'never-ready')
      this.#kubeletWrite(st, Date.now() + readinessDelay, (s) => this.#ready(s, fate));
    else if (fate === 'succeed') this.#setTimer(st, this.#options.succeedAfterMs, (s) => this.#succeed(s));
  }

  /**
   * The containers were restarted `restarts` times and failed again: waiting in CrashLoopBackOff, then
   * restarted (and failing) once the back-off has passed.
   */
  #crashed(st: PodState, restarts: number): void {
    const backoffMs = crashLoopBackoffMs(this.#options.crashLoopBackoffMs, restarts);
    const now = nowIso();
    const written = this.#writeStatus(st, (p) => {
      if (p.metadata.deletionTimestamp || isTerminal(p)) return undefined;
      const ip = field<string>(p.status, 'podIP') ?? this.#nextPodIP();
      return { ...p, status: crashLoopStatus(p, { uid: st.uid, ip, now, restarts, backoffMs }) };
    });
    if (!written) return;
    this.#events.backOff(written, field<string>(written.spec, 'nodeName'));
    this.#kubeletWrite(st, Date.now() + backoffMs, (s) => this.#crashed(s, restarts + 1));
  }

  /** The readinessProbe passed: Ready. */
  #ready(st: PodState, fate: PodFate): void {
    const now = nowIso();
    const written = this.#writeStatus(st, (p) =>
      p.metadata.deletionTimestamp || isTerminal(p) ? undefined : { ...p, status: readyStatus(p, now) },
    );
    if (written && fate === 'succeed')
      this.#setTimer(st, this.#options.succeedAfterMs, (s) => this.#succeed(s));
  }

  #succeed(st: PodState): void {
    const now = nowIso();
    const written = this.#writeStatus(st, (p) =>
      p.metadata.deletionTimestamp || isTerminal(p) ? undefined : { ...p, status: succeededStatus(p, now) },
    );
    if (!written) return;
    st.stage = 'done';
    this.#nodes.unassign(st.uid);
  }

  // --- termination -----------------------------------------------------------------------------------------

  #deleting(pod: KubeObject, existing: PodState | undefined): void {
    const st = existing ?? newState(pod, 'terminating');
    this.#states.set(st.uid, st);
    this.#waiting.delete(st.uid);
    if (st.stage === 'removing') return; // forceRemove done; waiting for finalizers to go
    const nodeName = field<string>(pod.spec, 'nodeName');
    const running = !!nodeName && !isTerminal(pod);
    const delay = removalDelayOf(pod, this.#options.containerExitMs);
    const at = Date.now() + delay;
    if (st.stage === 'terminating' && st.removeAt !== undefined && st.removeAt <= at) return;
    if (st.stage !== 'terminating' && running) this.#events.killing(pod, nodeName);
    st.stage = 'terminating';
    st.removeAt = at;
    if (st.timer) clearTimeout(st.timer);
    st.timer = undefined;
    if (delay <= 0) this.#remove(st);
    else this.#setTimer(st, delay, (s) => this.#remove(s));
  }

  #remove(st: PodState): void {
    const pod = this.#cluster.get('pods', st.namespace, st.name);
    if (!pod || pod.metadata.uid !== st.uid) return this.#forget(st.uid);
    st.stage = 'removing';
    try {
      this.#cluster.forceRemove('pods', st.namespace, st.name);
    } catch (err) {
      if (isApiError(err, 404)) return this.#forget(st.uid);
      st.stage = 'terminating';
      throw err;
    }
  }

  #forget(uid: string): void {
    const st = this.#states.get(uid);
    if (st?.timer) clearTimeout(st.timer);
    this.#states.delete(uid);
    this.#waiting.delete(uid);
    this.#nodes.unassign(uid);
  }

  // --- plumbing --------------------------------------------------------------------------------------------

  /** A status write of the pod `st` tracks (undefined: the change did not apply, or nothing to write). */
  #writeStatus(st: PodState, change: (p: KubeObject) => KubeObject | undefined): KubeObject | undefined {
    return mutate(this.#cluster, 'updateStatus', 'pods', st.namespace, st.name, st.uid, change);
  }

  /** Runs `step` after `ms` on the work queue, unless the pod was forgotten; retried if it throws. */
  #setTimer(st: PodState, ms: number, step: (st: PodState) => void): void {
    if (st.timer) clearTimeout(st.timer);
    st.timer = setTimeout(() => {
      st.timer = undefined;
      this.#queue.push(() => {
        if (this.#stopped || this.#states.get(st.uid) !== st) return;
        try {
          step(st);
          st.attempts = 0;
        } catch (err) {
          this.#report(err, `pod ${st.namespace}/${st.name}`);
          if (++st.attempts <= STEP_RETRIES) this.#setTimer(st, STEP_RETRY_MS, step);
        }
      });
    }, ms);
  }

  #kubelet(): boolean {
    return this.#options.podLifecycle === 'kubelet';
  }

  /**
   * Runs `step` at `at` or later: at `at` the write joins the queue of the pod's node's status manager and
   * runs when its turn comes (kubelet lifecycle).
   */
  #kubeletWrite(st: PodState, at: number, step: (st: PodState) => void): void {
    this.#setTimer(st, Math.max(0, at - Date.now()), (s) => {
      const turn = this.#pace.reserveStatusWrite(s.node ?? '', Date.now()) - Date.now();
      if (turn <= 0) step(s);
      else this.#setTimer(s, turn, step);
    });
  }

  #chooseFate(pod: KubeObject): PodFate {
    return chooseFate(pod, this.#options, this.#random);
  }

  #startupDelay(pod: KubeObject): number {
    return startupDelayOf(pod, this.#options, this.#random);
  }

  /** 10.128.0.0/9, skipping .0 and .255 in the last octet. */
  #nextPodIP(): string {
    this.#ipCounter++;
    const n = Math.floor(this.#ipCounter / 254) * 256 + (this.#ipCounter % 254) + 1;
    return `10.${128 + ((n >>> 16) & 127)}.${(n >>> 8) & 255}.${n & 255}`;
  }
}

function newState(pod: KubeObject, stage: PodState['stage']): PodState {
  return {
    uid: pod.metadata.uid ?? '',
    namespace: pod.metadata.namespace ?? 'default',
    name: pod.metadata.name ?? '',
    stage,
    attempts: 0,
  };
}
