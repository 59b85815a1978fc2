// The BUSY watchdog, run by the script loader beside Redis as the operations user (podset-ops). The apps'
// users may run only the operator's own scripts, but one of those stuck in a loop (a bug) still leaves
// Redis answering BUSY to every client, its probes included, until someone sends SCRIPT KILL. Once Redis
// has answered BUSY for longer than the bound, this sends it (FUNCTION KILL for a function), logs one line
// and counts the outcome. A script that already wrote cannot be killed (UNKILLABLE: only SHUTDOWN NOSAVE,
// which loses data, ends it): that is counted and logged for a person to decide, and tried again only after
// another bound.
import { Cluster } from 'ioredis';
import type { RedisClient } from '@podset/redis';
import { systemClock, type Clock } from '@podset/clock';

/** What a kill attempt got: Redis's OK, UNKILLABLE, NOTBUSY (the script ended meanwhile), another error. */
export type BusyKillResult = 'killed' | 'unkillable' | 'not_busy' | 'error';
export const BUSY_KILL_RESULTS: readonly BusyKillResult[] = ['killed', 'unkillable', 'not_busy', 'error'];

export interface BusyWatchdogOptions {
  /** As the operations user; its ready check off (a BUSY INFO would hold every command back). */
  client: RedisClient;
  /** How long BUSY replies may last before the kill (from the first BUSY this watchdog saw). */
  boundMs: number;
  /** Durations of BUSY are measured on its monotonic time. */
  clock?: Pick<Clock, 'elapsed'>;
  log: (line: string) => void;
  onKill: (result: BusyKillResult) => void;
}

type Node = Exclude<RedisClient, Cluster>;

export class BusyWatchdog {
  readonly #o: BusyWatchdogOptions;
  readonly #clock: Pick<Clock, 'elapsed'>;
  /** Per node: when its BUSY replies began (or the last kill attempt was). */
  readonly #busySince = new Map<string, number>();

  constructor(options: BusyWatchdogOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * PINGs Redis (each primary of a Cluster) once; kills a script busy past the bound. Throws what is not
   * a BUSY reply (Redis away, a refused login), for the caller's backoff.
   */
  async check(): Promise<void> {
    const client = this.#o.client;
    const nodes = client instanceof Cluster ? client.nodes('master') : [client];
    for (const node of nodes) await this.#checkNode(node);
  }

  async #checkNode(node: Node): Promise<void> {
    const id = `${node.options.host ?? ''}:${node.options.port ?? ''}`;
    let busy: string;
    try {
      await node.ping();
      this.#busySince.delete(id);
      return;
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      if (!text.startsWith('BUSY')) throw err;
      busy = text;
    }
    const now = this.#clock.elapsed();
    const since = this.#busySince.get(id) ?? now;
    this.#busySince.set(id, since);
    if (now - since < this.#o.boundMs) return;
    // Redis names the command that stops what runs: FUNCTION KILL for a function, else SCRIPT KILL.
    const command = /FUNCTION KILL/i.test(busy) ? 'FUNCTION' : 'SCRIPT';
    const result = await node.call(command, 'KILL').then(
      () => 'killed' as const,
      (err: unknown) => resultOf(err),
    );
    this.#busySince.set(id, this.#clock.elapsed());
    if (result === 'killed' || result === 'not_busy') this.#busySince.delete(id);
    this.#o.onKill(result);
    const seconds = ((now - since) / 1000).toFixed(1);
    this.#o.log(
      `Redis ${id} answered BUSY for ${seconds} s (bound ${this.#o.boundMs / 1000} s): sent ${command} KILL: ${result}` +
        (result === 'unkillable'
          ? ' (the script has written; only SHUTDOWN NOSAVE ends it, losing writes: a person decides)'
          : ''),
    );
  }
}

function resultOf(err: unknown): BusyKillResult {
  const text = err instanceof Error ? err.message : String(err);
  if (text.startsWith('UNKILLABLE')) return 'unkillable';
  if (text.startsWith('NOTBUSY')) return 'not_busy';
  return 'error';
}
