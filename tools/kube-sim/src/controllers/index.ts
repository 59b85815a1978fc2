// kube-sim's in-process controllers: simulated nodes, pod lifecycle (scheduler + kubelet), garbage
// collector (ownerReferences: Background, Foreground, Orphan), namespace deletion, ServiceAccounts and the
// workload controllers (ReplicationControllers, ReplicaSets, Deployments, StatefulSets, Jobs). They talk to the store
// only through ClusterAccess and react to its events (no polling).
import type { ClusterAccess } from '../apimachinery/types.ts';
import { startGarbageCollector } from './gc.ts';
import { startNamespaceController } from './namespaces.ts';
import { startDeploymentController } from './deployments.ts';
import { startJobController } from './jobs.ts';
import { startStatefulSetController } from './statefulsets.ts';
import { startReplicaSetController } from './replicasets.ts';
import { startReplicationController } from './replication.ts';
import { startResourceQuotaController } from './resourcequota.ts';
import { startServiceAccountController } from './serviceaccounts.ts';
import { ensureNodes } from './nodes.ts';
import { startPodLifecycle } from './pods.ts';
import { POD_LIFECYCLE_MODES, type PodLifecycleMode } from './pod-fate.ts';
import { defaultErrorReporter, type ErrorReporter } from './util.ts';

export { FATE_ANNOTATION, STARTUP_DELAY_ANNOTATION, EXIT_DELAY_ANNOTATION, type PodFate } from './pods.ts';
export type { ErrorReporter } from './util.ts';
export { POD_LIFECYCLE_MODES, type PodLifecycleMode } from './pod-fate.ts';

