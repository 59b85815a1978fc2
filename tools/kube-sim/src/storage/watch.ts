// Watch streams: chunked JSON lines of {"type","object"} (or, for a protobuf watch, length-prefixed
// WatchEvent frames), fed from the store's commits. Each event is serialized once and the string shared by
// every watcher that sees it unchanged.
import type { ServerResponse } from 'node:http';
import { ApiError, type KubeObject, type ResourceType } from '../apimachinery/types.ts';
import { resourceId } from '../apimachinery/resource-ids.ts';
import { tooLargeResourceVersion } from './errors.ts';
import { eventLine, type HistEvent, type Rec, type Store } from './store.ts';

/** What a watch writes per event: a JSON line, or a protobuf frame. One watch writes one kind only. */
export type WatchChunk = string | Buffer;

/**
 * How one watch writes its events: the representation the endpoint negotiated (JSON, Table, metadata only,
 * protobuf). Storage decides what a watcher sees and when; the endpoint decides how it reads.
 */
export interface WatchEncoder {
  /** The response's Content-Type. */
  readonly contentType: string;
  /**
   * An event's line. `shared` gives the store's line of this very event (serialized once for every watcher
   * that sees it unchanged), for an encoder whose representation is the stored JSON.
   */
  event(type: string, rec: Rec, shared: (() => string) | undefined): WatchChunk;
  /** A BOOKMARK's line, with the cache's resourceVersion and, for the initial-events-end one, its annotation. */
  bookmark(resourceVersion: string, annotations: Record<string, string> | undefined): WatchChunk;
  /** An ERROR event's line (410 Gone for a resourceVersion too old). */
  error(e: ApiError): WatchChunk;
}

/** The chunks of one watch as one write (they are all strings, or all Buffers). */
function joinChunks(chunks: WatchChunk[]): WatchChunk {
  return typeof chunks[0] === 'string' ? (chunks as string[]).join('') : Buffer.concat(chunks as Buffer[]);
}

/** The injected watch faults the hub obeys (kube-sim's control API sets them). */
export interface WatchFaults {
  readonly watchCutAfterSeconds: number | undefined;
  readonly watchCutAfterEvents: number | undefined;
  readonly watchCutMode: 'end' | 'reset';
  /** True once for each watch that is to get 410 Gone at its start. */
  takeExpiredWatch(): boolean;
}

export interface WatchParams {
  t: ResourceType;
  namespace: string | undefined;
  resourceVersion: string | undefined;
  resourceVersionMatch: string | undefined;
  sendInitialEvents: boolean | undefined;
  allowBookmarks: boolean;
  timeoutSeconds: number | undefined;
  filter: ((obj: KubeObject) => boolean) | undefined;
  /** The representation of this watch's events. */
  encoder: WatchEncoder;
  /** Only for watches of a single object (fieldSelector metadata.name=...). */
  name?: string | undefined;
}

const MAX_BUFFERED = 32 * 1024 * 1024;
/**
 * A replay (the events after a resumed watch's resourceVersion, or a watch's initial ADDED events) is written
 * as the client reads it: a chunk at a time, the next once the socket's buffer is below this. A real API
 * server sends them through a blocking channel at the client's pace; judging them by the slow-consumer rule
 * would drop a client that resumes far behind before it got any of them, and again at each resume.
 */
const REPLAY_CHUNK_BYTES = 1024 * 1024;

class Watcher {
  readonly p: WatchParams;
  readonly res: ServerResponse;
  readonly id: string;
  readonly sameVersion: boolean;
  sent = 0;
  closed = false;
  /** A silent stall: the connection stays open, nothing more is sent (no bookmark, no end at the timeout). */
  stalled = false;
  /** The resourceVersion the watch started at: periodic bookmarks only once the cache is past it. */
  startRv = 0;
  private pending: WatchChunk[] = [];
  private pendingBytes = 0;
  private flushScheduled = false;
  /**
   * While a replay is written: the lines of the live events that came meanwhile, sent after it (undefined
   * otherwise). Past MAX_BUFFERED the watcher is dropped, as one that can't keep up.
   */
  private held: WatchChunk[] | undefined;
  private heldBytes = 0;
  /** Set while the replay's own events are written (they go out before the held ones). */
  private replaying = false;
  timers: NodeJS.Timeout[] = [];
  onClose: () => void = () => {};
  hub: WatchHub;

  constructor(hub: WatchHub, p: WatchParams, res: ServerResponse) {
    this.hub = hub;
    this.p = p;
    this.res = res;
    this.id = resourceId(p.t);
    this.sameVersion = p.t.storage !== false;
  }

