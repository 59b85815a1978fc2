// When a watch is stalled. A quiet resource sends nothing at all: a real API server bookmarks only a watch
// whose resource changed since it started. So silence alone proves nothing; the server ending the watch at
// the timeoutSeconds it was asked for does. A watch still open `grace` past that, with nothing read for as
// long, is stalled (a dead peer is found sooner by the socket's TCP keepalive). Time spent waiting on the
// sink is not the server's: the end of the stream may be waiting unread meanwhile.
import { schedule, type Clock } from '@podset/clock';

export class StallCheck {
  readonly #clock: Clock;
  readonly #graceMs: number;
  readonly #onStall: () => void;
  #heardAt: number;
  #busy = false;
  #cancel: (() => void) | undefined;

  /** Starts checking: first `timeoutSeconds` + the grace from now, then as long as the watch stays quiet. */
  constructor(opts: { timeoutSeconds: number; graceMs: number; clock: Clock; onStall: () => void }) {
    this.#clock = opts.clock;
    this.#graceMs = opts.graceMs;
    this.#onStall = opts.onStall;
    this.#heardAt = opts.clock.now();
    this.#cancel = schedule(opts.clock, opts.timeoutSeconds * 1000 + opts.graceMs, () => this.#check());
  }

  /** Something was read from the watch. */
  heard(): void {
    this.#heardAt = this.#clock.now();
  }

  /** Awaits `p` (the sink, a checkpoint) without counting the wait as the server's silence. */
  async busy(p: Promise<void>): Promise<void> {
    this.#busy = true;
    try {
      await p;
    } finally {
      this.#busy = false;
      this.heard();
    }
  }

  stop(): void {
    this.#cancel?.();
    this.#cancel = undefined;
  }

  #check(): void {
    const quietMs = this.#clock.now() - this.#heardAt;
    if (this.#busy || quietMs < this.#graceMs) {
      this.#cancel = schedule(this.#clock, this.#busy ? this.#graceMs : this.#graceMs - quietMs, () =>
        this.#check(),
      );
      return;
    }
    this.#cancel = undefined;
    this.#onStall();
  }
}
