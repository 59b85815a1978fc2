// A watch event as an event-log record. The record's format, the stream's writer (EventLog), its reader
// and its key belong to @podset/event-log; EventLog is re-exported for the watcher's wiring.
import type { EventRecord } from '@podset/event-log';
import { KIND, podSetControllerRef } from '@podset/reconcile';
import { keyFor, podReady, type Resource, type WatchedObject } from './keys.ts';

export { APPEND_RECORDS_LUA, EventLog, type EventRecord } from '@podset/event-log';

export function eventRecord(
  resource: Resource,
  type: string,
  obj: WatchedObject,
  /** When the watcher saw it (the caller's clock). */
  now: Date | string,
  /** The object's key when the caller has it already (keyFor). */
  key: string | undefined = keyFor(resource, obj),
): EventRecord {
  const record: EventRecord = {
    t: typeof now === 'string' ? now : now.toISOString(),
    type,
    kind: resource === 'pods' ? 'Pod' : KIND,
    key: key ?? '',
    name: obj.metadata?.name ?? '',
    rv: obj.metadata?.resourceVersion ?? '',
  };
  if (resource === 'pods') {
    if (obj.status?.phase !== undefined) record.phase = obj.status.phase;
    const ready = podReady(obj);
    if (ready !== undefined) record.ready = ready ? 'true' : 'false';
    // Written even when empty, so a reader tells "controlled by no PodSet" from an older watcher's entry.
    record.owner = podSetControllerRef(obj)?.uid ?? '';
  }
  if (obj.metadata?.deletionTimestamp !== undefined) record.deleting = 'true';
  return record;
}
