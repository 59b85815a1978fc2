// What a chaos run reads from the workers' log files: each key's latest reconcile start, as the files grow,
// and at the end the retries and malformed jobs they logged.
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { reconcileStartOf } from '../../../bench/lib/worker-log.ts';

/** Reads the workers' log files as they grow: each key's latest reconcile start from its "reconciled" lines. */
export class LogTail {
  readonly #dir: string;
  readonly #files: RegExp;
  readonly #offsets = new Map<string, number>();
  readonly #partial = new Map<string, string>();

  constructor(dir: string, files: RegExp) {
    this.#dir = dir;
    this.#files = files;
  }

  scan(starts: Map<string, number>): void {
    for (const f of readdirSync(this.#dir).filter((name) => this.#files.test(name))) {
      const file = path.join(this.#dir, f);
      const offset = this.#offsets.get(file) ?? 0;
      const size = statSync(file).size;
      if (size <= offset) continue;
      const fd = openSync(file, 'r');
      const buf = Buffer.alloc(size - offset);
      try {
        readSync(fd, buf, 0, buf.length, offset);
      } finally {
        closeSync(fd);
      }
      this.#offsets.set(file, size);
      const lines = ((this.#partial.get(file) ?? '') + buf.toString('utf8')).split('\n');
      this.#partial.set(file, lines.pop() ?? '');
      for (const line of lines) {
        const r = reconcileStartOf(line);
        if (r !== undefined && r.startMs > (starts.get(r.podset) ?? 0)) starts.set(r.podset, r.startMs);
      }
    }
  }
}

export function countWorkerLogs(logDir: string): { retries: number; malformed: number } {
  let retries = 0;
  let malformed = 0;
  for (const f of readdirSync(logDir)) {
    if (!f.startsWith('worker-')) continue;
    for (const line of readFileSync(path.join(logDir, f), 'utf8').split('\n')) {
      if (line.includes('will retry')) retries++;
      if (line.includes('malformed job')) malformed++;
    }
  }
  return { retries, malformed };
}

export function sortRecord(r: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)));
}