  /** Writes a replayed event, ahead of the live events held meanwhile. */
  replayed(write: () => void): void {
    this.replaying = true;
    try {
      write();
    } finally {
      this.replaying = false;
    }
  }

  /** The replay begins: live events are held until it ends. */
  holdLive(): void {
    this.held = [];
    this.heldBytes = 0;
  }

  /** The replay is written: the held live events follow it, and later ones as they come. */
  releaseLive(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const line of held) this.queue(line);
    this.heldBytes = 0;
  }

  /** Bytes of the replay not yet handed to the socket. */
  get unflushedBytes(): number {
    return this.pendingBytes;
  }

  /**
   * Hands what is queued to the socket; resolves once the socket's buffer is below REPLAY_CHUNK_BYTES (true)
   * or the watch closed (false).
   */
  async drain(): Promise<boolean> {
    this.flush();
    if (this.closed || this.res.destroyed) return false;
    if (this.res.writableLength <= REPLAY_CHUNK_BYTES) return true;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
    return !this.closed && !this.res.destroyed;
  }

  /** Offers a committed event; sends what this watcher should see of it. */
  offer(ev: HistEvent): void {
    if (this.closed) return;
    const obj = ev.rec.obj;
    if (this.p.namespace !== undefined && obj.metadata.namespace !== this.p.namespace) return;
    const f = this.p.filter;
    if (!f) {
      this.send(ev.type, ev.rec, () => eventLine(ev));
      return;
    }
    const now = f(obj);
    const before =
      ev.type === 'ADDED' ? false : ev.type === 'DELETED' ? now : ev.prev ? f(ev.prev.obj) : false;
    if (ev.type === 'DELETED') {
      if (now) this.send('DELETED', ev.rec, () => eventLine(ev));
      return;
    }
    if (now && before)
      this.send('MODIFIED', ev.rec, ev.type === 'MODIFIED' ? () => eventLine(ev) : undefined);
    else if (now && !before)
      this.send('ADDED', ev.rec, ev.type === 'ADDED' ? () => eventLine(ev) : undefined);
    else if (!now && before) this.send('DELETED', ev.rec);
  }

  send(type: string, rec: Rec, shared?: () => string): void {
    this.write(this.p.encoder.event(type, rec, shared));
  }

  /** Queues a line; lines of one burst of commits go out in one write (fewer syscalls under fan-out). */
  write(line: WatchChunk, countsAsEvent = true): void {
    if (this.closed || this.stalled) return;
    if (this.held !== undefined && !this.replaying) {
      this.held.push(line);
      this.heldBytes += line.length;
      if (this.heldBytes > MAX_BUFFERED) this.close('reset');
    } else if (this.held !== undefined) {
      // The replay's own line: the replay loop hands them to the socket as it drains (drain()).
      this.pending.push(line);
      this.pendingBytes += line.length;
    } else {
      this.queue(line);
    }
    if (!countsAsEvent) return;
    this.sent++;
    const limit = this.hub.faults.watchCutAfterEvents;
    if (limit !== undefined && this.sent >= limit) this.close(this.hub.faults.watchCutMode);
  }

  private queue(line: WatchChunk): void {
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0 || this.res.destroyed) return;
    const text = this.pending.length === 1 ? (this.pending[0] as WatchChunk) : joinChunks(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    this.res.write(text);
    if (this.res.writableLength > MAX_BUFFERED) {
      // A consumer that can't keep up is dropped, as the API server does.
      this.close('reset');
    }
  }

  bookmark(extra?: Record<string, string>): void {
    if (this.stalled) return;
    const rv = String(this.hub.cacheResourceVersion(this.id));
    this.write(this.p.encoder.bookmark(rv, extra), false);
  }

  close(mode: 'end' | 'reset' = 'end'): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.onClose();
    this.held = undefined;
    this.pendingBytes = 0;
    if (mode === 'reset') {
      this.pending = [];
      this.res.socket?.destroy();
    } else {
      const rest = this.pending.length === 0 ? '' : joinChunks(this.pending);
      this.pending = [];
      this.res.end(rest);
    }
  }
}

/** A real API server's bookmark period (its watch cache's bookmark frequency). */
export const DEFAULT_BOOKMARK_INTERVAL_MS = 60_000;
/** A real API server sends a last bookmark this long before a watch's timeoutSeconds ends it. */
const PRE_TIMEOUT_BOOKMARK_MS = 2000;

