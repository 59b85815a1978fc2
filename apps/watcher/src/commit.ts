// Stage 5 of an event's path: commit. Once the batch's live requests went through, each event that owed one
// records so with the gate (with the projection: its entry marks the request made, so a re-delivered event
// owes nothing more) — unless the request's own transaction wrote that record (the admission's `record`).
// When any part of a batch failed, every event of it is rolled back with the gate (the pipeline does so in
// one place), so that the watch, which re-delivers them, finds them owing again.
import type { Admission } from './change-gate.ts';

/** Records the owed requests as made. Not recorded (Redis gone meanwhile): the next event owes one more. */
export async function commit(owed: ReadonlyMap<string, readonly Admission[]>): Promise<void> {
  const pending: Promise<void>[] = [];
  for (const owing of owed.values())
    for (const a of owing) if (a.record === undefined) pending.push(a.requested().catch(() => undefined));
  await Promise.all(pending);
}

/** The batch failed (a request or the event-log append): its events owe again when re-delivered. */
export function rollback(answers: readonly Admission[]): void {
  for (const a of answers) a.failed();
}