/** All optional; the defaults are in `defaultControllerOptions`. */
export interface ControllerOptions {
  /** Simulated nodes created at start (`sim-node-1..N`, Ready). 0 creates none. Default 3. */
  nodes?: number;
  /** Prefix of simulated node names. Default `sim-node-`. */
  nodeNamePrefix?: string;
  /** status.nodeInfo.kubeletVersion of simulated nodes. Default `v1.32.0`. */
  kubeletVersion?: string;
  /**
   * How pods are scheduled, started and stopped: `kubelet` (the default) writes a kubelet's separate status
   * updates at a kubelet's pace (relist, one status write at a time per node), so a watcher sees what it
   * sees on a real cluster; `fast` writes Pending then Running+Ready after the startup delay (tests that need
   * speed); `off` leaves pods alone. true and false are kept as `kubelet` and `off`.
   */
  podLifecycle?: PodLifecycleMode | boolean;
  /** kubelet lifecycle: the scheduler binds one pod at a time, each taking this long. Default 20 ms:
   * kube-scheduler's default client limit is 50 requests/s, and a binding is one request. */
  schedulerBindMs?: number;
  /** kubelet lifecycle: how often a node's kubelet relists, noticing started containers. Default 1000 ms
   * (a kubelet's PLEG). */
  kubeletRelistMs?: number;
  /** kubelet lifecycle: how long one pod status write occupies a node's status manager. Default 40 ms (a
   * kubelet's 50 requests/s, a GET and a PATCH per write). */
  kubeletStatusWriteMs?: number;
  /** Minimum Pending → Running delay in ms. Default 200. */
  startupDelayMs?: number;
  /** Random extra start-up delay, uniform in [0, startupJitterMs] ms. Default 600 (so 200–800 ms). */
  startupJitterMs?: number;
  /** Fraction 0..1 of pods whose containers fail (exit code 1): phase Failed for restartPolicy Never, a crash
   * loop (Running, not ready, CrashLoopBackOff between restarts) for Always and OnFailure. Default 0. */
  failFraction?: number;
  /** Fraction 0..1 of pods that run but never become Ready. Default 0. failFraction + this ≤ 1. */
  neverReadyFraction?: number;
  /** Time the containers of a deleted pod take to stop; the pod is removed after min(this, its grace
   * period). Default 300 ms. */
  containerExitMs?: number;
  /** Run time of pods annotated `kube-sim.podset.io/fate: succeed`, and of unannotated pods with
   * restartPolicy Never or OnFailure (Job pods), before phase Succeeded. Default 1000 ms. */
  succeedAfterMs?: number;
  /** The first crash-loop back-off of a failing pod that is restarted (restartPolicy Always/OnFailure),
   * doubled per restart up to 30 times it. Default 10000 ms, a kubelet's (10 s … 5 min). */
  crashLoopBackoffMs?: number;
  /** Seed for the random fate and delay choices (repeatable runs). Default: unseeded (Math.random). */
  seed?: number;
  /** Record the scheduler's and kubelet's core/v1 Events for pods (Scheduled, Pulled, Created, Started,
   * Killing, Unhealthy), so `kubectl describe pod` shows them. 1 + 3 per container per pod. Default true;
   * benchmarks with 100k pods turn it off (it would triple their object count). */
  podEvents?: boolean;
  /** Run the ownerReferences garbage collector. Default true. */
  garbageCollector?: boolean;
  /** Run the namespace controller (deletes a deleted namespace's content, then the namespace). Default true. */
  namespaceController?: boolean;
  /** While a namespace is terminating, re-check it at least this often (ms). Default 1000. */
  namespaceRecheckMs?: number;
  /** How long after a namespace's deletion the namespace controller starts deleting its content (ms).
   * Default 5000, kube-controller-manager's wait: a client deleting a manifest's objects one by one after
   * their namespace (`kubectl delete -k`) finds them still there. */
  namespaceDeletionDelayMs?: number;
  /** Run the ServiceAccount controller (a `default` ServiceAccount in every namespace). Default true. */
  serviceAccountController?: boolean;
  /** Run the ReplicationController controller (pods for each ReplicationController). Default true. */
  replicationController?: boolean;
  /** Run the ResourceQuota controller (status.hard and status.used of every quota). Default true. */
  resourceQuotaController?: boolean;
  /** Run the ReplicaSet controller (pods for each ReplicaSet). Default true. */
  replicaSetController?: boolean;
  /** Run the Deployment controller (ReplicaSets and rollouts for each Deployment). Default true. */
  deploymentController?: boolean;
  /** Run the StatefulSet controller (ordered, named pods and their claims for each StatefulSet). Default true. */
  statefulSetController?: boolean;
  /** Run the Job controller (pods for each Job, until it completes or fails). Default true. */
  jobController?: boolean;
  /** Delay before a Job's failed pod is replaced, doubled per failure, capped at 6 min. Default 10000 ms,
   * as kube-controller-manager. */
  jobBackoffMs?: number;
  /** Where unexpected errors go (404/409 are handled, not reported). Default: one line on stderr. */
  onError?: ErrorReporter;
}

export const defaultControllerOptions = {
  nodes: 3,
  nodeNamePrefix: 'sim-node-',
  kubeletVersion: 'v1.32.0',
  podLifecycle: 'kubelet' as PodLifecycleMode,
  schedulerBindMs: 20,
  kubeletRelistMs: 1000,
  kubeletStatusWriteMs: 40,
  startupDelayMs: 200,
  startupJitterMs: 600,
  failFraction: 0,
  neverReadyFraction: 0,
  containerExitMs: 300,
  succeedAfterMs: 1000,
  crashLoopBackoffMs: 10_000,
  seed: undefined as number | undefined,
  podEvents: true,
  garbageCollector: true,
  namespaceController: true,
  namespaceRecheckMs: 1000,
  namespaceDeletionDelayMs: 5000,
  serviceAccountController: true,
  replicationController: true,
  resourceQuotaController: true,
  replicaSetController: true,
  deploymentController: true,
  statefulSetController: true,
  jobController: true,
  jobBackoffMs: 10_000,
  onError: defaultErrorReporter,
} satisfies Required<Omit<ControllerOptions, 'seed'>> & { seed: number | undefined };

export type ResolvedControllerOptions = typeof defaultControllerOptions;

