// An in-memory WatchApi with fault switches, for the watch loop's unit tests (no server needed).
import type { ListPage, WatchApi } from '../src/kube-api.ts';
import type { Resource, WatchedObject } from '../src/keys.ts';

type Ev = { type: string; object: WatchedObject & { code?: number; message?: string } };

export class ApiError extends Error {
  readonly code: number;
  readonly retryAfterSeconds: number | undefined;
  constructor(code: number, retryAfterSeconds?: number) {
    super(`HTTP ${code}`);
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

interface Stream {
  mode: 'live' | 'stalled';
  fail?: Error;
  end?: boolean;
  wake: () => void;
}

/** How the fake issues resourceVersions, and reads one back (undefined: none it issued). */
export interface RvFormat {
  issue(n: number): string;
  read(rv: string): number | undefined;
}

const DECIMAL: RvFormat = {
  issue: (n) => String(n),
  read: (rv) => (/^[0-9]+$/.test(rv) ? Number(rv) : undefined),
};

export class FakeApi implements WatchApi {
  rv = 100;
  /** Decimal, as etcd-backed servers issue them; a test may make them opaque. */
  rvFormat: RvFormat = DECIMAL;
  objects = new Map<string, WatchedObject>();
  history: { rv: number; ev: Ev }[] = [];
  /** Oldest RV a watch may start from; older → 410. */
  oldest = 0;
  /** Errors the next calls throw, in order (list and watch share it). */
  failNext: Error[] = [];
  /** Next watch: deliver this ERROR event first. */
  errorEvent: Ev | undefined;
  readonly calls = { list: 0, watch: 0, watchFrom: [] as (string | undefined)[] };
  /** End every watch at the timeoutSeconds it asked for, as an API server does (a stalled one excepted). */
  honourTimeout = false;
  readonly streams = new Set<Stream>();

  change(name: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', extra: Partial<WatchedObject> = {}): string {
    this.rv++;
    const obj: WatchedObject = {
      apiVersion: 'podset.io/v1',
      kind: 'PodSet',
      metadata: { name, namespace: 'default', resourceVersion: this.rvFormat.issue(this.rv) },
      ...extra,
    };
    if (type === 'DELETED') this.objects.delete(name);
    else this.objects.set(name, obj);
    this.history.push({ rv: this.rv, ev: { type, object: obj } });
    for (const s of this.streams) s.wake();
    return this.rvFormat.issue(this.rv);
  }

  bookmark(): void {
    this.rv++;
    this.history.push({
      rv: this.rv,
      ev: { type: 'BOOKMARK', object: { metadata: { resourceVersion: this.rvFormat.issue(this.rv) } } },
    });
    for (const s of this.streams) s.wake();
  }

  /** Every open stream fails as a broken connection would. */
  cut(): void {
    for (const s of this.streams) {
      s.fail = new Error('socket hang up (ECONNRESET)');
      s.wake();
    }
  }

  /** Every open stream ends cleanly (server-side timeout). */
  endAll(): void {
    for (const s of this.streams) {
      s.end = true;
      s.wake();
    }
  }

  /** Every open stream stops delivering anything, without closing. */
  stall(): void {
    for (const s of this.streams) s.mode = 'stalled';
  }

  async list(_r: Resource, _ns: string | undefined, _o: { signal?: AbortSignal }): Promise<ListPage> {
    this.calls.list++;
    const err = this.failNext.shift();
    if (err !== undefined) throw err;
    return { items: [...this.objects.values()], metadata: { resourceVersion: this.rvFormat.issue(this.rv) } };
  }

  watch(
    _r: Resource,
    _ns: string | undefined,
    opts: { resourceVersion?: string; timeoutSeconds?: number; signal: AbortSignal },
  ): AsyncIterable<Ev[]> {
    this.calls.watch++;
    this.calls.watchFrom.push(opts.resourceVersion);
    return this.#stream(opts.resourceVersion, opts.signal, opts.timeoutSeconds);
  }

  /** One event an array, as a watch whose every read from the socket holds one line. */
  async *#stream(
    from: string | undefined,
    signal: AbortSignal,
    timeoutSeconds?: number,
  ): AsyncGenerator<Ev[]> {
    const err = this.failNext.shift();
    if (err !== undefined) throw err;
    const read = from === undefined ? this.rv : this.rvFormat.read(from);
    if (read === undefined) throw new ApiError(400); // as kube-apiserver refuses a version it cannot parse
    let cursor = read;
    if (cursor < this.oldest) {
      yield [{ type: 'ERROR', object: { code: 410, message: 'too old resource version' } }];
      return;
    }
    if (this.errorEvent !== undefined) {
      const ev = this.errorEvent;
      this.errorEvent = undefined;
      yield [ev];
      return;
    }
    let wake: () => void = () => {};
    const stream: Stream = { mode: 'live', wake: () => wake() };
    this.streams.add(stream);
    const onAbort = () => wake();
    signal.addEventListener('abort', onAbort);
    const timeout =
      this.honourTimeout && timeoutSeconds !== undefined
        ? setTimeout(() => {
            stream.end = true;
            stream.wake();
          }, timeoutSeconds * 1000)
        : undefined;
    try {
      for (;;) {
        if (signal.aborted) return;
        if (stream.fail !== undefined) throw stream.fail;
        if (stream.end === true && stream.mode === 'live') return;
        const next = stream.mode === 'live' ? this.history.find((h) => h.rv > cursor) : undefined;
        if (next !== undefined) {
          cursor = next.rv;
          yield [next.ev];
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      clearTimeout(timeout);
      signal.removeEventListener('abort', onAbort);
      this.streams.delete(stream);
    }
  }
}
