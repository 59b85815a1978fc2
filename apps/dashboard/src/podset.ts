// One PodSet for its own page: the object from the API (numbers, conditions), its reconcile jobs from
// BullMQ (pending and finished, by the job name = key), its watch events from the event log and its
// Kubernetes Warning Events. Like the overview, each source may fail alone and the page says which.
import type { Job, Queue } from 'bullmq';
import { isNotFound, type Kube, type PodSet } from '@podset/kube';
import type { EventLogEntry } from '@podset/event-log';
import { keyProblem } from '@podset/queue';
import { type RedisClient } from '@podset/redis';
import { formatKey } from '@podset/reconcile';
import { withTimeout } from '@podset/runtime';
import { readWarnings, type WarningEvent } from './kube-events.ts';
import {
  isOwnEvent,
  isoTime,
  readPods,
  templateSummary,
  type PodView,
  type TemplateSummary,
} from './pods.ts';
import { READ_TIMEOUT_MS, readEvents, readJobs, rowOf, summarizeJobs, type PodSetRow } from './overview.ts';
import { systemClock, type Clock } from '@podset/clock';

export interface JobView {
  id: string;
  state: string;
  /** live | bulk, from the request the job carries. */
  source?: string;
  /** Why it was requested (the requests folded into this job). */
  reasons: string[];
  /** Epoch ms: the earliest request folded in, BullMQ's add, start and end of the last attempt. */
  requestedAt?: number;
  addedAt: number;
  startedAt?: number;
  finishedAt?: number;
  durationMs?: number;
  attempts: number;
  failedReason?: string;
  requeueAfterMs?: number;
}

export interface PodSetDetail {
  generatedAt: number;
  namespace: string;
  name: string;
  key: string;
  /** The PodSet as the overview shows it; absent when the API does not have it or could not be read. */
  podSet?: PodSetRow & TemplateSummary & { uid?: string; createdAt?: string };
  /** The API answered 404: no such PodSet (its history may still be shown). */
  notFound: boolean;
  /** Pending jobs first, then finished ones, newest first. */
  jobs: JobView[];
  /** Its own pods (controller ownerReference with its uid), oldest first, at most POD_ROWS. */
  pods: PodView[];
  /** How many it has (pods may show fewer). */
  podCount: number;
  /** Watch events of the PodSet and of its own pods. */
  events: EventLogEntry[];
  warnings: WarningEvent[];
  errors: string[];
}

export interface DetailSources {
  /** What `generatedAt` reads (default the system's clock). */
  clock?: Pick<Clock, 'now'>;
  kube: Kube;
  queue: Queue;
  redis: RedisClient;
  eventLogKeys: readonly string[];
  eventLogScan: number;
  jobScan: number;
  /** Most rows per section; default 50. */
  limit?: number;
  timeoutMs?: number;
}

