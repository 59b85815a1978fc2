// CPU-seconds of the processes of a run over one window of it. On the shared machine the benches run on,
// wall-clock figures (latency, late sends) move with the neighbours' load; a process's own CPU-seconds for
// the same work move much less, so they tell "this commit costs more" apart from "the machine was busy".
import { cpuSecondsOf, helperCpuSecondsOf, sleepsOf } from './figures.ts';

/** CPU-seconds (two decimals) each named process used since the meter started; `bench` is this process. */
export type CpuReading = Record<string, number>;

/** Starts metering `pids` (name → pid) and this process; the returned function reads the meter. */
export function meterCpu(pids: Readonly<Record<string, number>>): () => CpuReading {
  const read = meterOf(pids, cpuSecondsOf);
  const benchStart = process.cpuUsage();
  return () => {
    const reading: CpuReading = {};
    for (const [name, seconds] of Object.entries(read())) reading[name] = round2(seconds);
    reading.bench = benchCpuSince(benchStart);
    return reading;
  };
}

/**
 * Starts metering the CPU-seconds of `pids`' helper threads (name → pid; helperCpuSecondsOf): the part of
 * each process's CPU that its garbage collector's background work and its compiler take off the main thread.
 */
export function meterHelperCpu(pids: Readonly<Record<string, number>>): () => CpuReading {
  const read = meterOf(pids, helperCpuSecondsOf);
  return () => Object.fromEntries(Object.entries(read()).map(([name, s]) => [name, round2(s)]));
}

/** Starts metering `pids` (name → pid) by `count` (a running total of a process); reads each one's growth. */
function meterOf(
  pids: Readonly<Record<string, number>>,
  count: (pid: number) => number,
): () => Record<string, number> {
  const start = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, count(pid)]));
  return () =>
    Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, count(pid) - start[name]!]));
}

/**
 * Starts counting the sleeps of `pids`' main threads (name → pid; sleepsOf): each one the event loop went
 * back to waiting, so the count is the process's wake-ups. A process that did the same work in fewer turns
 * shows it here whatever the neighbours' load, which the CPU-seconds do not (a cold wake-up costs more on a
 * busy machine). The returned function reads the counts since the start.
 */
export function meterWakeUps(pids: Readonly<Record<string, number>>): () => Record<string, number> {
  return meterOf(pids, sleepsOf);
}

/** CPU-seconds (two decimals) this bench process used since `from` (a process.cpuUsage()). */
export function benchCpuSince(from: NodeJS.CpuUsage): number {
  const own = process.cpuUsage(from);
  return round2((own.user + own.system) / 1e6);
}

/** Roles in the order the tables print them: the operator's processes first, then the rest. */
const ROLE_ORDER = ['watcher', 'workers', 'redis', 'kube-sim', 'bench'];

/** By role, in ROLE_ORDER (others after): every `worker-…` process summed into `workers`. */
export function byRole(reading: CpuReading): Record<string, number> {
  const roles: Record<string, number> = {};
  for (const role of ROLE_ORDER) {
    for (const [name, seconds] of Object.entries(reading)) {
      if (name === role || (role === 'workers' && name.startsWith('worker-')))
        roles[role] = round2((roles[role] ?? 0) + seconds);
    }
  }
  for (const [name, seconds] of Object.entries(reading)) {
    if (!ROLE_ORDER.includes(name) && !name.startsWith('worker-')) roles[name] = seconds;
  }
  return roles;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
