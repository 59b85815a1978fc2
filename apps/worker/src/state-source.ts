// Where a reconcile's state comes from: the one interface the controller plans through. It reads a
// key's state (the PodSet and the pods it controls, or "wait": planning now could create or delete
// twice) and is told of the reconcile's own writes, so that the next read shows them or waits for them.
// Two implementations, chosen once at start-up (open-state-source.ts):
//   api-state.ts         GET the PodSet and a consistent LIST of its pods, every time
//   projection-state.ts  the watcher's per-PodSet state in Redis, with expectations of our own writes;
//                        the API when the projection is not complete, or after a 409
// A read says whether it came from the API (authoritative). Redis decides whether to act; the API decides
// what: a plan from a read that is not authoritative that would create or delete a pod is made again from
// `confirm` (the API's read) and only that plan is carried out.
import type { Pod, PodSet } from '@podset/kube';
import { parseKey } from '@podset/reconcile';
import type { QuietNote } from '@podset/state';

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
      podset: PodSet;
      /** Read from the API (not from Redis): a plan made from it may create and delete. */
      authoritative: boolean;
      /**
       * The pods it may claim (claim.ts): those it controls (by owner UID), and those with no controller
       * (to adopt, when they match); read when first asked (a parked key never asks).
       */
      pods(): Promise<Pod[]>;
      /**
       * The read leaned on something it must check again (our own write the projection does not show
       * yet): the reconcile looks again within this long, whatever its plan says.
       */
      recheckAfterMs?: number;
    }
  | { kind: 'gone' }
  /** Not safe to plan yet (our own last writes do not show): look again after `afterMs`. */
  | { kind: 'wait'; reason: string; /** For the log. */ message: string; afterMs: number };

export interface StateSource {
  read(ref: PodSetRef, signal?: AbortSignal): Promise<KeyState>;
  /**
   * The API's state of the key, read before acting on a plan made from a read that was not the API's:
   * `why` is what that plan would do (create or delete pods, or remove the finalizer).
   */
  confirm(ref: PodSetRef, why: ConfirmReason, signal?: AbortSignal): Promise<KeyState>;
  /**
   * Pods this reconcile created: a later read shows them, or waits until it does. `quiet`: the pass needs
   * no follow-up once they show as made (its status says what a pass would then find), so their events
   * need request none: 'start' in its first record, 'keep' in later ones (kept only if still noted).
   */
  created(
    key: string,
    names: readonly string[],
    quiet?: QuietNote,
    release?: CreatesRelease,
  ): Promise<CreatesRecorded | void>;
  /**
   * Before a pass's creates are sent: `count` of them under way, names not known yet (generateName), so
   * that a create's watch event that comes before `created` is met as awaited, not as someone else's pod.
   * `quiet`: the pass may need no follow-up (as `created`'s 'start'; its records then only 'keep' it). Its
   * `created` calls then release them (`release`).
   */
  creating(key: string, count: number, quiet: boolean): Promise<void>;
  /** Pods this reconcile deleted (or saw already deleting): a later read no longer counts them, or waits. */
  deleted(key: string, names: readonly string[]): Promise<void>;
  /** Our own write of the PodSet: the next read returns it, so a write against it meets no stale 409. */
  wrote(key: string, podset: PodSet): Promise<void>;
  /**
   * Told before our own write of what a plan reads of the PodSet (its finalizer), as `metadata` will be:
   * this pass plans from it (or fails, or meets a 409 and plans again, and is retried), so its watch event
   * need request no pass. Told before, not after: its event may be folded before the write returns.
   */
  writingInputs?(key: string, metadata: PodSet['metadata']): Promise<void>;
  /** Our write of the PodSet met a 409: what we read was behind; the next read must be the API's. */
  conflicted(key: string): void;
  /**
   * The API no longer has the PodSet read (404, or another UID): forget what is kept of the key (its
   * expectations, its versions seen and own writes) so that nothing of it is acted on again.
   */
  ended(key: string): Promise<void>;
  /** A deleted PodSet's state kept for it (its finalizer is about to go). Resolves to what was removed. */
  forget(key: string): Promise<number>;
}

/**
 * A `created` call of a pass that reserved (`creating`): it releases the units of the names it records and
 * of `unmade` creates (failed, cancelled, or left to the next pass).
 */
export interface CreatesRelease {
  unmade: number;
}

/** What a releasing `created` found. */
export interface CreatesRecorded {
  /**
   * Fewer units were left than it released: an ADDED not of this pass took one (another's pod, then met as
   * awaited), or they expired or a relist dropped them. The creates are no longer quiet.
   */
  overReleased: boolean;
}

/** STATE_SOURCE: where the workers read a key's state. */
export type StateSourceKind = 'api' | 'projection';

/**
 * Why a plan from the projection is read again from the API: `acting` (it would create or delete pods),
 * `finalizer` (it would remove the cleanup finalizer of a PodSet being deleted).
 */
export type ConfirmReason = 'acting' | 'finalizer';

/**
 * Why the projection's source read the API: a `ConfirmReason`, or `fallback` (the projection could not
 * answer: not complete, a refused entry, the read after a 409).
 */
export type ApiReadReason = ConfirmReason | 'fallback';
