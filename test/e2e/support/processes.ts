// The processes a run started, found by what they were given. The demo and `npm run operator` start their
// apps in process groups of their own, so "the run's process group is empty" no longer says they are gone.
import { readFileSync, readdirSync } from 'node:fs';

/** Processes (but this one) whose command line or environment contains `text`, as "pid command line". */
export function processesNaming(text: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(text) || readFileSync(`/proc/${entry}/environ`, 'utf8').includes(text)) {
        found.push(`${entry} ${cmdline}`);
      }
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}
