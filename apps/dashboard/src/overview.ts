// The PodSet overview: PodSets from the Kubernetes API, their last reconcile, last error and job from
// BullMQ's own job records (completed/failed/pending jobs named by key), and their recent watch events
// from the watcher's event-log stream. Each source may fail alone; the page says which.
import type { Job, Queue } from 'bullmq';
import { readRecent, type EventLogEntry } from '@podset/event-log';
import type { RedisClient } from '@podset/redis';
import type { Kube, PodSet } from '@podset/kube';
import { formatKey, parseKey } from '@podset/reconcile';
import { withTimeout } from '@podset/runtime';
import { readLeader, type LeaderInfo } from './leader.ts';
import { isOwnEvent } from './pods.ts';
import { listPodSetsInScope } from './podset-scope.ts';
import { systemClock, type Clock } from '@podset/clock';

export interface LastReconcile {
  jobId: string;
  /** completed; failed (for good); retry (failed an attempt, will run again). */
  result: 'completed' | 'failed' | 'retry';
  /** Epoch ms the attempt ended (completed/failed) or started (retry). */
  at: number;
  durationMs?: number;
  attempt: number;
  requeueAfterMs?: number;
}

export interface LastError {
  jobId: string;
  message: string;
  at: number;
  attempt: number;
}

export interface PodSetRow {
  namespace: string;
  name: string;
  key: string;
  desired: number;
  current: number;
  ready: number;
  /** Active pods of the current template. */
  updated: number;
  /** Active pods Ready for at least minReadySeconds. */
  available: number;
  /** Set while a new template is rolling out: the Progressing condition's message. */
  rollout?: string;
  generation?: number;
  observedGeneration?: number;
  conditions: {
    type: string;
    status: string;
    reason?: string;
    message?: string;
    lastTransitionTime?: string;
  }[];
  lastReconcile?: LastReconcile;
  lastError?: LastError;
  /** The job to look at in bull-board: the pending one, else the newest finished one. */
  job?: { id: string; state: string };
  events: EventLogEntry[];
}

export interface Overview {
  generatedAt: number;
  podSets: PodSetRow[];
  /** Queue keys with jobs but no PodSet (deleted since). */
  orphanKeys: string[];
  counts: Record<string, number>;
  recentEvents: EventLogEntry[];
  /** The watcher's Lease; absent when it could not be read (see errors) or no Lease is configured. */
  leader?: LeaderInfo;
  /** Sources that failed, e.g. "kubernetes: connect ECONNREFUSED". */
  errors: string[];
}

export interface OverviewSources {
  /** What `generatedAt` reads (default the system's clock). */
  clock?: Pick<Clock, 'now'>;
  kube: Kube;
  queue: Queue;
  redis: RedisClient;
  /** Stream keys, first non-empty wins (libs/redis eventLogKeyOf). */
  eventLogKeys: readonly string[];
  eventsPerPodSet: number;
  eventLogScan: number;
  jobScan: number;
  /** The watcher's leader-election Lease. */
  lease?: { namespace: string; name: string };
  /** The namespaces whose PodSets are shown; empty or absent: all. */
  namespaces?: readonly string[];
  /** Per source; default 5 s. */
  timeoutMs?: number;
}

export const JOB_STATES = [
  'active',
  'waiting',
  'prioritized',
  'delayed',
  'waiting-children',
  'completed',
  'failed',
] as const;

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Newest first, from the first of `keys` that has entries; entries not written by the watcher are skipped. */
export async function readEvents(
  redis: RedisClient,
  keys: readonly string[],
  count: number,
): Promise<EventLogEntry[]> {
  for (const key of keys) {
    const records = await readRecent(redis, key, count);
    if (records !== undefined) return records;
  }
  return [];
}

export interface KeyJobs {
  lastReconcile?: LastReconcile;
  lastError?: LastError;
  pending?: { id: string; state: string };
  newestFinished?: { id: string; state: string; at: number };
}

function returnedRequeue(job: Job): number | undefined {
  const rv: unknown = job.returnvalue;
  if (typeof rv === 'object' && rv !== null && 'requeueAfterMs' in rv) {
    const ms = (rv as { requeueAfterMs?: unknown }).requeueAfterMs;
    if (typeof ms === 'number') return ms;
  }
  return undefined;
}