/** Fills in defaults and validates; throws an Error naming the offending option. */
export function resolveControllerOptions(options: ControllerOptions = {}): ResolvedControllerOptions {
  const o: ResolvedControllerOptions = { ...defaultControllerOptions };
  for (const [k, v] of Object.entries(options)) {
    if (!(k in defaultControllerOptions)) {
      throw new Error(
        `kube-sim controllers: unknown option ${k} (known: ${Object.keys(defaultControllerOptions).join(', ')})`,
      );
    }
    if (v !== undefined) (o as Record<string, unknown>)[k] = v;
  }
  o.podLifecycle = lifecycleMode(o.podLifecycle as unknown);
  for (const name of [
    'garbageCollector',
    'namespaceController',
    'serviceAccountController',
    'replicationController',
    'resourceQuotaController',
    'replicaSetController',
    'deploymentController',
    'statefulSetController',
    'jobController',
    'podEvents',
  ] as const) {
    if (typeof o[name] !== 'boolean')
      throw new Error(`kube-sim controllers: option ${name} must be a boolean, got ${String(o[name])}`);
  }
  if (typeof o.onError !== 'function')
    throw new Error('kube-sim controllers: option onError must be a function');
  const nonNegative = (name: keyof ResolvedControllerOptions, integer = false): void => {
    const v = o[name];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (integer && !Number.isInteger(v))) {
      throw new Error(
        `kube-sim controllers: option ${name} must be a non-negative ${integer ? 'integer' : 'number'}, got ${String(v)}`,
      );
    }
  };
  nonNegative('nodes', true);
  nonNegative('schedulerBindMs');
  nonNegative('kubeletRelistMs');
  nonNegative('kubeletStatusWriteMs');
  nonNegative('startupDelayMs');
  nonNegative('startupJitterMs');
  nonNegative('containerExitMs');
  nonNegative('succeedAfterMs');
  nonNegative('crashLoopBackoffMs');
  nonNegative('namespaceRecheckMs');
  nonNegative('namespaceDeletionDelayMs');
  nonNegative('jobBackoffMs');
  // A back-off of 0 would restart (and write) a crash-looping pod in a tight loop.
  if (o.crashLoopBackoffMs < 10)
    throw new Error('kube-sim controllers: option crashLoopBackoffMs must be ≥ 10');
  if (o.namespaceRecheckMs < 10)
    throw new Error('kube-sim controllers: option namespaceRecheckMs must be ≥ 10');
  for (const name of ['failFraction', 'neverReadyFraction'] as const) {
    const v = o[name];
    if (typeof v !== 'number' || !(v >= 0 && v <= 1)) {
      throw new Error(`kube-sim controllers: option ${name} must be a number in [0, 1], got ${String(v)}`);
    }
  }
  if (o.failFraction + o.neverReadyFraction > 1) {
    throw new Error('kube-sim controllers: failFraction + neverReadyFraction must not exceed 1');
  }
  if (o.seed !== undefined && !Number.isInteger(o.seed)) {
    throw new Error(`kube-sim controllers: option seed must be an integer, got ${String(o.seed)}`);
  }
  return o;
}

/** The lifecycle an option value names (true and false are the old spelling of kubelet and off). */
function lifecycleMode(v: unknown): PodLifecycleMode {
  if (v === true) return 'kubelet';
  if (v === false) return 'off';
  if (typeof v === 'string' && (POD_LIFECYCLE_MODES as readonly string[]).includes(v))
    return v as PodLifecycleMode;
  throw new Error(
    `kube-sim controllers: option podLifecycle must be one of ${POD_LIFECYCLE_MODES.join(', ')}, got ${String(v)}`,
  );
}

/** The pod-lifecycle options that may be changed while running (`Controllers.configure`). */
export type RuntimeControllerOptions = Pick<
  ControllerOptions,
  | 'startupDelayMs'
  | 'startupJitterMs'
  | 'schedulerBindMs'
  | 'kubeletRelistMs'
  | 'kubeletStatusWriteMs'
  | 'failFraction'
  | 'neverReadyFraction'
  | 'containerExitMs'
  | 'succeedAfterMs'
  | 'crashLoopBackoffMs'
  | 'podEvents'
