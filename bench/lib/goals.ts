// Figures for issue 21's goals, worked out from one run's CPU seconds per process and its audit. Pure
// functions, so test/bench can check the arithmetic without a run.
import type { AuditEntry } from '@podset/kube-sim';

/** /proc/<pid>/stat counts CPU in clock ticks of 10 ms; less than that reads as 0. */
export const TICK_SECONDS = 0.01;

/** CPU milliseconds per converged pod of the operator's processes, and the ceiling the shared ones imply. */
export interface PerPod {
  watcherMs: number;
  redisMs: number;
  /** Every worker process together. */
  workersMs: number;
  /** Watcher + workers + Redis. */
  operatorMs: number;
  /**
   * Pods/s one core could serve with the watcher's or Redis's cost per pod, whichever is larger (both are
   * single-threaded and shared by every worker). Each is counted as at least one tick, so a process that
   * used less than that (a smoke run) gives a lower bound rather than infinity.
   */
  ceilingPodsPerSecond: number;
}

/** Keys of the CPU record that are the operator's processes (not kube-sim, not the bench's own client). */
const isOperator = (name: string): boolean =>
  name === 'watcher' || name === 'redis' || name.startsWith('worker');

/** CPU seconds of the operator's processes (watcher, workers, Redis) in a run's record. */
export function operatorSeconds(cpuSeconds: Readonly<Record<string, number>>): number {
  return Object.entries(cpuSeconds)
    .filter(([k]) => isOperator(k))
    .reduce((a, [, v]) => a + v, 0);
}

/** CPU seconds of the worker processes (named worker-0, worker-1, …) in a run's record. */
export function workersSeconds(cpuSeconds: Readonly<Record<string, number>>): number {
  return workersSum(cpuSeconds);
}

/** A per-process record's figures of the worker processes (named worker-0, worker-1, …), summed. */
function workersSum(byProcess: Readonly<Record<string, number>>): number {
  return Object.entries(byProcess)
    .filter(([k]) => k.startsWith('worker'))
    .reduce((a, [, v]) => a + v, 0);
}

export function perPod(cpuSeconds: Readonly<Record<string, number>>, pods: number): PerPod {
  const watcher = cpuSeconds.watcher ?? NaN;
  const redis = cpuSeconds.redis ?? NaN;
  const ms = (s: number): number => (s / pods) * 1000;
  const shared = Math.max(watcher, redis, TICK_SECONDS);
  return {
    watcherMs: ms(watcher),
    redisMs: ms(redis),
    workersMs: ms(workersSeconds(cpuSeconds)),
    operatorMs: ms(operatorSeconds(cpuSeconds)),
    ceilingPodsPerSecond: pods / shared,
  };
}

/** Wake-ups per converged pod (meterWakeUps' counts) of the operator's processes and of the peer's. */
export interface WakeUpsPerPod {
  watcher: number;
  /** Every worker process together. */
  workers: number;
  redis: number;
  peer: number;
}

export function wakeUpsPerPod(
  operator: Readonly<Record<string, number>>,
  peer: Readonly<Record<string, number>>,
  pods: number,
): WakeUpsPerPod {
  return {
    watcher: (operator.watcher ?? NaN) / pods,
    workers: workersSum(operator) / pods,
    redis: (operator.redis ?? NaN) / pods,
    peer: (peer.peer ?? NaN) / pods,
  };
}

/** The share of each process's CPU its helper threads took (meterHelperCpu over meterCpu, same window). */
export interface HelperShares {
  watcher: number;
  /** Every worker process together. */
  workers: number;
  peer: number;
}

export function helperShares(
  operator: {
    cpuSeconds: Readonly<Record<string, number>>;
    helperCpuSeconds: Readonly<Record<string, number>>;
  },
  peer: { cpuSeconds: Readonly<Record<string, number>>; helperCpuSeconds: Readonly<Record<string, number>> },
): HelperShares {
  return {
    watcher: (operator.helperCpuSeconds.watcher ?? NaN) / (operator.cpuSeconds.watcher ?? NaN),
    workers: workersSum(operator.helperCpuSeconds) / workersSum(operator.cpuSeconds),
    peer: (peer.helperCpuSeconds.peer ?? NaN) / (peer.cpuSeconds.peer ?? NaN),
  };
}

/**
 * When a process began its first request (ms since the epoch) at or after `sinceMs`: the audit records a
 * request when it ends, with its duration, so each began at time − latencyMs. Undefined if none did.
 */
export function firstRequestAt(
  entries: readonly Pick<AuditEntry, 'time' | 'latencyMs'>[],
  sinceMs: number,
): number | undefined {
  let first: number | undefined;
  for (const e of entries) {
    const began = Date.parse(e.time) - e.latencyMs;
    if (began >= sinceMs && (first === undefined || began < first)) first = began;
  }
  return first;
}
