// The watch loop's ordered hand-off. Events go to the sink without waiting for each other (up to
// maxInFlight at once), but the RV advances strictly in order, only past events the sink has taken: the
// chain is that ordered advance. A failure stops it (later events don't move the RV) and ends the watch at
// once, so the failed event is re-delivered from the last good RV.
//
// The sink settles the events of one batch together, with one promise: consecutive events handed on with the
// same promise share one link of the chain, which advances once, to the last of their RVs. A link per event
// was some ten promises and their reactions an event, most of the hand-off's cost.

/** One link of the chain: events handed on one after another with the same promise. */
interface Link {
  taken: Promise<void>;
  /** The RV to advance to: the last defined one among the link's events. */
  rv: string | undefined;
  events: number;
  /** Its advance has begun: a later event with the same promise starts a link of its own. */
  started: boolean;
}

export class OrderedHandOff {
  readonly #advance: (rv: string, events: number) => Promise<void>;
  readonly #failed: (err: unknown) => void;
  #chain: Promise<void> = Promise.resolve();
  #last: Link | undefined;
  /**
   * Every event handed on and not yet settled, whatever became of the chain: the stream does not move on
   * (re-watch, relist) while any of them may still land, so a late write of this watch's events never
   * interleaves with the replay or the relist that follows it.
   */
  readonly #unsettled = new Set<Promise<void>>();
  /** Events handed on whose advance has not run yet. */
  inFlight = 0;

  /**
   * `advance(rv, events)`: the RV moves past taken events (`events` of them, the last at `rv`); `failed`:
   * the chain broke (end the watch).
   */
  constructor(advance: (rv: string, events: number) => Promise<void>, failed: (err: unknown) => void) {
    this.#advance = advance;
    this.#failed = failed;
  }

  /** `taken`: the sink's promise for an event at `rv`. */
  add(taken: Promise<void>, rv: string | undefined): void {
    this.inFlight++;
    const last = this.#last;
    if (last !== undefined && last.taken === taken && !last.started) {
      last.events++;
      if (rv !== undefined) last.rv = rv;
      return;
    }
    const link: Link = { taken, rv, events: 1, started: false };
    this.#last = link;
    this.#unsettled.add(taken);
    void taken.finally(() => this.#unsettled.delete(taken)).catch(() => undefined);
    taken.catch(() => undefined); // observed through the chain
    const chain = this.#chain
      .then(() => taken)
      .then(async () => {
        link.started = true;
        if (link.rv !== undefined) await this.#advance(link.rv, link.events);
      })
      .finally(() => {
        link.started = true;
        this.inFlight -= link.events;
      });
    chain.catch((err: unknown) => this.#failed(err));
    this.#chain = chain;
  }

  /** Settles once every event handed on so far was taken and the RV advanced past it (or rejects). */
  get taken(): Promise<void> {
    return this.#chain;
  }

  /** Waits until the RV got as far as the sink got, and every event handed on has settled. */
  async settle(): Promise<void> {
    await this.#chain.catch(() => undefined);
    await Promise.allSettled([...this.#unsettled]);
  }
}
