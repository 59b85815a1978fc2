// Producer side: request a reconcile of a key, with workqueue semantics (collapse, never lose,
// earliest wins, live before bulk). Used by the watcher, and by the worker for requeue-after.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { BACKOFF_TYPE } from './backoff.ts';
import { bullKeys, jobPrefixOf } from '@podset/redis';
import { forgetKey, type ForgetKeyOptions, type ForgetKeyResult } from './forget-key.ts';
import { REQUEST_LOCK_TTL_MS, runMerge, type MergeResult } from './merge-script.ts';
import {
  bullConnection,
  createClient,
  keepJobs,
  PRIORITY,
  resolveLocation,
  type QueueLocation,
  type Retention,
} from './options.ts';
import type { RedisClient } from './connection.ts';
import {
  cleanTraceparents,
  keyProblem,
  MAX_REASON_LENGTH,
  type ReconcileRequest,
  type RequestSource,
} from './payload.ts';
import { systemClock, type Clock } from '@podset/runtime/clock';

export interface ReconcileQueueOptions extends QueueLocation {
  /** Attempts per job before it fails for good (1 = no retry). Default DEFAULT_ATTEMPTS (8). */
  attempts?: number;
  /** Finished jobs kept for the dashboard. Default: 1000 completed (1 h), 5000 failed (7 d). */
  retention?: Retention;
  /** How long a producer may hold a key's request lock (it only spans one add). Default REQUEST_LOCK_TTL_MS. */
  requestLockTtlMs?: number;
  /** Connection-level errors of the underlying clients (requests also reject). Default: ignored. */
  onError?: (error: Error) => void;
  /** Clock, for tests. */
  clock?: Pick<Clock, 'now'>;
}

export const DEFAULT_ATTEMPTS = 8;

export interface RequestOptions {
  source: RequestSource;
  /** Run no earlier than this from now... unless an earlier request for the key is pending. Default 0. */
  delayMs?: number;
  /** A short human reason (e.g. "pod default/web-x deleted"); kept, deduplicated, on the job. */
  reason?: string;
  /** The resourceVersion the triggering event carried. */
  rv?: string;
  /** W3C traceparents of the watch events behind this request (tracing on only); bounded, checked. */
  traceparents?: readonly string[];
}

export interface RequestResult {
  /** The BullMQ job id that will carry this request (for an active key: the active job's id). */
  jobId: string;
  /**
   * created: a new job; merged: folded into the pending job (waiting, delayed, or the next job stored
   * behind the active one), which now runs no later and at no lower priority than asked.
   */
  outcome: 'created' | 'merged';
  /** Where the merged job was: waiting, delayed, active-next. */
  state: string;
}

export class ReconcileQueue {
  readonly queueName: string;
  readonly prefix: string;
  /** The underlying BullMQ queue (for the dashboard, counts, pause/resume). */
  readonly queue: Queue;
  private readonly client: RedisClient;
  private readonly bullClient: RedisClient | undefined;
  private readonly attempts: number;
  private readonly retention: Retention;
  private readonly lockTtlMs: number;
  /** The clock requests' times (firstRequestedAt, dueAt) are read from. */
  readonly clock: Pick<Clock, 'now'>;

  constructor(opts: ReconcileQueueOptions) {
    const { queueName, prefix } = resolveLocation(opts);
    this.queueName = queueName;
    this.prefix = prefix;
    this.attempts = opts.attempts ?? DEFAULT_ATTEMPTS;
    if (!Number.isInteger(this.attempts) || this.attempts < 1)
      throw new Error('attempts must be an integer >= 1');
    this.retention = opts.retention ?? {};
    this.lockTtlMs = opts.requestLockTtlMs ?? REQUEST_LOCK_TTL_MS;
    this.clock = opts.clock ?? systemClock;
    const bull = bullConnection(opts.connection);
    this.bullClient = bull.owned;
    this.queue = new Queue(queueName, { connection: bull.connection, prefix });
    this.client = createClient(opts.connection);
    // An EventEmitter 'error' without a listener would crash the process.
    const onError = (err: unknown) => opts.onError?.(err instanceof Error ? err : new Error(String(err)));
    this.queue.on('error', onError);
    this.client.on('error', onError);
    this.bullClient?.on('error', onError);
  }

  /** BullMQ's key prefix for this queue's jobs: "<prefix>:<queue>:". */
  get jobPrefix(): string {
    return jobPrefixOf(this.prefix, this.queueName);
  }

