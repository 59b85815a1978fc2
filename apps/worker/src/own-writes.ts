// This worker's own writes of PodSets (its finalizer, its status), kept in memory, not in the projection: its
// Redis user may only read projected PodSets (SECURITY.md). While the projection still shows the version a
// write replaced, the key is planned from what was written (that lag is not a replay) — for OWN_WRITE_TRUST_MS
// at most: a write the projection never shows may have been undone (an etcd restore brings back the version it
// replaced, resourceVersion and all), so past that the key is read from the API, and a read that leaned on
// the write asks for a look again then (else a status lost that way would never be written again).
import type { PodSet } from '@podset/kube';
import type { Clock } from '@podset/clock';

/**
 * How long this worker's own write of a PodSet stands in for the projection that does not show it yet. A
 * projection shows a write within milliseconds; one that still shows the version the write replaced this
 * much later is stalled, or the cluster went back in time and the write is gone: the API says which.
 */
export const OWN_WRITE_TRUST_MS = 5_000;

/** What stands in for a projected PodSet just read. */
export type OwnWriteView =
  /** No write of ours: plan from the projection. */
  | { kind: 'none' }
  /** The projection still shows the version our write replaced: plan from the write, look again in time. */
  | { kind: 'lagging'; podset: PodSet; trustLeftMs: number }
  /** The projection never showed our write: read the API. */
  | { kind: 'expired' };

export class OwnWrites {
  // Per key: our last write of the PodSet, the projected version it replaced, and when.
  readonly #written = new Map<string, { over: string | undefined; podset: PodSet; at: number }>();
  // Per key: the resourceVersion of the projected PodSet last read.
  readonly #lastRead = new Map<string, string | undefined>();
  readonly #clock: Pick<Clock, 'now'>;

  constructor(clock: Pick<Clock, 'now'>) {
    this.#clock = clock;
  }

  /** The projection of `key` showed its PodSet at `rv` (undefined: none). */
  read(key: string, rv: string | undefined): OwnWriteView {
    this.#lastRead.set(key, rv);
    const own = this.#written.get(key);
    if (own === undefined) return { kind: 'none' };
    // Our write is shown (or the PodSet moved on, or went): plan from the projection again.
    if (rv === undefined || own.over !== rv) {
      this.#written.delete(key);
      return { kind: 'none' };
    }
    const trustLeftMs = own.at + OWN_WRITE_TRUST_MS - this.#clock.now();
    if (trustLeftMs <= 0) {
      this.#written.delete(key);
      return { kind: 'expired' };
    }
    return { kind: 'lagging', podset: own.podset, trustLeftMs };
  }

  /** Our write of `key`'s PodSet, over the version last read (or over what an earlier write replaced). */
  wrote(key: string, podset: PodSet): void {
    const over = this.#written.get(key)?.over ?? this.#lastRead.get(key);
    this.#written.set(key, { over, podset, at: this.#clock.now() });
  }

  /** The write no longer stands in (a 409 said what we read was behind). */
  drop(key: string): void {
    this.#written.delete(key);
  }

  forget(key: string): void {
    this.#written.delete(key);
    this.#lastRead.delete(key);
  }
}
