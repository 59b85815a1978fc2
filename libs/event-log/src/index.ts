export {
  EventLog,
  parseEventEntry,
  deleteEventsOf,
  type EventRecord,
  type EventLogEntry,
  type EventLogOptions,
} from './event-log.ts';
