// Which of a batch's events the projection's fold can skip: a MODIFIED whose object has a later MODIFIED in
// the same batch. The fold keeps an object's newest version and compares its inputs with those last
// *requested*, not with the event before it, so folding only the later one stores the same entry and owes
// what the two together owed: a batch at a kubelet's pace holds a pod's binding and its first status writes
// together (about a fifth of a converge's events), each of which cost Redis a fold of its own.
// An ADDED is always folded (a worker's create is met by the pod first seen, as created), and so is the
// event before a DELETED (the DELETED alone would leave a tombstone without the expectation it met).
import type { KeyedEvent } from './change-gate.ts';

/**
 * For each event, whether a later MODIFIED of the same object (kind, PodSet key and name) in `events`
 * replaces it in the fold; undefined when none is (the common case: nothing to skip).
 */
export function supersededInBatch(events: readonly KeyedEvent[]): boolean[] | undefined {
  if (events.length < 2) return undefined;
  let superseded: boolean[] | undefined;
  // Walking back: what the next event of each object is, so far.
  const nextModified = new Set<string>();
  for (let i = events.length - 1; i >= 0; i--) {
    const { ev, key } = events[i]!;
    const id = `${ev.resource}\0${key}\0${ev.object.metadata?.name ?? ''}`;
    if (ev.type !== 'MODIFIED') {
      nextModified.delete(id);
      continue;
    }
    if (nextModified.has(id)) (superseded ??= new Array<boolean>(events.length).fill(false))[i] = true;
    else nextModified.add(id);
  }
  return superseded;
}
