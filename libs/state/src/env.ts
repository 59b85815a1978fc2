// Where a reconcile's state comes from, declared once: the watcher (which keeps the projection) and the
// workers (which read it) spread this spec into theirs, so the name, the default and the values agree.
import { oneOf } from '@podset/config';

export const stateSourceEnv = {
  STATE_SOURCE: oneOf(['projection', 'api'] as const, {
    description:
      'projection: the watcher folds every event into a per-PodSet state in Redis and requests a reconcile only for events that can change a plan, and workers read that state in one Redis round trip (the API when it is not complete yet, or after a conflict), planning only once their own last creates and deletes show in it; api (the fallback): each reconcile GETs the PodSet and LISTs its pods, and every pod event requests one (the same for the watcher and the workers)',
    default: 'projection',
  }),
} as const;
