// The event log: one compact record per watch event, appended by the watcher to a capped Redis Stream
// next to the queue's keys, read by the dashboard, and a deleted PodSet's entries removed by the worker's
// cleanup (libs/queue's forgetKey). The record's format, its writer, its reader and its deleter live here
// so they cannot drift; its key is spelled with the others in libs/redis (eventLogKeyOf).
import { luaModule, luaScriptOf, runScript, type RedisClient } from '@podset/redis';

/** One record, all values strings as Redis stores them. */
export interface EventRecord {
  /** Time the watcher saw the event, ISO 8601. */
  t: string;
  /** ADDED | MODIFIED | DELETED, or RELIST (one marker per relist, key empty, n = objects listed). */
  type: string;
  /** PodSet | Pod */
  kind: string;
  /** The PodSet key `namespace/name` (for a pod: its owner's), empty when none. The deleter matches it. */
  key: string;
  /** The object's own name. */
  name: string;
  rv: string;
  /** Pods only. */
  phase?: string;
  ready?: 'true' | 'false';
  /**
   * Pods only: the uid of the PodSet that is the pod's controller, empty when no PodSet controls it (the
   * pod is filed under a key by its label only). Absent in entries of a watcher that did not record it.
   */
  owner?: string;
  /** Set when the object carries a deletionTimestamp. */
  deleting?: 'true';
  n?: string;
}

/** The fields a record's appender may already hold as its own arguments, in the order a record has them. */
export type RecordHead = Pick<EventRecord, 'type' | 'kind' | 'key' | 'name' | 'rv'>;

const HEAD = ['t', 'type', 'kind', 'key', 'name', 'rv'] as const;
/** The fields after the head a short record may carry, in record order (append-records.lua's OPTIONAL). */
const OPTIONAL = ['phase', 'ready', 'owner', 'deleting'] as const;

/**
 * `record` as a short record against `head` (its mask '+…', then its optional values), or undefined when
 * the short form would not give back exactly its fields in their order.
 */
function shortTail(record: EventRecord, head: RecordHead, t: string): string[] | undefined {
  const entries = Object.entries(record).filter(([, v]) => v !== undefined);
  if (entries.length < HEAD.length) return undefined;
  for (let i = 0; i < HEAD.length; i++) {
    const [k, v] = entries[i]!;
    const want = i === 0 ? t : head[HEAD[i] as keyof RecordHead];
    if (k !== HEAD[i] || String(v) !== want) return undefined;
  }
  const mask = ['+'];
  const values: string[] = [];
  let j = 0;
  for (const [k, v] of entries.slice(HEAD.length)) {
    const at = OPTIONAL.indexOf(k as (typeof OPTIONAL)[number], j);
    if (at < 0) return undefined;
    for (; j < at; j++) mask.push('0');
    mask.push('1');
    j++;
    values.push(String(v));
  }
  return [mask.join(''), ...values];
}

/** A record as read back, with its stream entry id. */
export type EventLogEntry = EventRecord & { id: string };

/** A stream entry as a record; undefined for an entry that is not one (e.g. BullMQ's own events). */
export function parseEventEntry(id: string, flat: readonly string[]): EventLogEntry | undefined {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i]!] = flat[i + 1]!;
  if (f.t === undefined || f.type === undefined) return undefined;
  if (f.kind === undefined && f.type !== 'RELIST') return undefined;
  return {
    id,
    t: f.t,
    type: f.type,
    kind: f.kind ?? '',
    key: f.key ?? '',
    name: f.name ?? '',
    rv: f.rv ?? '',
    ...(f.phase !== undefined ? { phase: f.phase } : {}),
    ...(f.ready === 'true' || f.ready === 'false' ? { ready: f.ready } : {}),
    ...(f.owner !== undefined ? { owner: f.owner } : {}),
    ...(f.deleting === 'true' ? { deleting: 'true' as const } : {}),
    ...(f.n !== undefined ? { n: f.n } : {}),
  };
}

export interface EventLogOptions {
  redis: RedisClient;
  key: string;
  /** Approximate cap (MAXLEN ~). Default 10000. */
  maxLen?: number;
}

export class EventLog {
  readonly key: string;
  readonly #redis: RedisClient;
  readonly #maxLen: number;

  constructor(options: EventLogOptions) {
    this.#redis = options.redis;
    this.key = options.key;
    this.#maxLen = options.maxLen ?? 10_000;
  }

