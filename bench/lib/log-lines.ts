// Lines each process logged over one window of a run (its log file in the run's log directory): what a
// change in per-event logging costs shows as lines per event.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Lines per log file (by the file's name without `.log`). */
export type LineCounts = Record<string, number>;

function countLines(dir: string): LineCounts {
  const counts: LineCounts = {};
  for (const file of readdirSync(dir)) {
    if (!file.endsWith('.log')) continue;
    const text = readFileSync(path.join(dir, file), 'utf8');
    let n = 0;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
    counts[file.slice(0, -'.log'.length)] = n;
  }
  return counts;
}

/** Starts counting; the returned function answers the lines each file gained since. */
export function meterLogLines(dir: string): () => LineCounts {
  const start = countLines(dir);
  return () => {
    const now = countLines(dir);
    return Object.fromEntries(Object.entries(now).map(([name, n]) => [name, n - (start[name] ?? 0)]));
  };
}
