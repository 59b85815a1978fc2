// The state source that reads the watcher's projection: the key's PodSet and pods, folded from the watch
// events into Redis, in one round trip and no API read. These guards make it as safe as a fresh LIST:
// - expectations: the names of the pods this worker created or deleted stay pending until the projection
//   shows them (or 5 minutes pass); while any is pending the read says "wait" — planning on a projection
//   that does not show our own creates would create them again;
// - the API instead, when the projection is not complete yet (no relist folded), and for the read after a
//   409 (what we wrote against was behind: maybe the projection is);
// - its own writes of the PodSet (finalizer, status) kept in memory, planned from while the projection does
//   not show them yet, for a while (own-writes.ts);
// - acting: Redis is not trusted to say what to create or delete. A read from the projection is not
//   authoritative; a plan from it that would create or delete is made again from `confirm`, the API's read
//   (controller.ts), so a stale, replayed or deleted entry never becomes a pod create or delete;
// - integrity: Redis is not trusted. An entry whose tag does not check (libs/state integrity.ts), a
//   PodSet whose namespace/name is not its key's, or an entry older than what this worker already saw of
//   it (a replay: seen-versions.ts) is never planned from: it is reported (logged by key, counted) and the
//   key is read from the API instead.
import type { Pod } from '@podset/kube';
import type { EntryTags, OutOfBoundsValue, QuietNote } from '@podset/state';
import type { RedisClient } from '@podset/redis';
import { ProjectionReader, type ProjectedState } from '@podset/state';
import { claimablePods, type PodSet } from '@podset/reconcile';
import { systemClock, type Clock } from '@podset/clock';
import { OwnWrites } from './own-writes.ts';
import { SeenVersions } from './seen-versions.ts';
import type { ConfirmReason, KeyState, PodSetRef, StateSource } from './state-source.ts';

/** What this source uses of libs/state's ProjectionReader. */
export interface StateProjection {
  /** Undefined while the projection is not complete. */
  read(key: string): Promise<ProjectedState | undefined>;
  expect(
    key: string,
    what: 'create' | 'delete',
    names: readonly string[],
    opts?: { quiet?: QuietNote },
  ): Promise<number>;
  /** Pending creates of a pass, before they are sent (their names not known yet). */
  reserveCreates(key: string, count: number, opts?: { quiet?: boolean }): Promise<void>;
  /** A reserving pass's record of creates, releasing its units (ProjectionReader's). */
  recordCreates(
    key: string,
    names: readonly string[],
    opts: { quiet?: QuietNote; unmade: number },
  ): Promise<{ recorded: number; overReleased: boolean }>;
  /** Removes refused pod entries still as refused, so that the pod's next event is folded afresh. */
  dropRefused(key: string, entries: readonly { field: string; stored: string }[]): Promise<number>;
  /** Our own write of the PodSet's plan inputs, planned from in the same pass: its event owes no pass. */
  ownInputs?(key: string, metadata: PodSet['metadata']): Promise<void>;
  /** Drops the key's expectations (the API no longer has its PodSet). */
  forgetExpectations(key: string): Promise<number>;
  forget(key: string): Promise<number>;
}

/** Why a projected entry was not planned from. */
export interface RefusedEntry {
  key: string;
  kind: 'pod' | 'podset';
  /** The pod's name; '@ps' for the PodSet. */
  field: string;
  /** tag: its integrity tag does not check; key: not its key's PodSet; replay: older than one seen. */
  reason: 'tag' | 'key' | 'replay';
}

/** A reconcile that finds its own creates or deletes not yet shown looks again after this long at most. */
export const EXPECTATIONS_RECHECK_MS = 1_000;

export function redisProjection(o: {
  redis: RedisClient;
  prefix: string;
  queueName: string;
  tags: EntryTags;
  outOfBounds?: (value: OutOfBoundsValue) => void;
}): ProjectionReader {
  const { redis: client, prefix, queueName, tags, outOfBounds } = o;
  return new ProjectionReader({ client, prefix, queueName, tags, ...(outOfBounds ? { outOfBounds } : {}) });
}

/** The API's reads the projection's source uses. */
export interface ApiReads {
  /** A consistent read, when the projection cannot answer. */
  fallback(ref: PodSetRef, signal?: AbortSignal): Promise<KeyState>;
  /** The read a plan that would act (`why`) is made again from. */
  confirm(ref: PodSetRef, why: ConfirmReason, signal?: AbortSignal): Promise<KeyState>;
  /** Hears of each refused entry before the key is read from the API. */
  refused(entry: RefusedEntry): void;
}

/**
 * `api.fallback` answers when the projection cannot: not complete yet, right after a 409, or when an entry
 * of the key is refused (then `api.refused` hears of each such entry first).
 */