/** Folds jobs (any states, any order) into per-key facts. Pure: exported for tests. */
export function summarizeJobs(jobs: { job: Job; state: string }[]): Map<string, KeyJobs> {
  const byKey = new Map<string, KeyJobs>();
  const pendingRank: Record<string, number> = { active: 0, waiting: 1, prioritized: 1, delayed: 2 };
  for (const { job, state } of jobs) {
    if (job?.id === undefined) continue;
    const key = job.name;
    const facts = byKey.get(key) ?? {};
    byKey.set(key, facts);
    const id = String(job.id);
    if (state === 'completed' || state === 'failed') {
      const at = job.finishedOn ?? job.processedOn ?? job.timestamp;
      if (facts.lastReconcile === undefined || at > facts.lastReconcile.at) {
        const requeue = state === 'completed' ? returnedRequeue(job) : undefined;
        facts.lastReconcile = {
          jobId: id,
          result: state,
          at,
          attempt: Math.max(1, job.attemptsMade),
          ...(job.finishedOn !== undefined && job.processedOn !== undefined
            ? { durationMs: job.finishedOn - job.processedOn }
            : {}),
          ...(requeue !== undefined ? { requeueAfterMs: requeue } : {}),
        };
      }
      if (facts.newestFinished === undefined || at > facts.newestFinished.at) {
        facts.newestFinished = { id, state, at };
      }
    } else {
      const rank = pendingRank[state] ?? 4;
      if (facts.pending === undefined || rank < (pendingRank[facts.pending.state] ?? 4)) {
        facts.pending = { id, state };
      }
      // A job that failed an attempt and waits for its retry.
      if (job.attemptsMade > 0 && job.failedReason && job.processedOn !== undefined) {
        const at = job.processedOn;
        if (facts.lastReconcile === undefined || at > facts.lastReconcile.at) {
          facts.lastReconcile = { jobId: id, result: 'retry', at, attempt: job.attemptsMade };
        }
      }
    }
    if (job.failedReason) {
      const at = job.finishedOn ?? job.processedOn ?? job.timestamp;
      if (facts.lastError === undefined || at > facts.lastError.at) {
        facts.lastError = {
          jobId: id,
          message: job.failedReason,
          at,
          attempt: Math.max(1, job.attemptsMade),
        };
      }
    }
  }
  return byKey;
}

/** The newest `scan` jobs of each state, via BullMQ's own getJobs. */
export async function readJobs(queue: Queue, scan: number): Promise<{ job: Job; state: string }[]> {
  const out: { job: Job; state: string }[] = [];
  for (const state of ['active', 'waiting', 'prioritized', 'delayed', 'completed', 'failed'] as const) {
    const jobs = await queue.getJobs([state], 0, scan - 1, false);
    for (const job of jobs) if (job !== undefined && job !== null) out.push({ job, state });
  }
  return out;
}

export async function jobCounts(queue: Queue): Promise<Record<string, number>> {
  return await queue.getJobCounts(...JOB_STATES);
}

/**
 * How long a page or a scrape waits for one of its reads (the API, Redis) before it shows what it has
 * and says which read is missing: a slow dependency must not hang the dashboard.
 */
export const READ_TIMEOUT_MS = 5_000;

export async function buildOverview(src: OverviewSources): Promise<Overview> {
  const timeoutMs = src.timeoutMs ?? READ_TIMEOUT_MS;
  const lease = src.lease;
  const [podSets, jobs, counts, events, leader] = await Promise.allSettled([
    withTimeout(listPodSetsInScope(src.kube, src.namespaces ?? [], { limit: 500 }), timeoutMs, 'kubernetes'),
    withTimeout(readJobs(src.queue, src.jobScan), timeoutMs, 'queue'),
    withTimeout(jobCounts(src.queue), timeoutMs, 'queue counts'),
    withTimeout(readEvents(src.redis, src.eventLogKeys, src.eventLogScan), timeoutMs, 'event log'),
    lease === undefined
      ? Promise.resolve(undefined)
      : withTimeout(readLeader(src.kube, lease), timeoutMs, 'lease'),
  ]);
  const errors: string[] = [];
  if (podSets.status === 'rejected') errors.push(`kubernetes: ${message(podSets.reason)}`);
  if (jobs.status === 'rejected') errors.push(`queue: ${message(jobs.reason)}`);
  else if (counts.status === 'rejected') errors.push(`queue: ${message(counts.reason)}`);
  if (events.status === 'rejected') errors.push(`event log: ${message(events.reason)}`);
  if (leader.status === 'rejected') errors.push(`watcher lease: ${message(leader.reason)}`);

  const byKey = summarizeJobs(jobs.status === 'fulfilled' ? jobs.value : []);
  const allEvents = events.status === 'fulfilled' ? events.value : [];
  const items: PodSet[] = podSets.status === 'fulfilled' ? podSets.value.items : [];
  const uidByKey = new Map<string, string | undefined>();
  for (const ps of items) uidByKey.set(keyOfPodSet(ps), ps.metadata?.uid);
  const eventsByKey = new Map<string, EventLogEntry[]>();
  for (const e of allEvents) {
    // A pod that only carries the PodSet's label is filed under its key too, but is not its own.
    const podSet = { name: parseKey(e.key)?.name ?? '', uid: uidByKey.get(e.key) };
    if (e.key === '' || !isOwnEvent(e, podSet, [])) continue;
    const list = eventsByKey.get(e.key) ?? [];
    if (list.length < src.eventsPerPodSet) list.push(e);
    eventsByKey.set(e.key, list);
  }

  const rows = items.map((ps) => {
    const key = keyOfPodSet(ps);
    return rowOf(ps, byKey.get(key), eventsByKey.get(key) ?? []);
  });
  rows.sort((a, b) =>
    a.namespace === b.namespace ? a.name.localeCompare(b.name) : a.namespace.localeCompare(b.namespace),
  );
  const known = new Set(rows.map((r) => r.key));
  const orphanKeys =
    podSets.status === 'fulfilled' ? [...byKey.keys()].filter((k) => !known.has(k)).sort() : [];
  return {
    generatedAt: (src.clock ?? systemClock).now(),
    podSets: rows,
    orphanKeys,
    counts: counts.status === 'fulfilled' ? counts.value : {},
    recentEvents: allEvents.slice(0, 20),
    ...(leader.status === 'fulfilled' && leader.value !== undefined ? { leader: leader.value } : {}),
    errors,
  };
}

