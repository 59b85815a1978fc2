// Before the batch: the hold. At a cluster's pace a turn of the event loop holds one or two events, so
// nearly every event pays a batch of its own (a fold round trip to Redis, and its promises). Many of them
// cannot owe a reconcile: a kubelet's status write that moves only fields the projection does not compare
// (container statuses, conditions other than Ready), a scheduler's binding (the node is kept, for ranking
// only), or a pod of no PodSet. Such an event waits here, at most `holdMs`, and joins the next batch that
// goes anyway, in arrival order (every held event goes into the batch before the event that releases it).
// With `statusToo`, so does a pod's change of phase or readiness alone: its request is due a collapse
// window later anyway (status-windows.ts), and the hold moves that by at most its longest wait; one due at
// once (it leaves its PodSet's pods all ready) is not held.
// So does the ADDED of a pod created by its PodSet's controller (the pod carries the controller reference
// from its create: one the controller adopts gets it later, by a MODIFIED): a worker's creates come one
// event each, a turn apart, and all but the last one it awaits request nothing (the fold finds the
// worker's expectation: by name, or, before the name is recorded, one of the creates it reserved). The
// last one's request, to plan once all the creates show, comes at most the hold's longest wait later; a
// plan change (a deletion, a relabel, a PodSet event other than a status write) is never held and releases
// them. The hold only saves round trips: an ADDED folded at once still finds its create awaited.
//
// Where pod events come in paced turns (POD_WATCH_READ_PAUSE_MS), a hold's timer would fire between two
// turns, each batch then a round trip of its own: so held events also go with the first turn that comes
// `holdMs` or more after the first of them, however quiet, and the timer waits `holdMs` plus the pause. Two
// quiet turns then share one batch, and the timer fires only when the watch goes quiet.
//
// Whether an event can owe is judged from the inputs digest (encodedPod: what a fold compares with the
// inputs last requested) of the same pod's previous event, remembered here. The judgement only sets when
// an event is folded, never whether: a held event is folded and answered like any other, so a wrong
// judgement delays an owed request by at most `holdMs`.
//
// A PodSet's MODIFIED whose plan inputs (podSetInputs: uid, generation, deletion, finalizers, labels) are
// those of its previous event is held too: that is a status write, nearly always a worker's own, and it owes
// nothing. Each came alone (a worker writes one PodSet's status at a time), so each was a fold round trip of
// its own, half the watcher's writes to Redis in a converge. The projection shows it up to the hold's longest
// wait later, and that is safe for the conditional writes a worker makes against the PodSet's
// resourceVersion: a held event goes into the batch before the event that releases it, so every request the
// watcher makes after it arrived is made after its fold; the worker that wrote it plans from its own write
// while the projection lags (apps/worker own-writes.ts); and any other write against the older version gets
// a 409, on which a worker reads the API and plans again, as it does whenever another writer got there first.
// Any other PodSet event (its ADDED, a spec, label, finalizer or deletion change) is never held.
import { schedule, systemClock, type Clock } from '@podset/clock';
import { podSetKeyOf } from '@podset/reconcile';
import {
  DIGEST_LENGTH,
  encodedPod,
  inputsDigest,
  podSetInputs,
  type InputsChange,
  type ProjectedPod,
} from '@podset/state';
import { deferred, type Deferred } from './deferred.ts';
import { keyFor, objectId } from './keys.ts';
import type { WatchEvent } from './watch-loop.ts';

// A pod's digest is 32 characters, each half 96 bits (plan, then status: inputsChange); kept as such, it
// cost the hold's memory ~110 bytes a pod (the string, its halves, its slice's parent): 11 MiB of the
// watcher's heap at 100,000 pods. Kept instead as a small integer (a V8 Smi, stored in the map entry
// itself): 18 bits of the plan half and 12 of the status half (which takes a handful of values). Two
// digests that differ but share a hint judge a change as none (or status): that event is held when it need
// not be, which delays its request by at most the hold's longest wait, and is folded by the full digest
// all the same.
const PLAN_HINT_CHARS = 3;
const STATUS_HINT_CHARS = 2;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const STATUS_VALUES = 64 ** STATUS_HINT_CHARS;
const SIXTETS = new Int8Array(128);
for (let i = 0; i < BASE64URL.length; i++) SIXTETS[BASE64URL.charCodeAt(i)] = i;

function sixtets(s: string, from: number, count: number): number {
  let v = 0;
  for (let i = from; i < from + count; i++) v = v * 64 + (SIXTETS[s.charCodeAt(i) & 127] ?? 0);
  return v;
}

/** A pod's inputs digest as the hold remembers it: 30 bits, the plan half's above the status half's. */
export function digestHint(digest: string): number {
  const status = digest.length > DIGEST_LENGTH ? sixtets(digest, DIGEST_LENGTH, STATUS_HINT_CHARS) : 0;
  return sixtets(digest, 0, PLAN_HINT_CHARS) * STATUS_VALUES + status;
}

/** inputsChange on two hints. */
export function hintChange(before: number, hint: number): InputsChange {
  if (before === hint) return 'none';
  return Math.floor(before / STATUS_VALUES) === Math.floor(hint / STATUS_VALUES) ? 'status' : 'plan';
}

/** Held events at most (below the watch loop's events in flight, so a full hold never stalls a stream). */
const MAX_HELD = 32;

