// Periodic resync: every period (±10 % jitter) list the PodSets of every watched scope and request
// each key at bulk priority, so nothing stays wrong forever even if an event were somehow lost.
import type { Clock } from '@podset/clock';
import { sleep } from './sleep.ts';
import type { WatchApi } from './kube-api.ts';
import { keysOf } from './keys.ts';
import type { Logger } from '@podset/log';

export interface ResyncOptions {
  periodMs: number;
  /** Lists the keys to resync; see listPodSetKeys. */
  listKeys: (signal: AbortSignal) => Promise<string[]>;
  enqueueBulk: (keys: readonly string[]) => Promise<void>;
  logger: Logger;
  random?: () => number;
  /** Waits between resyncs. Default the system clock. */
  clock?: Clock;
}

export class Resync {
  readonly #o: ResyncOptions;
  /** Completed resyncs and keys requested (for tests and metrics). */
  readonly stats = { runs: 0, keys: 0, failures: 0 };

  constructor(options: ResyncOptions) {
    this.#o = options;
  }

  /** Resyncs every period until `signal` aborts (the first one a period after start). */
  async run(signal: AbortSignal): Promise<void> {
    const random = this.#o.random ?? Math.random;
    while (!signal.aborted) {
      await sleep(Math.round(this.#o.periodMs * (0.9 + 0.2 * random())), signal, this.#o.clock);
      if (signal.aborted) break;
      await this.once(signal);
    }
  }

  /** One resync; failures are logged and counted, the next period tries again. */
  async once(signal: AbortSignal): Promise<number> {
    try {
      const keys = await this.#o.listKeys(signal);
      await this.#o.enqueueBulk(keys);
      this.stats.runs++;
      this.stats.keys += keys.length;
      this.#o.logger.info({ keys: keys.length }, 'resync enqueued every PodSet');
      return keys.length;
    } catch (err) {
      if (!signal.aborted) {
        this.stats.failures++;
        this.#o.logger.warn({ err: String(err) }, 'resync failed; next period will retry');
      }
      return 0;
    }
  }
}

/** Keys of every PodSet in the given namespaces (undefined entry: all namespaces), paged. */
export function listPodSetKeys(api: WatchApi, namespaces: readonly (string | undefined)[], pageSize = 500) {
  return async (signal: AbortSignal): Promise<string[]> => {
    const keys: string[] = [];
    for (const ns of namespaces) {
      let cont: string | undefined;
      do {
        const page = await api.list('podsets', ns, {
          limit: pageSize,
          ...(cont === undefined ? {} : { continue: cont }),
          signal,
        });
        keys.push(...keysOf('podsets', page.items ?? []));
        cont = page.metadata?.continue === '' ? undefined : page.metadata?.continue;
      } while (cont !== undefined);
    }
    return keys;
  };
}