/** One PodSet as the overview (and its own page) shows it: the API's numbers plus its jobs' facts. */
export function rowOf(ps: PodSet, facts: KeyJobs | undefined, events: EventLogEntry[]): PodSetRow {
  const namespace = ps.metadata?.namespace ?? '';
  const name = ps.metadata?.name ?? '';
  const pending = facts?.pending;
  const job =
    pending ??
    (facts?.newestFinished ? { id: facts.newestFinished.id, state: facts.newestFinished.state } : undefined);
  return {
    namespace,
    name,
    key: formatKey(namespace, name),
    desired: ps.spec?.replicas ?? 1,
    current: ps.status?.replicas ?? 0,
    ready: ps.status?.readyReplicas ?? 0,
    updated: ps.status?.updatedReplicas ?? 0,
    available: ps.status?.availableReplicas ?? 0,
    ...rolloutOf(ps),
    ...(ps.metadata?.generation !== undefined ? { generation: ps.metadata.generation } : {}),
    ...(ps.status?.observedGeneration !== undefined
      ? { observedGeneration: ps.status.observedGeneration }
      : {}),
    conditions: (ps.status?.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      ...(c.reason !== undefined ? { reason: c.reason } : {}),
      ...(c.message !== undefined ? { message: c.message } : {}),
      ...(c.lastTransitionTime !== undefined ? { lastTransitionTime: c.lastTransitionTime } : {}),
    })),
    ...(facts?.lastReconcile !== undefined ? { lastReconcile: facts.lastReconcile } : {}),
    ...(facts?.lastError !== undefined ? { lastError: facts.lastError } : {}),
    ...(job !== undefined ? { job } : {}),
    events,
  };
}

/**
 * Converged: as many pods as desired, all Ready, no rollout under way, and the operator has seen the
 * current spec. The overview's badge, its filter and podset_converged all use this.
 */
export function isConverged(
  r: Pick<PodSetRow, 'desired' | 'current' | 'ready' | 'rollout' | 'generation' | 'observedGeneration'>,
): boolean {
  return (
    r.rollout === undefined &&
    r.current === r.desired &&
    r.ready === r.desired &&
    (r.generation === undefined || r.observedGeneration === r.generation)
  );
}

/** A listed PodSet's queue key. */
export function keyOfPodSet(ps: PodSet): string {
  return formatKey(ps.metadata?.namespace ?? '', ps.metadata?.name ?? '');
}

/** isConverged of a PodSet as the API returns it (its overview row, without job facts or events). */
export function podSetConverged(ps: PodSet): boolean {
  return isConverged(rowOf(ps, undefined, []));
}

/**
 * The Progressing condition's message while it says RollingOut, or ProgressDeadlineExceeded (work stalled
 * where it is: never converged, even with every pod Ready, e.g. a rollout whose creates are refused).
 */
function rolloutOf(ps: PodSet): { rollout?: string } {
  const c = ps.status?.conditions?.find((x) => x.type === 'Progressing');
  const underWay = c?.reason === 'RollingOut' || c?.reason === 'ProgressDeadlineExceeded';
  return underWay ? { rollout: c.message ?? 'rolling out' } : {};
}
