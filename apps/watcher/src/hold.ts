// Before the batch: the hold. At a cluster's pace a turn of the event loop holds one or two events, so
// nearly every event pays a batch of its own (a fold round trip to Redis, and its promises). Many of them
// cannot owe a reconcile: a kubelet's status write that moves only fields the projection does not compare
// (container statuses, conditions other than Ready), a scheduler's binding (the node is kept, for ranking
// only), or a pod of no PodSet. Such an event waits here, at most `holdMs`, and joins the next batch that
// goes anyway, in arrival order (every held event goes into the batch before the event that releases it).
// With `statusToo`, so does a pod's change of phase or readiness alone: its request is due a collapse
// window later anyway (status-windows.ts), and the hold moves that by at most `holdMs`; one due at once
// (it leaves its PodSet's pods all ready) is not held.
//
// Whether an event can owe is judged from the inputs digest (encodedPod: what a fold compares with the
// inputs last requested) of the same pod's previous event, remembered here. The judgement only sets when
// an event is folded, never whether: a held event is folded and answered like any other, so a wrong
// judgement delays an owed request by at most `holdMs`. PodSet events are never held: the worker writes
// a PodSet conditionally on the resourceVersion the projection holds.
import { schedule, systemClock, type Clock } from '@podset/clock';
import { encodedPod, inputsChange, type ProjectedPod } from '@podset/state';
import { deferred, type Deferred } from './deferred.ts';
import { keyFor } from './keys.ts';
import type { WatchEvent } from './watch-loop.ts';

/** Held events at most (below the watch loop's events in flight, so a full hold never stalls a stream). */
const MAX_HELD = 32;

export class QuietHold {
  readonly #holdMs: number;
  readonly #send: (ev: WatchEvent) => Promise<void>;
  readonly #statusToo: boolean | ((key: string) => boolean);
  readonly #clock: Pick<Clock, 'sleep'>;
  /** Each pod's inputs digest as of the last event seen of it, by `namespace/name`. */
  readonly #seen = new Map<string, string>();
  readonly #held: { ev: WatchEvent; done: Deferred }[] = [];
  /** Cancels the pending release, when one is scheduled. */
  #cancel: (() => void) | undefined;
  /** Events held so far (for tests and metrics). */
  heldTotal = 0;

  /**
   * `send` hands an event on to the batch stage, in order; `statusToo`: hold status-only changes too (as a
   * function: those of the keys it answers true for, whose request waits a window anyway).
   */
  constructor(
    holdMs: number,
    send: (ev: WatchEvent) => Promise<void>,
    statusToo: boolean | ((key: string) => boolean) = false,
    clock: Pick<Clock, 'sleep'> = systemClock,
  ) {
    this.#clock = clock;
    this.#holdMs = holdMs;
    this.#send = send;
    this.#statusToo = statusToo;
  }

  /**
   * Remembers `ev` (call it for every event, in order) and answers whether it cannot owe a reconcile: a
   * pod of no PodSet, or a MODIFIED pod whose inputs are those of its previous event (with `statusToo`,
   * or whose plan inputs are: only its phase or readiness moved).
   */
  quiet(ev: WatchEvent): boolean {
    if (ev.resource !== 'pods') return false;
    const key = keyFor(ev.resource, ev.object);
    if (key === undefined) return true;
    const m = ev.object.metadata;
    const id = `${m?.namespace ?? ''}/${m?.name ?? ''}`;
    if (ev.type === 'DELETED') {
      this.#seen.delete(id);
      return false;
    }
    // Handed on with the event: the fold sends this encoding and does not hash the pod again.
    ev.encoded = encodedPod(ev.object as ProjectedPod);
    const digest = ev.encoded.digest;
    const before = this.#seen.get(id);
    this.#seen.set(id, digest);
    if (ev.type !== 'MODIFIED' || before === undefined) return false;
    const change = inputsChange(before, digest);
    if (change === 'none') return true;
    const statusToo = this.#statusToo;
    return change === 'status' && (typeof statusToo === 'function' ? statusToo(key) : statusToo);
  }

  /** Holds `ev` until the next event that is not held, `holdMs`, or a full hold; settles with its batch. */
  hold(ev: WatchEvent): Promise<void> {
    const done = deferred();
    this.#held.push({ ev, done });
    this.heldTotal++;
    if (this.#held.length >= MAX_HELD) this.release();
    else this.#cancel ??= schedule(this.#clock, this.#holdMs, () => this.release());
    return done.promise;
  }

  /** Hands every held event on, in arrival order. */
  release(): void {
    this.#cancel?.();
    this.#cancel = undefined;
    for (const { ev, done } of this.#held.splice(0)) this.#send(ev).then(done.resolve, done.reject);
  }

  /** A relist begins: what was seen before it may be gone (deleted unwatched), so it is forgotten. */
  forget(): void {
    this.#seen.clear();
  }
}
