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

/** Each process's parent, from /proc/<pid>/stat. */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      out.set(Number(entry), ppid);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * Every process started under `root` (its children, theirs…), noted every 100 ms until `stop`: the demo's
 * children get only their own variables, so they are found by descent, and stay counted after their parent
 * exits (they are re-parented then), so a child that outlives the run is still seen.
 */
export function trackDescendants(root: number): { seen: Set<number>; describe(): string; stop(): void } {
  const seen = new Set<number>();
  const note = () => {
    const ppids = parents();
    let grew = true;
    while (grew) {
      grew = false;
      for (const [pid, ppid] of ppids) {
        if (!seen.has(pid) && (ppid === root || seen.has(ppid))) {
          seen.add(pid);
          grew = true;
        }
      }
    }
  };
  note();
  const timer = setInterval(note, 100);
  return {
    seen,
    describe: () =>
      [...seen]
        .map((pid) => {
          try {
            return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')}`;
          } catch {
            return '';
          }
        })
        .filter((l) => l !== '')
        .join('\n'),
    stop: () => clearInterval(timer),
  };
}
