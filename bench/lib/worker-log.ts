// Reconcile starts from the workers' own log: each reconcile ends with one "reconciled" line (pino JSON)
// whose `time` is when it ended and `ms` how long it took, so its start is `time − ms` on the worker's
// clock. This sees every reconcile whatever it read (the API or the projection), where the audit log
// only sees the ones that read the API.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface ReconcileStart {
  /** The PodSet key, namespace/name. */
  podset: string;
  /** Milliseconds since the epoch. */
  startMs: number;
}

/** The reconcile start a worker log line records, if it is a "reconciled" line. */
export function reconcileStartOf(line: string): ReconcileStart | undefined {
  if (!line.includes('"msg":"reconciled"')) return undefined;
  let rec: { podset?: unknown; time?: unknown; ms?: unknown };
  try {
    rec = JSON.parse(line) as typeof rec;
  } catch {
    return undefined; // a line cut short by a SIGKILL
  }
  if (typeof rec.podset !== 'string' || typeof rec.time !== 'number') return undefined;
  return { podset: rec.podset, startMs: rec.time - (typeof rec.ms === 'number' ? rec.ms : 0) };
}

/** Every reconcile start at or after `sinceMs` in the log files of `dir` whose names match `files`. */
export function reconcileStarts(dir: string, files: RegExp, sinceMs: number): ReconcileStart[] {
  const out: ReconcileStart[] = [];
  for (const f of readdirSync(dir).filter((name) => files.test(name)))
    for (const line of readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      const s = reconcileStartOf(line);
      if (s !== undefined && s.startMs >= sinceMs) out.push(s);
    }
  return out;
}
