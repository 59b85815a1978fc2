// Measurements of the bench's processes and their requests: RSS, CPU time and the main thread's sleeps
// (Linux /proc), sums of a /metrics family, audit entries counted by verb, and quantiles.
import { readdirSync, readFileSync } from 'node:fs';
import type { AuditEntry } from '@podset/kube-sim';

/** Resident set size (and its peak) of a process, in bytes (Linux /proc). */
export function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** CPU time (user + system) a process used so far, in seconds (Linux /proc). */
export function cpuSecondsOf(pid: number): number {
  return ticksOf(readFileSync(`/proc/${pid}/stat`, 'utf8')) / 100;
}

/** utime + stime of a /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat text, in clock ticks. */
export function ticksOf(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** A variable of the environment a process was started with ('' when it had none; Linux /proc). */
export function startEnvOf(pid: number, name: string): string {
  const prefix = `${name}=`;
  const entry = readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .find((e) => e.startsWith(prefix));
  return entry?.slice(prefix.length) ?? '';
}

/**
 * CPU time (user + system) of a process's threads other than its main one so far, in seconds (Linux
 * /proc): in a Node process V8's helpers (the garbage collector's parallel and concurrent work, the
 * optimizing compiler) and libuv's pool. A thread that ended is no longer counted.
 */
export function helperCpuSecondsOf(pid: number): number {
  let ticks = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    if (Number(tid) === pid) continue;
    try {
      ticks += ticksOf(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ticks / 100;
}

/**
 * How often a process's main thread has gone to sleep of its own accord so far: its voluntary context
 * switches (Linux /proc). For an event loop (Node's, Redis's) that is about once per wake-up, since the
 * thread sleeps only in the loop's wait; the other threads (GC helpers, I/O pool) are left out.
 */
export function sleepsOf(pid: number): number {
  return voluntarySwitches(readFileSync(`/proc/${pid}/status`, 'utf8'));
}

/** The `voluntary_ctxt_switches` count of a /proc/<pid>/status text. */
export function voluntarySwitches(status: string): number {
  const m = /^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status);
  if (m === null) throw new Error('no voluntary_ctxt_switches line in /proc/<pid>/status');
  return Number(m[1]);
}

/** Sums of a metric over label sets, e.g. sumMetric(m, 'podset_reconcile_total'). */
export function sumMetric(
  m: Map<string, number>,
  name: string,
  labelFilter?: (labels: string) => boolean,
): number {
  let sum = 0;
  for (const [k, v] of m) {
    const brace = k.indexOf('{');
    const base = brace === -1 ? k : k.slice(0, brace);
    if (base !== name) continue;
    if (labelFilter && !labelFilter(brace === -1 ? '' : k.slice(brace))) continue;
    sum += v;
  }
  return sum;
}

/** Counts audit entries by "verb resource[/sub]". */
export function countByVerb(entries: readonly AuditEntry[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of entries) {
    const k = `${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ''}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

export const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
export const READ_VERBS = new Set(['get', 'list']);

/**
 * The writes of `audit` (countByVerb's counts) per `unit` (e.g. per PodSet), by "verb resource[/sub]",
 * most first: where a run's API writes went ("create pods 10.00, update podsets/status 3.24, …").
 */
export function writesPer(audit: Readonly<Record<string, number>>, unit: number): string {
  return Object.entries(audit)
    .filter(([k]) => WRITE_VERBS.has(k.split(' ')[0]!))
    .sort(([ka, a], [kb, b]) => b - a || (ka < kb ? -1 : 1))
    .map(([k, v]) => `${k} ${(v / unit).toFixed(2)}`)
    .join(', ');
}

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