export class WatchHub {
  readonly store: Store;
  readonly faults: WatchFaults;
  bookmarkIntervalMs: number;
  /**
   * The store's resourceVersion when the watch cache was last built (start or restart). A watch resumed
   * from an older one gets 410, as from a restarted kube-apiserver, whose new watch cache holds no event
   * before it.
   */
  private cacheStart = 0;
  private readonly byResource = new Map<string, Set<Watcher>>();
  private readonly all = new Set<Watcher>();
  private readonly unsubscribe: () => void;

  constructor(store: Store, faults: WatchFaults, bookmarkIntervalMs = DEFAULT_BOOKMARK_INTERVAL_MS) {
    this.store = store;
    this.faults = faults;
    this.bookmarkIntervalMs = bookmarkIntervalMs;
    this.unsubscribe = store.onCommit((ev) => {
      const set = this.byResource.get(ev.resource);
      if (set) for (const w of set) w.offer(ev);
    });
  }

  get count(): number {
    return this.all.size;
  }

  /**
   * The watch cache's resourceVersion for a resource, as a real server's bookmarks carry it: that of the
   * resource's last change (the cache sees only its own resource's events), or of the cache's start if later.
   */
  cacheResourceVersion(resource: string): number {
    return Math.max(this.store.lastChange(resource), this.cacheStart);
  }

  /** The API server restarted: a new watch cache, with no event from before now (watches end separately). */
  restartCache(): void {
    this.cacheStart = this.store.resourceVersion;
  }

