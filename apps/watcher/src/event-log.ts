// The event log: one compact record per watch event, appended to a capped Redis Stream
// (XADD … MAXLEN ~ N). The dashboard and audits read it (XREVRANGE key + - COUNT n).
import type { RedisClient } from '@podset/queue';
import { keyFor, podReady, type Resource, type WatchedObject } from './keys.ts';

/** One entry of the stream, all values strings as Redis stores them. */
export interface EventRecord {
  /** Time the watcher saw the event, ISO 8601. */
  t: string;
  /** ADDED | MODIFIED | DELETED, or RELIST (one marker per relist, key empty, n = objects listed). */
  type: string;
  /** PodSet | Pod */
  kind: string;
  /** The PodSet key `namespace/name` (for a pod: its owner's), empty when none. */
  key: string;
  /** The object's own name. */
  name: string;
  rv: string;
  /** Pods only. */
  phase?: string;
  ready?: 'true' | 'false';
  /** Set when the object carries a deletionTimestamp. */
  deleting?: 'true';
  n?: string;
}

export function eventRecord(
  resource: Resource,
  type: string,
  obj: WatchedObject,
  now: Date = new Date(),
): EventRecord {
  const record: EventRecord = {
    t: now.toISOString(),
    type,
    kind: resource === 'pods' ? 'Pod' : 'PodSet',
    key: keyFor(resource, obj) ?? '',
    name: obj.metadata?.name ?? '',
    rv: obj.metadata?.resourceVersion ?? '',
  };
  if (resource === 'pods') {
    if (obj.status?.phase !== undefined) record.phase = obj.status.phase;
    const ready = podReady(obj);
    if (ready !== undefined) record.ready = ready ? 'true' : 'false';
  }
  if (obj.metadata?.deletionTimestamp !== undefined) record.deleting = 'true';
  return record;
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

  async append(record: EventRecord): Promise<string> {
    const fields: string[] = [];
    for (const [k, v] of Object.entries(record)) if (v !== undefined) fields.push(k, String(v));
    const id = await this.#redis.xadd(this.key, 'MAXLEN', '~', this.#maxLen, '*', ...fields);
    return id ?? '';
  }

  /** Newest first; for tests and the dashboard. */
  async recent(count: number): Promise<(EventRecord & { id: string })[]> {
    const entries = await this.#redis.xrevrange(this.key, '+', '-', 'COUNT', count);
    return entries.map(([id, flat]) => {
      const obj: Record<string, string> = { id };
      for (let i = 0; i + 1 < flat.length; i += 2) obj[flat[i]!] = flat[i + 1]!;
      return obj as unknown as EventRecord & { id: string };
    });
  }
}
