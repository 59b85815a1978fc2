// Where a reconcile's state comes from: the one interface the controller plans through. It reads a
// key's state (the PodSet and the pods it controls, or "wait": planning now could create or delete
// twice) and is told of the reconcile's own writes, so that the next read shows them or waits for them.
// Two implementations, chosen once at start-up (openStateSource):
//   api-state.ts         GET the PodSet and a consistent LIST of its pods, every time
//   projection-state.ts  the watcher's per-PodSet state in Redis, with expectations of our own writes;
//                        the API when the projection is not complete, or after a 409
import type { Kube, Pod, PodSetWire } from '@podset/kube';
import type { RedisClient } from '@podset/queue';
import { parseKey } from '@podset/reconcile';
import type { EntryTags, OutOfBoundsValue } from '@podset/state';
import { apiState } from './api-state.ts';
import { projectionState, redisProjection, type RefusedEntry } from './projection-state.ts';

/** A PodSet's queue key, parsed once. */
export interface PodSetRef {
  key: string;
  namespace: string;
  name: string;
}

/** A queue key as a PodSetRef; throws unless it is exactly "namespace/name" (libs/reconcile's rule). */
export function podSetRef(key: string): PodSetRef {
  const parsed = parseKey(key);
  if (parsed === undefined) throw new Error(`key ${JSON.stringify(key)} is not "namespace/name"`);
  return { key, ...parsed };
}

/** What a read found. */
export type KeyState =
  | {
      kind: 'found';
      podset: PodSetWire;
      /** The pods it controls (by owner UID), read when first asked (a parked key never asks). */
      pods(): Promise<Pod[]>;
    }
  | { kind: 'gone' }
  /** Not safe to plan yet (our own last writes do not show): look again after `afterMs`. */
  | { kind: 'wait'; reason: string; /** For the log. */ message: string; afterMs: number };

export interface StateSource {
  read(ref: PodSetRef, signal?: AbortSignal): Promise<KeyState>;
  /** Pods this reconcile created: a later read shows them, or waits until it does. */
  created(key: string, names: readonly string[]): Promise<void>;
  /** Pods this reconcile deleted (or saw already deleting): a later read no longer counts them, or waits. */
  deleted(key: string, names: readonly string[]): Promise<void>;
  /** Our own write of the PodSet: the next read returns it, so a write against it meets no stale 409. */
  wrote(key: string, podset: PodSetWire): Promise<void>;
  /** Our write of the PodSet met a 409: what we read was behind; the next read must be the API's. */
  conflicted(key: string): void;
  /** A deleted PodSet's state kept for it (its finalizer is about to go). Resolves to what was removed. */
  forget(key: string): Promise<number>;
}

/** STATE_SOURCE: where the workers read a key's state. */
export type StateSourceKind = 'api' | 'projection';

/**
 * The one place that chooses: at start-up, from STATE_SOURCE. The projection is read only with `tags`
 * (PROJECTION_HMAC_KEY): without a key nothing read from Redis could be checked, so every key is read
 * from the API (the caller says so in its log).
 */
export function openStateSource(
  kind: StateSourceKind,
  deps: {
    kube: Kube;
    redis: RedisClient;
    prefix: string;
    queueName: string;
    tags: EntryTags | undefined;
    refused: (entry: RefusedEntry) => void;
    /** Told of expectations and epoch counters out of bounds (ignored; see out-of-bounds.ts). */
    outOfBounds?: (value: OutOfBoundsValue) => void;
  },
): StateSource {
  const api = apiState(deps.kube);
  if (kind === 'api' || deps.tags === undefined) return api;
  return projectionState(redisProjection({ ...deps, tags: deps.tags }), api, deps.refused);
}
