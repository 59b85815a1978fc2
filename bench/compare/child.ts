// The child processes of a compare (npm ci in the base tree, each bench run), their output streamed line by
// line with a prefix that says which run it is, and stopped together on Ctrl-C.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ChildOutcome {
  /** The exit code, or null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines it wrote (stdout and stderr), to say why it failed. */
  tail: string[];
}

const TAIL_LINES = 30;
const live = new Set<ChildProcess>();

/**
 * Runs `command` in `cwd`, calling `out` with every line it writes (prefixed), and resolves when it ends.
 * It stays in this process group: a terminal's Ctrl-C reaches it too, and stopAll() covers a signal sent to
 * this process alone.
 */
export function runStreamed(
  command: string,
  args: readonly string[],
  o: { cwd: string; prefix: string; out: (line: string) => void; env?: NodeJS.ProcessEnv },
): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], {
      cwd: o.cwd,
      env: o.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(child);
    const tail: string[] = [];
    const emit = (line: string): void => {
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
      o.out(`${o.prefix}${line}`);
    };
    // One per stream: a line may arrive in pieces.
    const readers = [child.stdout, child.stderr].map((stream) => {
      let partial = '';
      stream.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString()).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) emit(line);
      });
      return {
        flush: (): void => {
          if (partial !== '') emit(partial);
        },
      };
    });
    child.once('error', (err) => {
      live.delete(child);
      reject(err);
    });
    child.once('close', (code, signal) => {
      live.delete(child);
      for (const r of readers) r.flush();
      resolve({ code, signal, tail });
    });
  });
}

/** The processes below `pid` (children first, then theirs), from /proc; none where there is no /proc. */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  for (const e of entries) {
    try {
      // The parent is the 2nd field after the command, which is in parentheses and may hold spaces.
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(e)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  for (let queue = [pid]; queue.length > 0;) {
    const next = queue.flatMap((p) => children.get(p) ?? []);
    out.push(...next);
    queue = next;
  }
  return out;
}

/**
 * Sends every running child and everything it started `signal`, as a terminal's Ctrl-C does: a bench run
 * stopped by a signal runs no exit handler, so its kube-sim, Redis and apps must get the signal themselves.
 */
export function stopAll(signal: NodeJS.Signals = 'SIGINT'): void {
  for (const child of live) {
    const below = child.pid !== undefined ? descendantsOf(child.pid) : [];
    child.kill(signal);
    for (const pid of below) {
      try {
        process.kill(pid, signal);
      } catch {
        // already gone
      }
    }
  }
}
