export {
  APPEND_RECORDS_LUA,
  EventLog,
  parseEventEntry,
  deleteEventsOf,
  type EventRecord,
  type RecordHead,
  type EventLogEntry,
  type EventLogOptions,
} from './event-log.ts';