/** Why `namespace`/`name` can't name a PodSet, or undefined when they can. */
export function nameProblem(namespace: string, name: string): string | undefined {
  if (namespace.includes('/') || name.includes('/')) return 'namespace and name may not contain "/"';
  const problem = keyProblem(formatKey(namespace, name));
  if (problem === undefined) return undefined;
  if (problem.endsWith('invalid namespace')) return 'not a valid namespace name';
  if (problem.endsWith('invalid name')) return 'not a valid PodSet name';
  return problem;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** A job as its page row; the payload is read leniently (a malformed one still shows). Exported for tests. */
export function jobView(job: Job, state: string): JobView {
  const data: unknown = job.data;
  const d = isRecord(data) ? data : {};
  const reasons = Array.isArray(d.reasons) ? d.reasons.filter((r): r is string => typeof r === 'string') : [];
  const rv: unknown = job.returnvalue;
  const requeue = isRecord(rv) && typeof rv.requeueAfterMs === 'number' ? rv.requeueAfterMs : undefined;
  return {
    id: String(job.id),
    state,
    ...(typeof d.source === 'string' ? { source: d.source } : {}),
    reasons,
    ...(typeof d.firstRequestedAt === 'number' ? { requestedAt: d.firstRequestedAt } : {}),
    addedAt: job.timestamp,
    ...(job.processedOn !== undefined && job.processedOn !== null ? { startedAt: job.processedOn } : {}),
    ...(job.finishedOn !== undefined && job.finishedOn !== null ? { finishedAt: job.finishedOn } : {}),
    ...(job.finishedOn && job.processedOn ? { durationMs: job.finishedOn - job.processedOn } : {}),
    attempts: job.attemptsMade,
    ...(job.failedReason ? { failedReason: job.failedReason } : {}),
    ...(requeue !== undefined ? { requeueAfterMs: requeue } : {}),
  };
}

const PENDING_RANK: Record<string, number> = { active: 0, waiting: 1, prioritized: 1, delayed: 2 };

function jobOrder(a: JobView, b: JobView): number {
  const ra = PENDING_RANK[a.state] ?? 9;
  const rb = PENDING_RANK[b.state] ?? 9;
  if (ra !== rb) return ra - rb;
  const ta = a.finishedAt ?? a.startedAt ?? a.addedAt;
  const tb = b.finishedAt ?? b.startedAt ?? b.addedAt;
  return tb - ta;
}

function createdAt(t: string | Date | undefined): { createdAt?: string } {
  const iso = isoTime(t);
  return iso === undefined ? {} : { createdAt: iso };
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function readPodSet(kube: Kube, namespace: string, name: string): Promise<PodSet | undefined> {
  try {
    return await kube.podSets.get(namespace, name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Pods listed on the page at most (the count shows them all). */
export const POD_ROWS = 200;

/** Call with a validated namespace and name (nameProblem). */
export async function buildPodSetDetail(
  src: DetailSources,
  namespace: string,
  name: string,
): Promise<PodSetDetail> {
  const timeoutMs = src.timeoutMs ?? READ_TIMEOUT_MS;
  const limit = src.limit ?? 50;
  const key = formatKey(namespace, name);
  const podSetAndWarnings = async () => {
    const ps = await readPodSet(src.kube, namespace, name);
    // With the uid, warnings of an earlier PodSet of the same name are left out.
    const uid = ps?.metadata?.uid;
    const [warnings, pods] = await Promise.allSettled([
      readWarnings(src.kube, { namespace, name, ...(uid !== undefined ? { uid } : {}) }, { limit }),
      ps === undefined ? Promise.resolve(undefined) : readPods(src.kube, ps),
    ]);
    return { ps, warnings, pods };
  };
  const [api, jobs, events] = await Promise.allSettled([
    withTimeout(podSetAndWarnings(), timeoutMs, 'kubernetes'),
    withTimeout(readJobs(src.queue, src.jobScan), timeoutMs, 'queue'),
    withTimeout(readEvents(src.redis, src.eventLogKeys, src.eventLogScan), timeoutMs, 'event log'),
  ]);
  const errors: string[] = [];
  if (api.status === 'rejected') errors.push(`kubernetes: ${message(api.reason)}`);
  else {
    if (api.value.warnings.status === 'rejected') {
      errors.push(`kubernetes events: ${message(api.value.warnings.reason)}`);
    }
    if (api.value.pods.status === 'rejected') {
      errors.push(`kubernetes pods: ${message(api.value.pods.reason)}`);
    }
  }
  if (jobs.status === 'rejected') errors.push(`queue: ${message(jobs.reason)}`);
  if (events.status === 'rejected') errors.push(`event log: ${message(events.reason)}`);

  const mine = (jobs.status === 'fulfilled' ? jobs.value : []).filter((j) => j.job.name === key);
  const ps = api.status === 'fulfilled' ? api.value.ps : undefined;
  const pods =
    api.status === 'fulfilled' && api.value.pods.status === 'fulfilled' ? api.value.pods.value : undefined;
  const ownEvents = (events.status === 'fulfilled' ? events.value : []).filter(
    (e) => e.key === key && isOwnEvent(e, { name, uid: ps?.metadata?.uid }, pods?.others ?? []),
  );
  const podSet =
    ps === undefined
      ? undefined
      : {
          ...rowOf(ps, summarizeJobs(mine).get(key), ownEvents.slice(0, limit)),
          ...(ps.metadata?.uid !== undefined ? { uid: ps.metadata.uid } : {}),
          ...createdAt(ps.metadata?.creationTimestamp),
          ...templateSummary(ps),
        };
  return {
    generatedAt: (src.clock ?? systemClock).now(),
    namespace,
    name,
    key,
    ...(podSet !== undefined ? { podSet } : {}),
    notFound: api.status === 'fulfilled' && ps === undefined,
    jobs: mine
      .map(({ job, state }) => jobView(job, state))
      .sort(jobOrder)
      .slice(0, limit),
    pods: pods?.pods.slice(0, POD_ROWS) ?? [],
    podCount: pods?.pods.length ?? 0,
    events: ownEvents.slice(0, limit),
    warnings:
      api.status === 'fulfilled' && api.value.warnings.status === 'fulfilled' ? api.value.warnings.value : [],
    errors,
  };
}
