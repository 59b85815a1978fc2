// Stage 5 of an event's path: commit. Once a key's live request went through, each event that owed it
// records so with the gate (with the projection: its entry marks the request made, so a re-delivered event
// owes nothing more) — unless the request's own transaction wrote that record (the admission's `record`). When any part of a batch failed, every event of it is rolled back with the gate, so
// that the watch, which re-delivers them, finds them owing again.
import type { Admission } from './change-gate.ts';

/** Records the events' owed request as made. Not recorded (Redis gone meanwhile): the next event owes one more. */
export async function commit(owing: readonly Admission[]): Promise<void> {
  await Promise.all(
    owing.map((a) => (a.record !== undefined ? undefined : a.requested().catch(() => undefined))),
  );
}

/** The batch failed (a request or the event-log append): its events owe again when re-delivered. */
export function rollback(answers: readonly Admission[]): void {
  for (const a of answers) a.failed();
}
