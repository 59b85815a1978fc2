// What the simulated scheduler and kubelet read off a pod and the status documents they write:
// pure functions of the pod and the moment (no timers, no API calls), so each transition can be
// read and tested on its own.
import { createHash } from 'node:crypto';
import type { Json, JsonObject, KubeObject } from '../apimachinery/types.ts';

export type PodFate = 'ready' | 'fail' | 'never-ready' | 'succeed';

type Obj = { [k: string]: Json | undefined };

export function field<T>(o: unknown, key: string): T | undefined {
  return o !== null && typeof o === 'object' ? ((o as Obj)[key] as T | undefined) : undefined;
}

export function annotation(pod: KubeObject, key: string): string | undefined {
  return pod.metadata.annotations?.[key];
}

export function numberAnnotation(pod: KubeObject, key: string): number | undefined {
  const v = annotation(pod, key);
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

export function phaseOf(pod: KubeObject): string | undefined {
  return field<string>(pod.status, 'phase');
}

export function isTerminal(pod: KubeObject): boolean {
  const p = phaseOf(pod);
  return p === 'Succeeded' || p === 'Failed';
}

export interface ContainerSpec {
  name: string;
  image?: string;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

export function containersOf(pod: KubeObject, key: 'containers' | 'initContainers'): ContainerSpec[] {
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

/** No node to run on: Pending, PodScheduled=False. Undefined when the pod already says so. */
export function unschedulableStatus(p: KubeObject, nodeCount: number, now: string): JsonObject | undefined {
  const status = (p.status ?? {}) as JsonObject;
  const conditions = mergeConditions(status.conditions, [
    podCondition('PodScheduled', false, now, 'Unschedulable', `0/${nodeCount} nodes are available.`),
  ]);
  if (status.phase === 'Pending' && JSON.stringify(status.conditions) === JSON.stringify(conditions)) {
    return undefined;
  }
  return { ...status, phase: 'Pending', conditions };
}

/** Accepted by the kubelet: Pending, containers waiting in ContainerCreating. */
export function pendingStatus(p: KubeObject, hostIP: string, now: string): JsonObject {
  const status = (p.status ?? {}) as JsonObject;
  const notReady = `containers with unready status: [${containersOf(p, 'containers')
    .map((c) => c.name)
    .join(' ')}]`;
  return {
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
      state: { waiting: { reason: 'ContainerCreating' } },
      lastState: {},
    })),
  };
}

/**
 * After the startup delay: Running (Ready or not), or Failed with exit code 1, as `fate` says. `probing`:
 * the containers run and have started but a readinessProbe has yet to pass (Ready comes with readyStatus).
 */
export function startedStatus(
  p: KubeObject,
  started: { uid: string; fate: PodFate; ip: string; now: string; probing?: boolean },
): JsonObject {
  const { uid, fate, ip, now } = started;
  const status = (p.status ?? {}) as JsonObject;
  const names = containersOf(p, 'containers').map((c) => c.name);
  const failed = fate === 'fail';
  const ready = (fate === 'ready' || fate === 'succeed') && started.probing !== true;
  const cid = (i: number) => `containerd://${uid.replace(/-/g, '')}${i.toString(16).padStart(32, '0')}`;
  const notReadyMsg = `containers with unready status: [${names.join(' ')}]`;
  const readiness = (type: string) =>
    ready
      ? podCondition(type, true, now)
      : podCondition(
          type,
          false,
          now,
          failed ? 'PodFailed' : 'ContainersNotReady',
          failed ? undefined : notReadyMsg,
        );
  const terminated = (exitCode: number, reason: string, containerID: string) => ({
    terminated: { exitCode, reason, startedAt: now, finishedAt: now, containerID },
  });
  const next: JsonObject = {
    ...status,
    phase: failed ? 'Failed' : 'Running',
    podIP: ip,
    podIPs: [{ ip }],
    startTime: (status.startTime as string | undefined) ?? now,
    conditions: mergeConditions(status.conditions, [
      podCondition('PodReadyToStartContainers', !failed, now),
      podCondition('Initialized', true, now),
      readiness('Ready'),
      readiness('ContainersReady'),
      podCondition('PodScheduled', true, now),
    ]),
    containerStatuses: containersOf(p, 'containers').map((c, i) => ({
      name: c.name,
      ...normalizeImage(c.image),
      containerID: cid(i + 1),
      ready,
      started: !failed,
      restartCount: 0,
      state: failed ? terminated(1, 'Error', cid(i + 1)) : { running: { startedAt: now } },
      lastState: {},
    })),
  };
  const inits = containersOf(p, 'initContainers');
  if (inits.length) {
    next.initContainerStatuses = inits.map((c, i) => ({
      name: c.name,
      ...normalizeImage(c.image),
      containerID: cid(1000 + i),
      ready: true,
      started: false,
      restartCount: 0,
      state: terminated(0, 'Completed', cid(1000 + i)),
      lastState: {},
    }));
  }
  return next;
}

