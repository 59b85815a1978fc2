// Stage 2 of an event's path: key and log. Each event of a batch gets the PodSet key it concerns (a pod:
// its controlling PodSet's), and its event-log record, all stamped with the batch's one time.
import type { KeyedEvent } from './change-gate.ts';
import { eventRecord, type EventRecord } from './event-log.ts';
import { keyFor } from './keys.ts';
import type { Logger } from '@podset/log';
import type { WatchEvent } from './watch-loop.ts';

export interface KeyedBatch {
  /** The events that concern a PodSet, in order, each with its key. */
  keyed: KeyedEvent[];
  /** One record per event, keyed or not (empty when no event log is kept). */
  records: EventRecord[];
  /** Events that concern no PodSet (a pod no PodSet controls, nor its label names). */
  unkeyed: number;
}

export function keyAndLog(
  events: readonly WatchEvent[],
  opts: { seenAt: string; log: boolean; logger: Logger },
): KeyedBatch {
  const batch: KeyedBatch = { keyed: [], records: [], unkeyed: 0 };
  for (const ev of events) {
    const key = keyFor(ev.resource, ev.object);
    if (key === undefined) batch.unkeyed++;
    else batch.keyed.push({ ev, key });
    if (opts.log) batch.records.push(eventRecord(ev.resource, ev.type, ev.object, opts.seenAt, key));
    opts.logger.debug(
      {
        stream: ev.stream,
        type: ev.type,
        kind: ev.resource,
        podset: key,
        name: ev.object.metadata?.name,
        rv: ev.rv,
      },
      'watch event',
    );
  }
  return batch;
}