export class QuietHold {
  readonly #holdMs: number;
  readonly #pauseMs: number;
  readonly #send: (ev: WatchEvent) => Promise<void>;
  readonly #statusToo: (key: string) => boolean;
  readonly #clock: Pick<Clock, 'sleep' | 'elapsed'>;
  /** Each pod's digest hint (digestHint) as of the last event seen of it, by `namespace/name`. */
  readonly #seen = new Map<string, number>();
  /**
   * Each PodSet's plan inputs as of its last event, as the fold stores them (inputsDigest of podSetInputs:
   * 16 characters), by `namespace/name`.
   */
  readonly #podSets = new Map<string, string>();
  readonly #held: WatchEvent[] = [];
  /** Settles with the batch the held events go into: they all go into one, so they share one promise. */
  #done: Deferred | undefined;
  /** Cancels the pending release, when one is scheduled. */
  #cancel: (() => void) | undefined;
  /** When the first of the held events was held (the clock's elapsed()). */
  #since = 0;
  /** Events held so far (for tests and metrics). */
  heldTotal = 0;

  /**
   * `send` hands an event on to the batch stage, in order (events handed on in one turn go into one batch
   * and settle with it); `statusToo`: whether a status-only change of a key may be held too (its request
   * waits a window at least `maxWaitMs` anyway). Default: never. `pauseMs`: the pod watch's pause between
   * turns (0: unpaced).
   */
  constructor(
    holdMs: number,
    send: (ev: WatchEvent) => Promise<void>,
    statusToo: (key: string) => boolean = () => false,
    clock: Pick<Clock, 'sleep' | 'elapsed'> = systemClock,
    pauseMs = 0,
  ) {
    this.#clock = clock;
    this.#holdMs = holdMs;
    this.#pauseMs = pauseMs;
    this.#send = send;
    this.#statusToo = statusToo;
  }

  /** The longest an event is held: `holdMs`, and where turns are paced, the pause until the next one. */
  get maxWaitMs(): number {
    return this.#holdMs + this.#pauseMs;
  }

  /**
   * Remembers `ev` (call it for every event, in order) and answers whether it may wait: a pod of no
   * PodSet, a MODIFIED pod whose inputs are those of its previous event (with `statusToo`, or whose plan
   * inputs are: only its phase or readiness moved), the ADDED of a pod its PodSet created (not seen
   * before), or a PodSet's MODIFIED whose plan inputs are those of its previous event (a status write).
   */
  quiet(ev: WatchEvent): boolean {
    if (ev.resource === 'podsets') return this.#podSetQuiet(ev);
    const key = keyFor(ev.resource, ev.object);
    if (key === undefined) return true;
    // A controller reference names a PodSet, so such a pod always has a key.
    const controlled = podSetKeyOf(ev.object) !== undefined;
    const id = objectId(ev.object);
    if (ev.type === 'DELETED') {
      this.#seen.delete(id);
      return false;
    }
    // Handed on with the event: the fold sends this encoding and does not hash the pod again.
    ev.encoded = encodedPod(ev.object as ProjectedPod);
    const hint = digestHint(ev.encoded.digest);
    const before = this.#seen.get(id);
    this.#seen.set(id, hint);
    if (ev.type === 'ADDED') return controlled && before === undefined;
    if (ev.type !== 'MODIFIED' || before === undefined) return false;
    const change = hintChange(before, hint);
    if (change === 'none') return true;
    return change === 'status' && this.#statusToo(key);
  }

  /** A PodSet's MODIFIED whose plan inputs are those of its previous event (a status write): see the header. */
  #podSetQuiet(ev: WatchEvent): boolean {
    const id = objectId(ev.object);
    if (ev.type === 'DELETED') {
      this.#podSets.delete(id);
      return false;
    }
    const inputs = inputsDigest(podSetInputs(ev.object.metadata ?? {}));
    const before = this.#podSets.get(id);
    this.#podSets.set(id, inputs);
    return ev.type === 'MODIFIED' && before === inputs;
  }

  /**
   * Holds `ev` until the next event that is not held, the first event `holdMs` or more after the first held
   * one (it goes along), `maxWaitMs`, or a full hold; settles with its batch.
   */
  hold(ev: WatchEvent): Promise<void> {
    const now = this.#clock.elapsed();
    if (this.#done === undefined) this.#since = now;
    const done = (this.#done ??= deferred());
    this.#held.push(ev);
    this.heldTotal++;
    if (this.#held.length >= MAX_HELD || now - this.#since >= this.#holdMs) this.release();
    else this.#cancel ??= schedule(this.#clock, this.maxWaitMs, () => this.release());
    return done.promise;
  }

  /** Hands every held event on, in arrival order, in one turn: into one batch, whose outcome they share. */
  release(): void {
    const done = this.#done;
    if (done === undefined) return;
    this.#cancel?.();
    this.#cancel = undefined;
    this.#done = undefined;
    let batch: Promise<void> | undefined;
    for (const ev of this.#held.splice(0)) batch = this.#send(ev);
    batch?.then(done.resolve, done.reject);
  }

  /** A relist begins: what was seen before it may be gone (deleted unwatched), so it is forgotten. */
  forget(): void {
    this.#seen.clear();
    this.#podSets.clear();
  }
}
