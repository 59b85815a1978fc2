// Stage 3 of an event's path: fold and admit. The batch's keyed events go to the change gate in one call
// (with the projection, the one place a batch enters it: Projector.admit folds them all in a few Redis
// calls), which answers per event whether it owes a reconcile. The answers are sorted here into the keys
// to request live (one request per key of the batch, however many of its events owe it) and a count per
// outcome.
import type { Admission, BatchWindows, ChangeGate, EventOutcome, KeyedEvent } from './change-gate.ts';
import type { EventRecord } from './event-log.ts';
import type { BatchSpans } from './event-tracing.ts';

export interface Admitted {
  /** The gate's answers, one per keyed event, in order. */
  answers: Admission[];
  /** Each key owed a live request, with the admissions its request records once it went through. */
  owed: Map<string, Admission[]>;
  /** The keys whose request the gate's call merged into their pending job (each a request made). */
  merged: Set<string>;
  tally: Record<Exclude<EventOutcome, 'unkeyed'>, number>;
}

export async function admit(
  gate: ChangeGate,
  keyed: readonly KeyedEvent[],
  opts: {
    /** With tracing on: the batch's spans (an event that requests, or is covered, gets one). */
    spans: BatchSpans | undefined;
    /** The batch's event-log records, for a gate that appends them (ChangeGate.appendsLog). */
    log?: readonly EventRecord[];
    /** How long each key's status-only request waits (for the queue's cover rule in the gate's call). */
    windows?: BatchWindows;
  },
): Promise<Admitted> {
  const answers = await gate.admit(keyed, opts.log, opts.windows);
  const admitted: Admitted = {
    answers,
    owed: new Map(),
    merged: new Set(),
    tally: { requested: 0, coalesced: 0, covered: 0, merged: 0, unchanged: 0, superseded: 0 },
  };
  const spans = opts.spans;
  answers.forEach((a, i) => {
    const event = keyed[i]!;
    if (!a.owed) {
      const outcome = a.queueAnswer ?? (a.superseded === true ? 'superseded' : 'unchanged');
      admitted.tally[outcome]++;
      if (outcome === 'merged') admitted.merged.add(event.key);
      if (outcome === 'covered') spans?.event(event, outcome);
      return;
    }
    const owing = admitted.owed.get(event.key);
    let outcome: EventOutcome;
    if (owing === undefined) {
      admitted.owed.set(event.key, [a]);
      outcome = 'requested';
    } else {
      owing.push(a);
      outcome = 'coalesced';
    }
    admitted.tally[outcome]++;
    spans?.event(event, outcome);
  });
  return admitted;
}
