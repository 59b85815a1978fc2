// How long a status-only change's request waits (a pod's phase or readiness moved, nothing a plan acts on),
// judged from what the change means for its PodSet. The leader remembers, as an informer cache would, each
// pod's PodSet and readiness and each PodSet's replicas and whether its status says a rollout is under way:
// - the PodSet's pods are all ready (no active unready pod of it remembered, and as many ready as its
//   replicas when known): due at once — that is the status users and `kubectl wait` wait for;
// - its rollout is under way: the short window (each rollout step waits on new pods' readiness);
// - otherwise (a scale's pods coming ready one after another): the long window, so that their readiness
//   costs fewer passes and status writes while `kubectl get ps` still climbs.
// The memory is a hint only: after a restart, a relist or a missed event it may be wrong, which costs an
// extra reconcile (due at once too early) or a delay of at most the long window, never a request.
import {
  getCondition,
  isPodReady,
  podLifecycle,
  wasRollingOut,
  type Pod,
  type PodSetStatus,
} from '@podset/reconcile';
import type { BatchWindows, StreamInfo } from './change-gate.ts';
import { keyFor, objectId, type Resource, type WatchedObject } from './keys.ts';

export interface StatusWindowsOptions {
  /** STATUS_COLLAPSE_MS: a rolling-out PodSet's window (0: every status-only change at once). */
  shortMs: number;
  /** STATUS_COLLAPSE_PARTIAL_MS: the window of a PodSet whose pods are not all ready and not rolling out. */
  partialMs: number;
}

/** The window of `key` in `w`. */
export function windowOf(w: BatchWindows, key: string): number {
  return w.exceptions.get(key) ?? w.defaultMs;
}

interface PodSetSeen {
  replicas: number | undefined;
  rollingOut: boolean;
}

/**
 * One PodSet's active pods as the memory counts them. A remembered pod points at one of its two sides, so
 * that a pod costs the memory its id and a map entry alone, no object or key string of its own (~80 bytes a
 * pod fewer: 8 MiB of the watcher's heap at 100,000 pods).
 */
class Tally {
  readonly key: string;
  unready = 0;
  ready = 0;
  readonly readySide: Side = { tally: this, ready: true };
  readonly unreadySide: Side = { tally: this, ready: false };

  constructor(key: string) {
    this.key = key;
  }
}

interface Side {
  tally: Tally;
  ready: boolean;
}

export class StatusWindows {
  readonly #o: StatusWindowsOptions;
  /** Active pods (not terminating, not finished) by `namespace/name`: the pods a tally counts. */
  readonly #pods = new Map<string, Side>();
  readonly #tally = new Map<string, Tally>();
  readonly #podsets = new Map<string, PodSetSeen>();
  /** Per stream being relisted: the ids its pages listed (what it did not list went unwatched). */
  readonly #relisting = new Map<string, Set<string>>();

  constructor(o: StatusWindowsOptions) {
    this.#o = o;
  }

  /** Remembers a watch event's object (call it for every event, in order). */
  seen(resource: Resource, type: string, obj: WatchedObject): void {
    if (resource === 'pods') this.#pod(type, obj);
    else this.#podset(type, obj);
  }

  /** How long a status-only change of `key`'s pods waits, as the memory has it now. */
  windowMs(key: string): number {
    if (this.#o.shortMs === 0) return 0;
    const t = this.#tally.get(key);
    const replicas = this.#podsets.get(key)?.replicas;
    if ((t?.unready ?? 0) === 0 && (replicas === undefined || (t?.ready ?? 0) >= replicas)) return 0;
    return this.#podsets.get(key)?.rollingOut === true ? this.#o.shortMs : this.#o.partialMs;
  }

  /** The windows of `keys` (a batch's), for the fold's cover rule and the requests alike. */
  windows(keys: Iterable<string>): BatchWindows {
    const defaultMs = this.#o.shortMs === 0 ? 0 : this.#o.partialMs;
    const exceptions = new Map<string, number>();
    for (const key of keys) {
      const ms = this.windowMs(key);
      if (ms !== defaultMs) exceptions.set(key, ms);
    }
    return { defaultMs, exceptions };
  }

  relistStarted(stream: string): void {
    this.#relisting.set(stream, new Set());
  }

  /** A relisted page: its objects remembered as they are now. */
  listed(stream: string, resource: Resource, objects: readonly WatchedObject[]): void {
    const listed = this.#relisting.get(stream);
    for (const obj of objects) {
      this.seen(resource, 'ADDED', obj);
      listed?.add(objectId(obj));
    }
  }

  /** A relist completed: what it did not list (in its namespace, or anywhere) is forgotten. */
  relistDone({ stream, resource, namespace }: StreamInfo): void {
    const listed = this.#relisting.get(stream);
    this.#relisting.delete(stream);
    if (listed === undefined) return;
    const ids = resource === 'pods' ? [...this.#pods.keys()] : [...this.#podsets.keys()];
    for (const id of ids) {
      if (namespace !== undefined && !id.startsWith(`${namespace}/`)) continue;
      if (listed.has(id)) continue;
      if (resource === 'pods') this.#dropPod(id);
      else this.#podsets.delete(id);
    }
  }

  /** Pods remembered (for tests). */
  get size(): number {
    return this.#pods.size;
  }

  #pod(type: string, obj: WatchedObject): void {
    const id = objectId(obj);
    const key = keyFor('pods', obj);
    if (type === 'DELETED' || key === undefined || podLifecycle(obj as Pod) !== 'active') {
      this.#dropPod(id);
      return;
    }
    let t = this.#tally.get(key);
    if (t === undefined) this.#tally.set(key, (t = new Tally(key)));
    const side = isPodReady(obj as Pod) ? t.readySide : t.unreadySide;
    // Counted on its new side before it leaves the old one, so its tally is not dropped and made anew.
    if (side.ready) t.ready++;
    else t.unready++;
    const before = this.#pods.get(id);
    this.#pods.set(id, side);
    if (before !== undefined) this.#uncount(before);
  }

  #dropPod(id: string): void {
    const side = this.#pods.get(id);
    if (side === undefined) return;
    this.#pods.delete(id);
    this.#uncount(side);
  }

  #uncount(side: Side): void {
    const t = side.tally;
    if (side.ready) t.ready--;
    else t.unready--;
    if (t.unready === 0 && t.ready === 0) this.#tally.delete(t.key);
  }

  #podset(type: string, obj: WatchedObject): void {
    const key = keyFor('podsets', obj);
    if (key === undefined) return;
    if (type === 'DELETED') {
      this.#podsets.delete(key);
      return;
    }
    const ps = obj as { spec?: { replicas?: number }; status?: PodSetStatus };
    const replicas = ps.spec?.replicas;
    this.#podsets.set(key, {
      replicas: typeof replicas === 'number' ? replicas : undefined,
      rollingOut: wasRollingOut(getCondition(ps.status, 'Progressing')),
    });
  }
}
