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

/**
 * The most records one entry holds. The cap (MAXLEN) counts entries: this bounds how many more records
 * than entries it keeps; past 8 a record's share of its XADD is already small.
 */
export const MAX_RECORDS_PER_ENTRY = 8;

/** Consecutive records with one time and one key, at most MAX_RECORDS_PER_ENTRY: one stream entry. */
interface Run {
  t: string;
  key: string;
  records: Omit<EventRecord, 't' | 'key'>[];
}

function runsOf(records: readonly EventRecord[]): Run[] {
  const runs: Run[] = [];
  let run: Run | undefined;
  for (const { t, key, ...rest } of records) {
    if (run === undefined || run.t !== t || run.key !== key || run.records.length === MAX_RECORDS_PER_ENTRY)
      runs.push((run = { t, key, records: [] }));
    run.records.push(rest);
  }
  return runs;
}

/** A record as read back, with its stream entry id. */
export type EventLogEntry = EventRecord & { id: string };

/**
 * A stream entry's records, in the order they were appended: an entry of appendMany holds a batch's run of
 * one key's records (fields t, key, records), one of append or of an older watcher a single record as its
 * fields. Every record of an entry carries the entry's id. None for an entry that is not a record (e.g.
 * BullMQ's own events) or whose records do not parse.
 */
export function parseEventEntries(id: string, flat: readonly string[]): EventLogEntry[] {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i]!] = flat[i + 1]!;
  if (f.records === undefined) {
    const one = recordOf(id, f);
    return one === undefined ? [] : [one];
  }
  if (f.t === undefined || f.key === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(f.records);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const out: EventLogEntry[] = [];
  for (const r of parsed as unknown[]) {
    if (typeof r !== 'object' || r === null) continue;
    const fields: Record<string, string> = { t: f.t, key: f.key };
    for (const [k, v] of Object.entries(r)) if (typeof v === 'string') fields[k] = v;
    const one = recordOf(id, fields);
    if (one !== undefined) out.push(one);
  }
  return out;
}

/**
 * The newest `count` records of the stream at `key`, newest first, from its newest `count` entries (an
 * entry may hold several records: the newest `count` of them, as when each had its own). Entries that are
 * not records (BullMQ's own events may share a stream) read as none; undefined when the stream has no
 * entry at all.
 */
export async function readRecent(
  redis: RedisClient,
  key: string,
  count: number,
): Promise<EventLogEntry[] | undefined> {
  const entries = await redis.xrevrange(key, '+', '-', 'COUNT', count);
  if (entries.length === 0) return undefined;
  return entries.flatMap(([id, flat]) => parseEventEntries(id, flat).reverse()).slice(0, count);
}

/** A record's fields as a record; undefined when they are not one. */
function recordOf(id: string, f: Record<string, string>): EventLogEntry | undefined {
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
  /** Approximate cap (MAXLEN ~) in entries, each of up to MAX_RECORDS_PER_ENTRY records. Default 10000. */
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
   * Returns each record's entry id, in order (the records of one entry share it).
   */
  async appendMany(records: readonly EventRecord[]): Promise<string[]> {
    if (records.length === 0) return [];
    const runs = runsOf(records);
    const ids = (await runScript(this.#redis, APPEND_MANY, [this.key], this.#argsOf(runs))) as string[];
    return runs.flatMap((run, i) => run.records.map(() => ids[i]!));
  }

  /**
   * What APPEND_RECORDS_LUA's appendRecords takes to append `records` here (for a script of another module
   * that appends in its own call): the cap, then one stream entry per run of records with the same time
   * and key — its time, its key, and its records without them as a JSON array.
   */
  appendArgs(records: readonly EventRecord[]): string[] {
    return this.#argsOf(runsOf(records));
  }

  #argsOf(runs: readonly Run[]): string[] {
    const argv = [String(this.#maxLen)];
    for (const run of runs) argv.push(run.t, run.key, JSON.stringify(run.records));
    return argv;
  }

  /** The newest `count` records, newest first (from at most `count` entries); entries that are not records are skipped. */
  async recent(count: number): Promise<EventLogEntry[]> {
    return (await readRecent(this.#redis, this.key, count)) ?? [];
  }
}

/**
 * Lua defining `appendRecords(stream, args, at)`: appends the entries of `args` from `at` on (appendArgs
 * made them) to the stream, and trims it. For a script that appends in the same call as its own writes.
 */
export const APPEND_RECORDS_LUA = luaModule(
  'append-records',
  new URL('./lua/append-records.lua', import.meta.url),
);

/** KEYS[1] the stream. ARGV: what appendArgs makes. Returns the entry ids. */
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
