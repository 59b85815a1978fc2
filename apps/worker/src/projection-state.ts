// The state source that reads the watcher's projection: the key's PodSet and pods, folded from the watch
// events into Redis, in one round trip and no API read. Two guards make it as safe as a fresh LIST:
// - expectations: the names of the pods this worker created or deleted stay pending until the projection
//   shows them (or 5 minutes pass); while any is pending the read says "wait" — planning on a projection
//   that does not show our own creates would create them again;
// - the API instead, when the projection is not complete yet (no relist folded), and for the read after a
//   409 (what we wrote against was behind: maybe the projection is).
// Its own writes of the PodSet (finalizer, status) it keeps in memory, not in the projection: its Redis
// user may only read projected PodSets (SECURITY.md). The next read of the key plans from the PodSet it
// wrote while the projection still shows the one that write replaced.
import type { Pod, PodSetWire } from '@podset/kube';
import { Projection, type ProjectedState, type RedisClient } from '@podset/state';
import { controlledPods } from '@podset/reconcile';
import type { StateSource } from './state-source.ts';

/** What this source uses of libs/state's Projection. */
export interface StateProjection {
  /** Undefined while the projection is not complete. */
  read(key: string): Promise<ProjectedState | undefined>;
  expect(key: string, what: 'create' | 'delete', names: readonly string[]): Promise<number>;
  forget(key: string): Promise<number>;
}

/** A reconcile that finds its own creates or deletes not yet shown looks again after this long at most. */
export const EXPECTATIONS_RECHECK_MS = 1_000;

export function redisProjection(o: { redis: RedisClient; prefix: string; queueName: string }): Projection {
  return new Projection({ client: o.redis, prefix: o.prefix, queueName: o.queueName });
}

/** `api` answers when the projection cannot: not complete yet, or right after a 409. */
export function projectionState(projection: StateProjection, api: StateSource): StateSource {
  // Keys whose last write met a 409: their next read goes to the API (one key is reconciled by one
  // worker at a time, and the retry follows at once in the same process).
  const behind = new Set<string>();
  // Per key: the resourceVersion of the projected PodSet this worker last read, and what it wrote over it.
  const seen = new Map<string, string | undefined>();
  const written = new Map<string, { over: string | undefined; podset: PodSetWire }>();
  return {
    async read(ref, signal) {
      if (behind.delete(ref.key)) {
        written.delete(ref.key);
        return api.read(ref, signal);
      }
      const state = await projection.read(ref.key);
      const projectedRv = (state?.podset as { metadata?: { resourceVersion?: string } } | undefined)?.metadata
        ?.resourceVersion;
      seen.set(ref.key, projectedRv);
      const own = written.get(ref.key);
      if (own !== undefined && (state?.podset === undefined || own.over !== projectedRv))
        written.delete(ref.key);
      if (state === undefined) return api.read(ref, signal);
      if (state.pending.length > 0) {
        return {
          kind: 'wait',
          reason: 'Expectations',
          message: `waiting for our own creates and deletes to show (${state.pending.length} pending)`,
          afterMs: EXPECTATIONS_RECHECK_MS,
        };
      }
      if (state.podset === undefined) return { kind: 'gone' };
      // The projection still shows the PodSet our own write replaced: plan from what we wrote.
      const podset = written.get(ref.key)?.podset ?? (state.podset as unknown as PodSetWire);
      const pods = controlledPods(podset, state.pods as unknown as Pod[]);
      return { kind: 'found', podset, pods: () => Promise.resolve(pods) };
    },
    async created(key, names) {
      await projection.expect(key, 'create', names);
    },
    async deleted(key, names) {
      await projection.expect(key, 'delete', names);
    },
    wrote(key, podset) {
      const over = written.get(key)?.over ?? seen.get(key);
      written.set(key, { over, podset });
      return Promise.resolve();
    },
    conflicted(key) {
      behind.add(key);
    },
    forget: (key) => {
      seen.delete(key);
      written.delete(key);
      return projection.forget(key);
    },
  };
}