export function projectionState(
  projection: StateProjection,
  api: ApiReads,
  clock: Pick<Clock, 'now'> = systemClock,
): StateSource {
  // Keys whose last write met a 409: their next read goes to the API (one key is reconciled by one
  // worker at a time, and the retry follows at once in the same process).
  const behind = new Set<string>();
  const seen = new SeenVersions();
  const own = new OwnWrites(clock);
  /** A read from the API after a refusal: its versions replace what was seen of the key. */
  const fromApi = (key: string, state: KeyState): KeyState => {
    if (state.kind !== 'found') {
      if (state.kind === 'gone') seen.fromApi(key, undefined);
      return state;
    }
    const m = state.podset.metadata;
    seen.fromApi(key, { rv: m.resourceVersion, uid: m.uid, generation: m.generation });
    return {
      ...state,
      pods: async () => {
        const pods = await state.pods();
        seen.podsFromApi(
          key,
          pods.map((p) => ({ name: p.metadata.name ?? '', rv: p.metadata.resourceVersion })),
        );
        return pods;
      },
    };
  };
  return {
    async read(ref, signal) {
      if (behind.delete(ref.key)) {
        own.drop(ref.key);
        return api.fallback(ref, signal);
      }
      const state = await projection.read(ref.key);
      if (state === undefined) return api.fallback(ref, signal);
      const m = state.podset?.metadata;
      const written = own.read(ref.key, m?.resourceVersion);
      if (written.kind === 'expired') return fromApi(ref.key, await api.fallback(ref, signal));
      const lagging = written.kind === 'lagging';
      const bad: RefusedEntry[] = state.refused.map((r) => ({ key: ref.key, ...r }));
      if (bad.length === 0) {
        const replayed = seen.check(
          ref.key,
          // Still the version our own write replaced: older than that write, and no replay.
          m === undefined || lagging
            ? undefined
            : { rv: m.resourceVersion, uid: m.uid, generation: m.generation },
          state.pods.map((p) => ({ name: p.metadata.name ?? '', rv: p.metadata.resourceVersion })),
        );
        for (const r of replayed) bad.push({ key: ref.key, ...r, reason: 'replay' });
      }
      if (bad.length > 0) {
        for (const entry of bad) api.refused(entry);
        const drop = state.refused.flatMap((r) =>
          r.stored === undefined ? [] : [{ ...r, stored: r.stored }],
        );
        // Best effort: a failure leaves the entry refused, and the key read from the API, as before.
        await projection.dropRefused(ref.key, drop).catch(() => 0);
        return fromApi(ref.key, await api.fallback(ref, signal));
      }
      if (state.pending.length > 0) {
        return {
          kind: 'wait',
          reason: 'Expectations',
          message: `waiting for our own creates and deletes to show (${state.pending.length} pending)`,
          afterMs: EXPECTATIONS_RECHECK_MS,
        };
      }
      if (state.podset === undefined) return { kind: 'gone' };
      // The projection still shows the PodSet our own write replaced: plan from what we wrote, and look
      // again once that stops being trusted.
      const podset = lagging ? written.podset : (state.podset as unknown as PodSet);
      const pods = claimablePods(podset, state.pods as unknown as Pod[]);
      return {
        kind: 'found',
        podset,
        authoritative: false,
        pods: () => Promise.resolve(pods),
        ...(lagging ? { recheckAfterMs: written.trustLeftMs } : {}),
      };
    },
    confirm: (ref, why, signal) => api.confirm(ref, why, signal),
    ...createRecords(projection),
    async deleted(key, names) {
      await projection.expect(key, 'delete', names);
    },
    wrote(key, podset) {
      own.wrote(key, podset);
      const m = podset.metadata;
      seen.saw(key, { rv: m.resourceVersion, uid: m.uid, generation: m.generation });
      return Promise.resolve();
    },
    async writingInputs(key, metadata) {
      await projection.ownInputs?.(key, metadata);
    },
    conflicted(key) {
      behind.add(key);
    },
    async ended(key) {
      // The PodSet's version stays seen (seen-versions.ts): its entry from before cannot be replayed.
      seen.forget(key);
      own.forget(key);
      behind.delete(key);
      await projection.forgetExpectations(key);
    },
    forget: (key) => {
      seen.forget(key);
      own.forget(key);
      return projection.forget(key);
    },
  };
}

/** A pass's creates as the projection records them: reserved before they are sent, named once made. */
function createRecords(projection: StateProjection): Pick<StateSource, 'created' | 'creating'> {
  return {
    async created(key, names, quiet, release) {
      const q = quiet === undefined ? {} : { quiet };
      if (release === undefined) {
        await projection.expect(key, 'create', names, q);
        return;
      }
      const { overReleased } = await projection.recordCreates(key, names, { ...q, unmade: release.unmade });
      return { overReleased };
    },
    async creating(key, count, quiet) {
      await projection.reserveCreates(key, count, { quiet });
    },
  };
}