>;
const RUNTIME_OPTIONS: readonly string[] = [
  'schedulerBindMs',
  'kubeletRelistMs',
  'kubeletStatusWriteMs',
  'startupDelayMs',
  'startupJitterMs',
  'failFraction',
  'neverReadyFraction',
  'containerExitMs',
  'succeedAfterMs',
  'crashLoopBackoffMs',
  'podEvents',
];

export interface Controllers {
  /** Unsubscribes and cancels every timer; idempotent. */
  stop(): void;
  /**
   * Changes pod-lifecycle options at run time (e.g. a chaos test raising failFraction); applies to pods
   * scheduled (fate, delay) or deleted (exit time) from now on. Validated like the start options.
   */
  configure(changes: RuntimeControllerOptions): void;
  /** The options in force (defaults filled in). */
  options(): Readonly<ResolvedControllerOptions>;
}

/** The quota and workload controllers the options turn on, each one's stop pushed onto `stops`. */
function startWorkloadControllers(
  cluster: ClusterAccess,
  o: ResolvedControllerOptions,
  stops: (() => void)[],
): void {
  if (o.replicationController) {
    const c = startReplicationController(cluster, o.onError);
    stops.push(() => c.stop());
  }
  if (o.resourceQuotaController) {
    const c = startResourceQuotaController(cluster, o.onError);
    stops.push(() => c.stop());
  }
  if (o.replicaSetController) {
    const c = startReplicaSetController(cluster, o.onError);
    stops.push(() => c.stop());
  }
  if (o.deploymentController) {
    const c = startDeploymentController(cluster, o.onError);
    stops.push(() => c.stop());
  }
  if (o.statefulSetController) {
    const c = startStatefulSetController(cluster, o.onError);
    stops.push(() => c.stop());
  }
  if (o.jobController) {
    const c = startJobController(cluster, { backoffMs: o.jobBackoffMs }, o.onError);
    stops.push(() => c.stop());
  }
}

/**
 * Starts the controllers against a store. Nodes are created synchronously before this returns; the other
 * controllers start from a full list and then follow the store's events. `stop()` unsubscribes and cancels
 * every timer (pods keep whatever state they had).
 */
export function startControllers(cluster: ClusterAccess, options: ControllerOptions = {}): Controllers {
  const o = resolveControllerOptions(options);
  const stops: (() => void)[] = [];
  try {
    if (o.nodes > 0) {
      ensureNodes(cluster, {
        count: o.nodes,
        namePrefix: o.nodeNamePrefix,
        kubeletVersion: o.kubeletVersion,
      });
    }
    if (o.podLifecycle !== 'off') {
      const c = startPodLifecycle(cluster, o, o.onError);
      stops.push(() => c.stop());
    }
    if (o.garbageCollector) {
      const c = startGarbageCollector(cluster, o.onError);
      stops.push(() => c.stop());
    }
    if (o.namespaceController) {
      const c = startNamespaceController(
        cluster,
        { recheckMs: o.namespaceRecheckMs, deletionDelayMs: o.namespaceDeletionDelayMs },
        o.onError,
      );
      stops.push(() => c.stop());
    }
    if (o.serviceAccountController) {
      const c = startServiceAccountController(cluster, o.onError);
      stops.push(() => c.stop());
    }
    startWorkloadControllers(cluster, o, stops);
  } catch (err) {
    for (const s of stops) s();
    throw err;
  }
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      for (const s of stops.reverse()) s();
    },
    configure(changes) {
      for (const k of Object.keys(changes)) {
        if (!RUNTIME_OPTIONS.includes(k))
          throw new Error(`kube-sim controllers: option ${k} cannot be changed at run time`);
      }
      const { onError: _onError, ...current } = o;
      const next = resolveControllerOptions({ ...current, onError: o.onError, ...changes });
      // The pod-lifecycle controller reads `o` on every decision: update it in place.
      Object.assign(o, next);
    },
    options() {
      return { ...o };
    },
  };
}
