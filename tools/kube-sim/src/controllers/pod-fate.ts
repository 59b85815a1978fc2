// What becomes of a pod, read off its annotations and spec: its fate (ready, fail, never-ready, succeed),
// how long it takes to start and how long its containers take to stop once deleted. Pure functions of the
// pod, the options and a random source, shared by kube-sim's simulated kubelet (pods.ts) and the node agent
// (tools/node-agent), so that a pod annotated for one behaves the same under both.
import type { KubeObject } from '../apimachinery/types.ts';
import { annotation, field, isTerminal, numberAnnotation, type PodFate } from './pod-status.ts';

export const FATE_ANNOTATION = 'kube-sim.podset.io/fate';
export const STARTUP_DELAY_ANNOTATION = 'kube-sim.podset.io/startup-delay-ms';
export const EXIT_DELAY_ANNOTATION = 'kube-sim.podset.io/exit-delay-ms';

export const FATES: readonly PodFate[] = ['ready', 'fail', 'never-ready', 'succeed'];

export interface FateOptions {
  /** Fraction (0..1) of unannotated pods that fail. */
  failFraction: number;
  /** Fraction (0..1) of unannotated pods that run but never become Ready. */
  neverReadyFraction: number;
}

export interface StartupOptions {
  startupDelayMs: number;
  /** Extra delay, uniform in [0, startupJitterMs]. */
  startupJitterMs: number;
}

/**
 * The annotation's fate when it names one; else `fail` or `never-ready` by the fractions; else `succeed`
 * for a pod that is not restarted when it exits (restartPolicy Never or OnFailure: a Job's) and `ready`.
 */
export function chooseFate(pod: KubeObject, options: FateOptions, random: () => number): PodFate {
  const pinned = annotation(pod, FATE_ANNOTATION);
  if (pinned !== undefined && (FATES as readonly string[]).includes(pinned)) return pinned as PodFate;
  const r = random();
  if (r < options.failFraction) return 'fail';
  if (r < options.failFraction + options.neverReadyFraction) return 'never-ready';
  const restartPolicy = field<string>(pod.spec, 'restartPolicy');
  return restartPolicy === 'Never' || restartPolicy === 'OnFailure' ? 'succeed' : 'ready';
}

/** Pending → Running/Failed delay in ms: the annotation's, else the delay plus a random jitter. */
export function startupDelayOf(pod: KubeObject, options: StartupOptions, random: () => number): number {
  const pinned = numberAnnotation(pod, STARTUP_DELAY_ANNOTATION);
  if (pinned !== undefined) return pinned;
  return options.startupDelayMs + Math.floor(random() * (options.startupJitterMs + 1));
}

/**
 * How long after its deletion a pod is removed, in ms: the time its containers take to stop (the
 * annotation's, else `containerExitMs` for a pod running on a node, else none), never longer than its
 * grace period, as a kubelet kills what has not stopped by then.
 */
export function removalDelayOf(pod: KubeObject, containerExitMs: number): number {
  const graceMs = Math.max(0, (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000);
  const running = !!field<string>(pod.spec, 'nodeName') && !isTerminal(pod);
  const exitMs = numberAnnotation(pod, EXIT_DELAY_ANNOTATION) ?? (running ? containerExitMs : 0);
  return Math.min(graceMs, exitMs);
}

/** How pods are brought to life: a kubelet's sequence and pace, the fast two steps, or not at all. */
export type PodLifecycleMode = 'kubelet' | 'fast' | 'off';
export const POD_LIFECYCLE_MODES: readonly PodLifecycleMode[] = ['kubelet', 'fast', 'off'];

/**
 * Time from the containers' start to their readiness, in ms, when a container has a readinessProbe: its
 * initialDelaySeconds (the largest of them: the pod is ready when every container is), as a kubelet's probe
 * worker waits that long before the first probe. Undefined without a readinessProbe: a kubelet counts such
 * a container ready as soon as it runs, so Running and Ready arrive in one status write.
 */
export function readinessDelayOf(pod: KubeObject): number | undefined {
  const containers = field<unknown[]>(pod.spec, 'containers');
  if (!Array.isArray(containers)) return undefined;
  let delay: number | undefined;
  for (const c of containers) {
    const probe = field<unknown>(c, 'readinessProbe');
    if (probe === undefined || probe === null) continue;
    const seconds = field<number>(probe, 'initialDelaySeconds');
    const ms = typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
    delay = Math.max(delay ?? 0, ms);
  }
  return delay;
}

/**
 * The first relist of a node's pod lifecycle event generator at or after `at`: a kubelet notices that a
 * container started only when it relists (every `periodMs`, from the node's own `phaseMs`), so the starts
 * on one node are reported at its ticks, and nodes tick at different moments.
 */
export function nextRelistAt(at: number, phaseMs: number, periodMs: number): number {
  if (periodMs <= 0) return at;
  const since = at - phaseMs;
  return phaseMs + Math.ceil(since / periodMs) * periodMs;
}