/** A running pod's readinessProbe passed: Ready and ContainersReady True, every container ready. */
export function readyStatus(p: KubeObject, now: string): JsonObject {
  const status = (p.status ?? {}) as JsonObject;
  const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as JsonObject[];
  const statuses = (Array.isArray(status.containerStatuses) ? status.containerStatuses : []) as JsonObject[];
  return {
    ...status,
    conditions: mergeConditions(
      conditions,
      conditions.map((c) =>
        c.type === 'Ready' || c.type === 'ContainersReady' ? podCondition(String(c.type), true, now) : c,
      ),
    ),
    containerStatuses: statuses.map((c) => ({ ...c, ready: true })),
  };
}

/** A pod of fate `succeed` ran its course: Succeeded, every container terminated with exit code 0. */
export function succeededStatus(p: KubeObject, now: string): JsonObject {
  const status = (p.status ?? {}) as JsonObject;
  return {
    ...status,
    phase: 'Succeeded',
    conditions: mergeConditions(status.conditions, [
      podCondition('PodReadyToStartContainers', false, now),
      podCondition('Initialized', true, now, 'PodCompleted'),
      podCondition('Ready', false, now, 'PodCompleted'),
      podCondition('ContainersReady', false, now, 'PodCompleted'),
      podCondition('PodScheduled', true, now),
    ]),
    containerStatuses: (Array.isArray(status.containerStatuses) ? status.containerStatuses : []).map((cs) => {
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
    }),
  };
}

/** Whether the kubelet restarts the pod's containers when they fail: restartPolicy Always (the default) or OnFailure. */
export function restartsOnFailure(pod: KubeObject): boolean {
  return field<string>(pod.spec, 'restartPolicy') !== 'Never';
}

/** The kubelet's crash-loop back-off before the `restarts`-th restart but one: 1, 2, 4, … × base, capped at 30 × base. */
export function crashLoopBackoffMs(baseMs: number, restarts: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, restarts - 1), baseMs * 30);
}

/** A duration as Go's time.Duration prints it, whole milliseconds (`500ms`, `10s`, `1m20s`, `5m0s`). */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const totalS = ms / 1000;
  const m = Math.floor(totalS / 60);
  const s = Number((totalS - m * 60).toFixed(3));
  return m > 0 ? `${m}m${s}s` : `${s}s`;
}

/**
 * A pod whose containers fail (exit code 1) and are restarted (restartPolicy Always or OnFailure), as the
 * kubelet reports it: phase Running (never Failed), Ready and ContainersReady False, `restarts` in each
 * container's restartCount. With `backoffMs` undefined the containers have just exited (`state.terminated`,
 * reason Error: the first crash); else they wait in `CrashLoopBackOff` for that long, the last exit in
 * `lastState.terminated`.
 */
export function crashLoopStatus(
  p: KubeObject,
  crash: { uid: string; ip: string; now: string; restarts: number; backoffMs: number | undefined },
): JsonObject {
  const { uid, ip, now, restarts, backoffMs } = crash;
  const status = (p.status ?? {}) as JsonObject;
  const names = containersOf(p, 'containers').map((c) => c.name);
  const notReadyMsg = `containers with unready status: [${names.join(' ')}]`;
  const cid = (i: number) =>
    `containerd://${uid.replace(/-/g, '')}${(restarts * 256 + i).toString(16).padStart(32, '0')}`;
  const exited = (i: number) => ({
    terminated: { exitCode: 1, reason: 'Error', startedAt: now, finishedAt: now, containerID: cid(i) },
  });
  const podRef = `${p.metadata.name ?? ''}_${p.metadata.namespace ?? ''}(${uid})`;
  return {
    ...status,
    phase: 'Running',
    podIP: ip,
    podIPs: [{ ip }],
    startTime: (status.startTime as string | undefined) ?? now,
    conditions: mergeConditions(status.conditions, [
      podCondition('PodReadyToStartContainers', true, now),
      podCondition('Initialized', true, now),
      podCondition('Ready', false, now, 'ContainersNotReady', notReadyMsg),
      podCondition('ContainersReady', false, now, 'ContainersNotReady', notReadyMsg),
      podCondition('PodScheduled', true, now),
    ]),
    containerStatuses: containersOf(p, 'containers').map((c, i) => ({
      name: c.name,
      ...normalizeImage(c.image),
      containerID: cid(i + 1),
      ready: false,
      started: false,
      restartCount: restarts,
      state:
        backoffMs === undefined
          ? exited(i + 1)
          : {
              waiting: {
                reason: 'CrashLoopBackOff',
                message: `back-off ${goDuration(backoffMs)} restarting failed container=${c.name} pod=${podRef}`,
              },
            },
      lastState: backoffMs === undefined ? {} : exited(i + 1),
    })),
  };
}
