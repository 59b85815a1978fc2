// Stage 1 of an event's path (see the README's table): the batch. The watch loop hands events on without
// waiting for each other; those of one read of the watch stream reach the sink in one turn of the event
// loop, and are taken as one batch, so the later stages run once per batch instead of once per event.
import { deferred, type Deferred } from './deferred.ts';

export class TurnBatcher<T> {
  readonly #flush: (items: readonly T[]) => Promise<void>;
  #open: { items: T[]; done: Deferred } | undefined;

  /** `flush` runs once per batch, in the next turn; its outcome settles every item of the batch. */
  constructor(flush: (items: readonly T[]) => Promise<void>) {
    this.#flush = flush;
  }

  /** Whether this turn's batch is open (an item was added since the last flush began). */
  get open(): boolean {
    return this.#open !== undefined;
  }

  /** Adds `item` to this turn's batch; settles with the batch (a failure fails every item of it). */
  add(item: T): Promise<void> {
    let batch = this.#open;
    if (batch === undefined) {
      const opened = { items: [] as T[], done: deferred() };
      this.#open = batch = opened;
      setImmediate(() => {
        this.#open = undefined;
        this.#flush(opened.items).then(opened.done.resolve, opened.done.reject);
      });
    }
    batch.items.push(item);
    return batch.done.promise;
  }
}
