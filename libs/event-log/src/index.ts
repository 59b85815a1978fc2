export {
  APPEND_RECORDS_LUA,
  EventLog,
  parseEventEntry,
  deleteEventsOf,
  type EventRecord,
  type EventLogEntry,
  type EventLogOptions,
} from './event-log.ts';