  /** Appends a record (XADD … MAXLEN ~ maxLen); returns its entry id. */
  async append(record: EventRecord): Promise<string> {
    const fields: string[] = [];
    for (const [k, v] of Object.entries(record)) if (v !== undefined) fields.push(k, String(v));
    const id = await this.#redis.xadd(this.key, 'MAXLEN', '~', this.#maxLen, '*', ...fields);
    return id ?? '';
  }

  /**
   * Appends records in order in one Redis call (a burst of watch events: one script, not one XADD each).
   * Returns their entry ids, in order.
   */
  async appendMany(records: readonly EventRecord[]): Promise<string[]> {
    if (records.length === 0) return [];
    return (await runScript(this.#redis, APPEND_MANY, [this.key], this.appendArgs(records))) as string[];
  }

  /**
   * What APPEND_RECORDS_LUA's appendRecords takes to append `records` here: the cap, the time, then the
   * records (for a script of another module that appends in its own call). With `heads` — what that
   * script's own arguments give the records of its events, in order (a fold's type, kind, key, name and
   * rv) — a record whose fields start with the next head's values, at the call's time, is sent short: only
   * its optional fields, the rest built in the script (fewer arguments per event). Any other record is sent
   * in full, so the stream gets the same entry either way.
   */
  appendArgs(records: readonly EventRecord[], heads: readonly RecordHead[] = []): string[] {
    const t = records[0]?.t ?? '';
    const argv: string[] = [String(this.#maxLen), t];
    let next = 0;
    for (const record of records) {
      const head = heads[next];
      const tail = head === undefined ? undefined : shortTail(record, head, t);
      if (tail !== undefined) {
        next++;
        for (const arg of tail) argv.push(arg);
        continue;
      }
      const count = argv.push('') - 1; // its field count, once known
      for (const [k, v] of Object.entries(record)) if (v !== undefined) argv.push(k, String(v));
      argv[count] = String(argv.length - count - 1);
    }
    return argv;
  }

  /** The newest `count` entries, newest first; entries that are not records are skipped. */
  async recent(count: number): Promise<EventLogEntry[]> {
    const entries = await this.#redis.xrevrange(this.key, '+', '-', 'COUNT', count);
    return entries.flatMap(([id, flat]) => parseEventEntry(id, flat) ?? []);
  }
}

/**
 * Lua defining `appendRecords(stream, args, at, headOf)`: appends the records of `args` from `at` on
 * (appendArgs made them) to the stream, and trims it; `headOf(j)` answers the type, kind, key, name and rv
 * of the j-th short record (from 0), the heads appendArgs was given. For a script that appends in the same
 * call as its own writes.
 */
export const APPEND_RECORDS_LUA = luaModule(
  'append-records',
  new URL('./lua/append-records.lua', import.meta.url),
);

/** KEYS[1] the stream. ARGV: MAXLEN, the time, then the records in full. Returns the entry ids. */
const APPEND_MANY = luaScriptOf(new URL('./lua/append.lua', import.meta.url), [APPEND_RECORDS_LUA]);

/**
 * KEYS[1] the stream. ARGV: the PodSet key, start id ('-' or '(' .. last id returned), chunk size.
 * XDELs the entries whose `key` field is exactly the key (default/web never matches default/web-2).
 * Returns {examined, deleted, lastId}.
 */
const EVENT_LOG_DELETE = luaScriptOf(new URL('./lua/delete.lua', import.meta.url));

/**
 * Deletes the records of PodSet `key` from the stream, `chunk` entries a script call (so Redis is never
 * blocked for long), examining at most about `maxScan` entries (`truncated` when that stopped it).
 */
export async function deleteEventsOf(
  client: RedisClient,
  stream: string,
  key: string,
  chunk: number,
  maxScan: number,
): Promise<{ deleted: number; truncated: boolean }> {
  let start = '-';
  let deleted = 0;
  let examined = 0;
  for (;;) {
    const raw = await runScript(client, EVENT_LOG_DELETE, [stream], [key, start, String(chunk)]);
    const [n, d, last] = raw as [number, number, string];
    deleted += d;
    examined += n;
    if (n < chunk) return { deleted, truncated: false };
    if (examined >= maxScan) return { deleted, truncated: true };
    start = `(${last}`;
  }
}
