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

/** A process as it was seen: its pid, its start time (so a pid reused later is not taken for it), its command. */
export interface SeenProcess {
  pid: number;
  /** Field 22 of /proc/<pid>/stat: clock ticks after boot. */
  startTime: string;
  cmdline: string;
}

/** Fields 3 onwards of /proc/<pid>/stat ("pid (comm) state ppid …": comm may hold spaces and ')'). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * Every process under `root` now (its children, theirs…). A launcher's children live as long as it does,
 * so taken while it runs this is every process it started and still has, however each is grouped and
 * whatever environment it was given.
 */
export function descendantsOf(root: number): SeenProcess[] {
  const ppids = parents();
  const under = new Set<number>([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of ppids) {
      if (!under.has(pid) && under.has(ppid)) {
        under.add(pid);
        grew = true;
      }
    }
  }
  under.delete(root);
  const out: SeenProcess[] = [];
  for (const pid of under) {
    const startTime = statFields(pid)?.[19];
    if (startTime === undefined) continue; // gone meanwhile
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    } catch {
      continue;
    }
    out.push({ pid, startTime, cmdline });
  }
  return out;
}

/** Whether `p` still runs: its pid is there with the same start time, and is no zombie waiting for its parent. */
export function stillRunning(p: SeenProcess): boolean {
  const fields = statFields(p.pid);
  return fields !== undefined && fields[19] === p.startTime && fields[0] !== 'Z';
}
