// BullMQ's add reads and writes a few values of the queue beside the job: it INCRs the job-id counter (even
// for a job with its own id, as every job of ours is), INCRs the priority counter for a prioritized job, and
// trims the event stream to the length in the queue's meta (opts.maxLenEvents). Anyone holding an app user's
// Redis password can write any of them; one that is not an integer makes every add fail, and the queue would
// take no request ever again. None of them carries anything of ours: our job ids never come from the id
// counter, the priority counter only orders jobs of one priority, and BullMQ sets the event-stream length
// again (10000) when it finds none. So when an add fails, each is checked, and one out of bounds is reported
// by its key (never its value, which is whatever the writer chose) and deleted, before the add is tried again.
import { bullKeys } from '@podset/redis';

/** What the check needs of a Redis client. */
export interface RepairClient {
  type(key: string): Promise<string>;
  get(key: string): Promise<string | null>;
  del(key: string): Promise<number>;
  hget(key: string, field: string): Promise<string | null>;
  hdel(key: string, field: string): Promise<number>;
}

/** A value the add reads that was out of bounds and was deleted: its key (and hash field). */
export interface AddInputRepair {
  key: string;
  field?: string;
  why: string;
}

/** Counters stay far below 2^53 (BullMQ counts one per add); the event stream's length is positive. */
const INTEGER = /^[0-9]{1,15}$/;
const MAX_EVENTS_FIELD = 'opts.maxLenEvents';

/** Why `value` (of Redis type `type`) is not an integer BullMQ can count on, or undefined when it is one. */
function notAnInteger(type: string, value: string | null): string | undefined {
  if (type !== 'string') return `a ${type}, not an integer`;
  return INTEGER.test(value ?? '') ? undefined : 'not an integer below 10^15';
}

/** Deletes every value the add reads under `jobPrefix` ("<prefix>:<queue>:") that is out of bounds. */
export async function repairAddInputs(client: RepairClient, jobPrefix: string): Promise<AddInputRepair[]> {
  const repaired: AddInputRepair[] = [];
  const keys = bullKeys(jobPrefix);
  for (const key of [`${jobPrefix}id`, keys.pc]) {
    const type = await client.type(key);
    if (type === 'none') continue;
    const why = notAnInteger(type, type === 'string' ? await client.get(key) : null);
    if (why === undefined) continue;
    await client.del(key);
    repaired.push({ key, why });
  }
  const meta = keys.meta;
  const metaType = await client.type(meta);
  if (metaType !== 'none' && metaType !== 'hash') {
    await client.del(meta);
    repaired.push({ key: meta, why: `a ${metaType}, not the queue's settings` });
  } else if (metaType === 'hash') {
    const maxEvents = await client.hget(meta, MAX_EVENTS_FIELD);
    if (maxEvents !== null && (!INTEGER.test(maxEvents) || Number(maxEvents) === 0)) {
      await client.hdel(meta, MAX_EVENTS_FIELD);
      repaired.push({ key: meta, field: MAX_EVENTS_FIELD, why: 'not a positive integer below 10^15' });
    }
  }
  return repaired;
}