  /** Starts a watch on `res`. Validation errors are thrown before anything is written. */
  serve(p: WatchParams, res: ServerResponse): void {
    const id = resourceId(p.t);
    const from = this.startVersion(p);
    const initial = p.sendInitialEvents ?? from === undefined;
    res.writeHead(200, {
      'Content-Type': p.encoder.contentType,
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    res.flushHeaders();
    const w = new Watcher(this, p, res);
    if (this.faults.takeExpiredWatch()) {
      this.sendGone(w, from ?? this.store.resourceVersion, this.store.oldestResourceVersion);
      return;
    }
    w.startRv = from ?? this.cacheResourceVersion(id);
    const replay = !initial && from !== undefined ? this.history(w, from) : [];
    if (!replay) return;
    this.register(w, id);
    res.on('close', () => w.close());
    const deadline =
      p.timeoutSeconds !== undefined && p.timeoutSeconds > 0
        ? Date.now() + p.timeoutSeconds * 1000
        : undefined;
    this.stream(w, id, initial ? undefined : replay, deadline).catch(() => w.close('reset'));
  }

  /**
   * The watch's replay (its initial events, or the events after its resourceVersion) at the client's pace,
   * the live events that came meanwhile after it; then its bookmarks and its end.
   */
  private async stream(
    w: Watcher,
    id: string,
    replay: HistEvent[] | undefined,
    deadline: number | undefined,
  ): Promise<void> {
    // The timeout counts from the request, a replay's time included.
    this.scheduleEnd(w, deadline);
    w.holdLive();
    if (replay === undefined) await this.sendInitialEvents(w, id);
    else await this.sendReplay(w, id, replay);
    if (w.closed) return;
    w.releaseLive();
    if (w.closed) return;
    this.scheduleBookmarks(w, id, deadline);
  }

  /** The resourceVersion a watch resumes after (none: from now), its parameters validated. */
  private startVersion(p: WatchParams): number | undefined {
    const rvParam = p.resourceVersion;
    let from: number | undefined;
    if (rvParam && rvParam !== '0') {
      if (!/^\d+$/.test(rvParam))
        throw new ApiError(400, 'BadRequest', `Invalid value for resourceVersion: "${rvParam}"`);
      from = Number(rvParam);
      // An RV this server never reached (from another server instance, say): kube-apiserver answers 504
      // ResourceVersionTooLarge, on which client-go relists.
      if (from > this.store.resourceVersion) throw tooLargeResourceVersion(from, this.store.resourceVersion);
    }
    if (p.sendInitialEvents && p.resourceVersionMatch !== 'NotOlderThan') {
      throw new ApiError(422, 'Invalid', 'sendInitialEvents requires resourceVersionMatch=NotOlderThan', {
        causes: [{ reason: 'FieldValueForbidden', field: 'resourceVersionMatch', message: 'Forbidden' }],
      });
    }
    return from;
  }

  /** The events after `from`, to replay; undefined when the watch got 410 Gone instead (too old). */
  private history(w: Watcher, from: number): HistEvent[] | undefined {
    if (from < this.cacheStart) {
      this.sendGone(w, from, this.cacheStart);
      return undefined;
    }
    try {
      return this.store.historyEvents(from);
    } catch (e) {
      if (e instanceof ApiError && e.code === 410) {
        this.sendGone(w, from, this.store.oldestResourceVersion);
        return undefined;
      }
      throw e;
    }
  }

  /** The watcher is offered the resource's commits from now on, until it closes. */
  private register(w: Watcher, id: string): void {
    let set = this.byResource.get(id);
    if (!set) this.byResource.set(id, (set = new Set()));
    const mine = set;
    mine.add(w);
    this.all.add(w);
    w.onClose = () => {
      mine.delete(w);
      this.all.delete(w);
    };
  }

  /** ADDED for every stored object the watch selects, then (sendInitialEvents) the initial-events-end bookmark. */
  private async sendInitialEvents(w: Watcher, id: string): Promise<void> {
    const p = w.p;
    // A copy: the store's list may change while the replay waits on the client; what changes meanwhile
    // comes after it as live events.
    const recs = [...this.store.list(id, p.t.namespaced ? p.namespace : undefined)];
    for (const r of recs) {
      if (p.filter && !p.filter(r.obj)) continue;
      w.replayed(() => w.send('ADDED', r));
      if (w.closed) return;
      if (w.unflushedBytes >= REPLAY_CHUNK_BYTES && !(await w.drain())) return;
    }
    if (p.sendInitialEvents && p.allowBookmarks)
      w.replayed(() => w.bookmark({ 'k8s.io/initial-events-end': 'true' }));
    await w.drain();
  }

  private async sendReplay(w: Watcher, id: string, replay: HistEvent[]): Promise<void> {
    for (const ev of replay) {
      if (ev.resource !== id) continue;
      w.replayed(() => w.offer(ev));
      if (w.closed) return;
      if (w.unflushedBytes >= REPLAY_CHUNK_BYTES && !(await w.drain())) return;
    }
    await w.drain();
  }

  /**
   * Bookmarks as kube-apiserver's watch cache sends them: about every bookmarkIntervalMs and once more just
   * before the timeout ends the watch, each carrying the cache's resourceVersion for the resource, and only
   * once that is past the watch's start (a watch of a resource that has not changed gets none).
   */
  private scheduleBookmarks(w: Watcher, id: string, deadline: number | undefined): void {
    const interval = this.bookmarkIntervalMs;
    if (!w.p.allowBookmarks || !(interval > 0)) return;
    // The pre-timeout bookmark is the last: a timer may fire a millisecond before Date.now() reaches its
    // time, and rescheduling from there would send that bookmark twice.
    let last = false;
    const schedule = (): void => {
      const now = Date.now();
      let at = now + interval;
      if (deadline !== undefined && deadline - PRE_TIMEOUT_BOOKMARK_MS <= at) {
        at = deadline - PRE_TIMEOUT_BOOKMARK_MS;
        last = true;
      }
      if (at <= now) return;
      w.timers.push(setTimeout(tick, at - now).unref());
    };
    const tick = (): void => {
      if (w.closed) return;
      if (this.cacheResourceVersion(id) > w.startRv) w.bookmark();
      if (!last) schedule();
    };
    schedule();
  }

  /** The end at timeoutSeconds, and the cut of the faults (watchCutAfterSeconds). */
  private scheduleEnd(w: Watcher, deadline: number | undefined): void {
    if (deadline !== undefined) {
      // A stalled watch sends nothing, not even its end: the client must notice by itself.
      const end = (): void => (w.stalled ? undefined : w.close('end'));
      w.timers.push(setTimeout(end, deadline - Date.now()).unref());
    }
    const cut = this.faults.watchCutAfterSeconds;
    if (cut !== undefined && cut > 0) {
      w.timers.push(setTimeout(() => w.close(this.faults.watchCutMode), cut * 1000).unref());
    }
  }

  private sendGone(w: Watcher, from: number, oldest: number): void {
    w.res.write(
      w.p.encoder.error(new ApiError(410, 'Expired', `too old resource version: ${from} (${oldest})`)),
    );
    w.closed = true;
    w.res.end();
  }

  /** Stalls every open watch: connections stay open, nothing more is sent. Returns how many. */
  stallAll(): number {
    for (const w of this.all) w.stalled = true;
    return this.all.size;
  }

  /** Ends every watch (API server restart or pause). */
  closeAll(mode: 'end' | 'reset' = 'end'): void {
    for (const w of [...this.all]) w.close(mode);
  }

  stop(): void {
    this.closeAll();
    this.unsubscribe();
  }
}

export type { KubeObject };