  /**
   * Ask for a reconcile of `key` ("namespace/name"). Many requests for a waiting key become one job;
   * a request while the key is active causes exactly one more reconcile after it; the pending job runs
   * at the earliest due time and highest priority any request asked for.
   */
  async request(key: string, opts: RequestOptions): Promise<RequestResult> {
    const problem = keyProblem(key);
    if (problem !== undefined) throw new Error(`ReconcileQueue.request: ${problem}`);
    if (opts.source !== 'live' && opts.source !== 'bulk') throw new Error('source must be "live" or "bulk"');
    const delayMs = Math.max(0, Math.round(opts.delayMs ?? 0));
    if (!Number.isFinite(delayMs)) throw new Error('delayMs must be a finite number');
    const now = this.clock.now();
    let payload: ReconcileRequest = {
      v: 1,
      key,
      source: opts.source,
      firstRequestedAt: now,
      dueAt: now + delayMs,
      ...(opts.reason !== undefined && opts.reason !== ''
        ? { reasons: [opts.reason.slice(0, MAX_REASON_LENGTH)] }
        : {}),
      ...(opts.rv !== undefined && opts.rv !== '' ? { rv: opts.rv } : {}),
    };
    if (opts.traceparents !== undefined) {
      const traceparents = cleanTraceparents(opts.traceparents);
      if (traceparents !== undefined) payload = { ...payload, traceparents };
    }
    const priority = PRIORITY[opts.source];
    const incoming = JSON.stringify(payload);
    const keys = { jobPrefix: this.jobPrefix, dedupId: key };
    const token = randomUUID();
    const deadline = this.clock.now() + this.lockTtlMs + 2_000;
    let first: MergeResult;
    for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
      first = await runMerge(this.client, keys, {
        mode: 'request',
        now: this.clock.now(),
        due: payload.dueAt,
        priority,
        incoming,
        lockToken: token,
        lockTtlMs: this.lockTtlMs,
      });
      if (first.outcome !== 'busy') break;
      if (this.clock.now() > deadline)
        throw new Error(`ReconcileQueue.request(${key}): request lock stayed busy`);
      await sleep(wait);
    }
    if (first.outcome === 'merged') return { jobId: first.jobId, outcome: 'merged', state: first.state };
    // We hold the key's request lock: no other producer can overwrite the next-job BullMQ may store now.
    // A fresh id per add: it comes back unchanged exactly when BullMQ created a job from this request.
    const ownId = `${key.replace('/', '~')}~${token}`;
    let jobId: string | undefined;
    try {
      const job = await this.queue.add(key, payload, {
        jobId: ownId,
        priority,
        delay: delayMs,
        attempts: this.attempts,
        backoff: { type: BACKOFF_TYPE },
        removeOnComplete: keepJobs(this.retention.completed, 1000, 3600),
        removeOnFail: keepJobs(this.retention.failed, 5000, 7 * 24 * 3600),
        deduplication: { id: key, keepLastIfActive: true },
      });
      jobId = job.id;
    } finally {
      // Fold the request into whatever job now carries the key (a no-op if add created it) and unlock.
      await runMerge(this.client, keys, {
        mode: 'after-add',
        now: this.clock.now(),
        due: payload.dueAt,
        priority,
        incoming,
        lockToken: token,
        addedJobId: jobId === ownId ? ownId : '',
      });
    }
    if (jobId === undefined) throw new Error(`ReconcileQueue.request(${key}): BullMQ returned no job id`);
    return jobId === ownId
      ? { jobId, outcome: 'created', state: delayMs > 0 ? 'delayed' : 'waiting' }
      : { jobId, outcome: 'merged', state: 'deduplicated' };
  }

  /** Request many keys, a few at a time (relist, resync). */
  async requestMany(
    items: readonly { key: string; opts: RequestOptions }[],
    concurrency = 16,
  ): Promise<RequestResult[]> {
    const results: RequestResult[] = new Array<RequestResult>(items.length);
    let next = 0;
    const lane = async () => {
      while (next < items.length) {
        const i = next++;
        const item = items[i];
        if (item !== undefined) results[i] = await this.request(item.key, item.opts);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, lane));
    return results;
  }

  /**
   * After job `finishedJobId` for `key` finished, pull the next job (created by BullMQ from requests
   * stored while it was active, with their delay counted from the finish) back to the earliest due
   * time they asked for. The worker calls this; it only ever moves a job earlier, and leaves a job
   * that is itself waiting out a retry backoff alone.
   */
  async pullNextEarlier(key: string, finishedJobId: string): Promise<void> {
    await runMerge(
      this.client,
      { jobPrefix: this.jobPrefix, dedupId: key },
      { mode: 'after-finish', now: this.clock.now(), lockToken: finishedJobId },
    );
  }

  /** The id of the job currently pending or running for `key`, if any. */
  async currentJobId(key: string): Promise<string | undefined> {
    return (await this.client.get(bullKeys(this.jobPrefix).dedup(key))) ?? undefined;
  }

  /**
   * A deleted PodSet's traces: remove `key`'s finished (completed, failed) jobs and, given
   * `eventLogKey`, its entries in the watcher's event log. Its active and pending jobs stay.
   */
  async forgetKey(key: string, opts: ForgetKeyOptions = {}): Promise<ForgetKeyResult> {
    return forgetKey({ client: this.client, queue: this.queue, jobPrefix: this.jobPrefix }, key, opts);
  }

  async close(): Promise<void> {
    await this.queue.close();
    this.client.disconnect();
    this.bullClient?.disconnect();
  }
}
