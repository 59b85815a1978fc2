// The random schedule of a chaos run (user changes and faults, from the seed alone) and the faults kube-sim
// injects all through the chaos window.
import { seededRandom, type KubeObject } from '@podset/kube-sim';
import type { ChaosOptions } from './options.ts';

/** What kube-sim injects during the chaos window. */
export const API_FAULTS = {
  errors: [
    ...['create', 'update', 'patch', 'delete'].flatMap((verb) => [
      { verb, code: 500, rate: 0.05 },
      { verb, code: 409, rate: 0.02, message: 'injected fault: the object has been modified' },
    ]),
    { code: 429, rate: 0.01, retryAfterSeconds: 1 },
  ],
  latencyMs: 50,
  watchCutAfterSeconds: 10,
};

/** The schedule's seeded PRNG: kube-sim's mulberry32, so one seed means one sequence everywhere. */
export const prng = seededRandom;

export type Change =
  | { at: number; kind: 'scale'; ps: number; replicas: number }
  /** A new image (a new template): the PodSet rolls its pods. */
  | { at: number; kind: 'template'; ps: number; image: number }
  | { at: number; kind: 'delete-pod'; ps: number; pick: number }
  | { at: number; kind: 'recreate'; ps: number; replicas: number };

export type Fault =
  | { at: number; kind: 'kill-worker'; worker: number }
  | { at: number; kind: 'kill-leader' }
  | { at: number; kind: 'redis-restart-aof' }
  | { at: number; kind: 'redis-restart-empty' }
  | { at: number; kind: 'api-restart' }
  | { at: number; kind: 'stall-watches' }
  /** Redis killed and started from its AOF as it was a second before: its last second of writes lost. */
  | { at: number; kind: 'redis-restart-lose-last-second' }
  /** A copy of kube-sim's data dir (etcd's), to restore later. */
  | { at: number; kind: 'etcd-backup' }
  /** kube-sim restarted from that copy: the cluster goes back in time (resourceVersions go back). */
  | { at: number; kind: 'etcd-restore' };

export interface Schedule {
  initialReplicas: number[];
  changes: Change[];
  faults: Fault[];
}

/** The whole random schedule, from the seed alone. Times are ms from the start of the chaos window. */
export function makeSchedule(o: ChaosOptions): Schedule {
  const rnd = prng(o.seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const initialReplicas = Array.from({ length: o.podSets }, () => int(21));
  const windowMs = o.chaosSeconds * 1000;
  const changes: Change[] = [];
  const n = Math.round(o.chaosSeconds * o.changesPerSecond);
  for (let i = 0; i < n; i++) {
    const at = Math.floor((i / n) * windowMs + rnd() * (windowMs / n));
    const ps = int(o.podSets);
    const r = rnd();
    if (r < 0.35) changes.push({ at, kind: 'scale', ps, replicas: int(21) });
    else if (r < 0.55) changes.push({ at, kind: 'template', ps, image: int(1000) });
    else if (r < 0.85) changes.push({ at, kind: 'delete-pod', ps, pick: rnd() });
    else changes.push({ at, kind: 'recreate', ps, replicas: int(21) });
  }
  const faults: Fault[] = [];
  for (let t = o.workerKillEverySeconds * 1000; t < windowMs; t += o.workerKillEverySeconds * 1000) {
    faults.push({ at: t, kind: 'kill-worker', worker: int(o.workers) });
  }
  faults.push({ at: Math.floor(windowMs * 0.25), kind: 'kill-leader' });
  faults.push({ at: Math.floor(windowMs * 0.4), kind: 'redis-restart-aof' });
  faults.push({ at: Math.floor(windowMs * 0.55), kind: 'api-restart' });
  faults.push({ at: Math.floor(windowMs * 0.65), kind: 'kill-leader' });
  // Every open watch goes silent: the watcher's view (and the projection) lags while workers go on,
  // until a watch cut ends it or it outlives its timeout by the stall grace, and it re-watches.
  faults.push({ at: Math.floor(windowMs * 0.5), kind: 'stall-watches' });
  faults.push({ at: Math.floor(windowMs * 0.8), kind: 'redis-restart-empty' });
  faults.push({ at: Math.floor(windowMs * 0.45), kind: 'redis-restart-lose-last-second' });
  faults.push({ at: Math.floor(windowMs * 0.3), kind: 'etcd-backup' });
  faults.push({ at: Math.floor(windowMs * 0.7), kind: 'etcd-restore' });
  faults.sort((a, b) => a.at - b.at);
  return { initialReplicas, changes, faults };
}

export function podSetObject(name: string, namespace: string, replicas: number): KubeObject {
  return {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name, namespace },
    spec: {
      replicas,
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }] },
      },
    },
  } as unknown as KubeObject;
}
