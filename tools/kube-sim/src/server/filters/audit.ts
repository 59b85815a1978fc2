// The audit log: every request, in memory (bounded) and optionally as JSON lines in a file.
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Filter, RequestAttributes } from './chain.ts';

/** A request's entry: who did what (./chain.ts's RequestAttributes), when, how it was answered. */
export interface AuditEntry extends RequestAttributes {
  /** Its place in the log: 1 for the first entry recorded, one more for each after it. */
  seq: number;
  time: string;
  userAgent: string;
  code: number;
  latencyMs: number;
  method: string;
  path: string;
}

export type AuditQuery = Partial<
  Pick<AuditEntry, 'user' | 'verb' | 'resource' | 'subresource' | 'namespace' | 'name' | 'code'>
> & {
  since?: string;
  /**
   * Only entries recorded after `mark()` returned this. Unlike `since`, exact: an entry recorded in the
   * same millisecond as a barrier's clock reading is on the right side of it.
   */
  after?: number;
};

export class Audit {
  private entries: AuditEntry[] = [];
  private readonly max: number;
  private file: WriteStream | undefined;
  private readonly listeners = new Set<(e: AuditEntry) => void>();
  private lastSeq = 0;

  constructor(opts: { file?: string; max?: number } = {}) {
    this.max = opts.max ?? 200_000;
    if (opts.file) this.file = createWriteStream(opts.file, { flags: 'a' });
  }

  record(entry: Omit<AuditEntry, 'seq'>): void {
    const e: AuditEntry = { seq: ++this.lastSeq, ...entry };
    this.entries.push(e);
    if (this.entries.length > this.max * 1.25)
      this.entries = this.entries.slice(this.entries.length - this.max);
    this.file?.write(JSON.stringify(e) + '\n');
    for (const l of this.listeners) l(e);
  }

  /** Entries matching every given field, oldest first. */
  query(q: AuditQuery = {}): AuditEntry[] {
    return this.entries.filter(
      (e) =>
        (q.user === undefined || e.user === q.user) &&
        (q.verb === undefined || e.verb === q.verb) &&
        (q.resource === undefined || e.resource === q.resource) &&
        (q.subresource === undefined || e.subresource === q.subresource) &&
        (q.namespace === undefined || e.namespace === q.namespace) &&
        (q.name === undefined || e.name === q.name) &&
        (q.code === undefined || e.code === q.code) &&
        (q.since === undefined || e.time >= q.since) &&
        (q.after === undefined || e.seq > q.after),
    );
  }

  /** The place of the last entry recorded so far: `query({ after })` with it gives what comes later. */
  mark(): number {
    return this.lastSeq;
  }

  all(): AuditEntry[] {
    return [...this.entries];
  }

  clear(): void {
    this.entries = [];
  }

  onEntry(l: (e: AuditEntry) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  async close(): Promise<void> {
    const f = this.file;
    this.file = undefined;
    if (f) await new Promise<void>((resolve) => f.end(resolve));
  }
}

/**
 * The audit filter: every request gets an entry when its response ends (or earlier, when a handler records
 * it: a watch as its stream starts), with what the later filters resolved of it.
 */
export function withAudit(audit: Audit): Filter {
  return async (ctx, next) => {
    const { req, res, attributes: a } = ctx;
    let audited = false;
    ctx.record = (): void => {
      if (audited) return;
      audited = true;
      audit.record({
        time: new Date().toISOString(),
        userAgent: String(req.headers['user-agent'] ?? ''),
        user: a.user,
        verb: a.verb || req.method?.toLowerCase() || '',
        resource: a.resource,
        subresource: a.subresource,
        namespace: a.namespace,
        name: a.name,
        code: res.statusCode,
        latencyMs: Math.round((performance.now() - ctx.started) * 1000) / 1000,
        method: req.method ?? '',
        path: ctx.path,
      });
    };
    res.on('finish', ctx.record);
    res.on('close', ctx.record);
    await next();
  };
}
