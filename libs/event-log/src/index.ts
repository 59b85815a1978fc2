export {
  APPEND_RECORDS_LUA,
  EventLog,
  MAX_RECORDS_PER_ENTRY,
  parseEventEntries,
  readRecent,
  deleteEventsOf,
  type EventRecord,
  type EventLogEntry,
  type EventLogOptions,
} from './event-log.ts';
