export {
  APPEND_RECORDS_LUA,
  EventLog,
  parseEventEntries,
  recordsNewestFirst,
  deleteEventsOf,
  type EventRecord,
  type EventLogEntry,
  type EventLogOptions,
} from './event-log.ts';
