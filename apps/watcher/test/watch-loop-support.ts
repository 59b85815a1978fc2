// What the watch loop's unit test files share: an in-memory checkpoint, a sink that records what it is
// handed, and a loop over the fake API (fast backoff), stopped after each test.
import { afterEach } from 'node:test';
import { silentLogger, type Logger } from '@podset/log';
import {
  WatchLoop,
  type Checkpointer,
  type ListedPage,
  type WatchEvent,
  type WatchSink,
} from '../src/watch-loop.ts';
import { FakeApi } from './fake-api.ts';

export class MemoryCheckpoint implements Checkpointer {
  readonly rvs = new Map<string, string>();
  saves = 0;
  load(stream: string) {
    return Promise.resolve(this.rvs.get(stream));
  }
  save(stream: string, rv: string) {
    this.saves++;
    this.rvs.set(stream, rv);
    return Promise.resolve();
  }
}

export class RecordingSink implements WatchSink {
  readonly events: WatchEvent[] = [];
  readonly pages: ListedPage[] = [];
  #waiters: (() => void)[] = [];
  event(ev: WatchEvent) {
    this.events.push(ev);
    this.#wake();
    return Promise.resolve();
  }
  listed(page: ListedPage) {
    this.pages.push(page);
    this.#wake();
    return Promise.resolve();
  }
  #wake() {
    for (const w of this.#waiters.splice(0)) w();
  }
  /** Resolves once `cond` holds (re-checked after every event/page); fails after 10 s. */
  async until(cond: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }
  names(): string[] {
    return this.events.map((e) => `${e.type}:${e.object.metadata?.name}@${e.rv}`);
  }
}

interface SetupOptions {
  checkpoint?: string;
  logger?: Logger;
  /** A short timeout the fake server honours (each watch asks exactly this: no random spread). */
  timeoutSeconds?: number;
  stallGraceMs?: number;
  sink?: RecordingSink;
  maxInFlight?: number;
}

/**
 * The file's `setup(options)`: a loop, its fake API, checkpoint and sink, and `start()`. Every loop is
 * stopped after its test, pass or fail, so a failing test can't hang the file.
 */
export function useWatchLoops() {
  const running: { controller: AbortController; done?: Promise<void> }[] = [];
  afterEach(async () => {
    for (const r of running.splice(0)) {
      r.controller.abort();
      await r.done;
    }
  });

  function setup(opts: SetupOptions = {}) {
    const api = new FakeApi();
    const checkpoint = new MemoryCheckpoint();
    const sink = opts.sink ?? new RecordingSink();
    if (opts.timeoutSeconds !== undefined) api.honourTimeout = true;
    if (opts.checkpoint !== undefined) checkpoint.rvs.set('podsets/*', opts.checkpoint);
    const loop = new WatchLoop({
      resource: 'podsets',
      namespace: undefined,
      api,
      sink,
      checkpoint,
      logger: opts.logger ?? silentLogger,
      ...(opts.timeoutSeconds !== undefined ? { timeoutSeconds: opts.timeoutSeconds, random: () => 0 } : {}),
      stallGraceMs: opts.stallGraceMs ?? 60_000,
      ...(opts.maxInFlight !== undefined ? { maxInFlight: opts.maxInFlight } : {}),
      backoff: { baseMs: 10, maxMs: 50 },
    });
    const controller = new AbortController();
    const entry: { controller: AbortController; done?: Promise<void> } = { controller };
    running.push(entry);
    const start = () => (entry.done = loop.run(controller.signal));
    return { api, checkpoint, sink, loop, controller, start };
  }

  return setup;
}
