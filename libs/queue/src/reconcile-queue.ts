// Producer side: request a reconcile of a key, with workqueue semantics (collapse, never lose,
// earliest wins, live before bulk). Used by the watcher, and by the worker for requeue-after.
import { randomUUID } from 'node:crypto';
import { Job, Queue, type RedisClient as BullClient } from 'bullmq';
import { BACKOFF_TYPE } from './backoff.ts';
import { repairAddInputs, type AddInputRepair } from './add-repair.ts';
import { bullKeys, jobPrefixOf } from '@podset/redis';
import { forgetKey, type ForgetKeyOptions, type ForgetKeyResult } from './forget-key.ts';
import { mergeCommandArgs, runMerge, type MergeKeys, type MergeResult } from './merge-script.ts';
import {
  bullConnection,
  createClient,
  keepJobs,
  PRIORITY,
  resolveLocation,
  type QueueLocation,
  type Retention,
} from './options.ts';
import type { RedisClient } from '@podset/redis';
import {
  cleanTraceparents,
  keyProblem,
  MAX_REASON_LENGTH,
  type ReconcileRequest,
  type RequestSource,
} from './payload.ts';
import { systemClock, type Clock } from '@podset/clock';
import { MERGE_COMMAND_NAME, transactionClient } from './transaction-client.ts';

export interface ReconcileQueueOptions extends QueueLocation {
  /** Attempts per job before it fails for good (1 = no retry). Default DEFAULT_ATTEMPTS (8). */
  attempts?: number;
  /** Finished jobs kept for the dashboard. Default: the newest 1000 completed, 5000 failed (7 d). */
  retention?: Retention;
  /** Connection-level errors of the underlying clients (requests also reject). Default: ignored. */
  onError?: (error: Error) => void;
  /**
   * A value of the queue that BullMQ's add reads was out of bounds when an add failed, and was deleted
   * (add-repair.ts) before the add was tried again: for the caller's log and metric. Default: ignored.
   */
  onAddInputRepaired?: (repair: AddInputRepair) => void;
  /** Clock, for tests. */
  clock?: Pick<Clock, 'now'>;
  /**
   * An auto-pipelined client of the caller's (same Redis, same user) for the queue's own commands — the merge
   * script, requests' transactions — instead of a connection the queue opens: a merge the queue sends in a
   * tick goes out in one write with the caller's commands of that tick (a transaction is written at once, as
   * any explicit pipeline). The caller disconnects it.
   */
  client?: RedisClient;
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

/**
 * What the queue did with a request, the queue being the one owner of de-duplication:
 * - created: a new job;
 * - merged: folded into the key's pending job (waiting, delayed, or the next job stored behind the active
 *   one), which now runs no later and at no lower priority than asked;
 * - covered: that pending job already did, by the queue's cover rule (live-cover.ts): it took only the
 *   request's data. A script beside the queue that runs the rule's Lua (COVER_RULE_LUA: the watcher's fold)
 *   gets this same answer without a request.
 */
export type RequestOutcome = 'created' | 'merged' | 'covered';

export interface RequestResult {
  /** The BullMQ job id that will carry this request (for an active key: the active job's id). */
  jobId: string;
  outcome: RequestOutcome;
  /**
   * Where the merged job was: waiting, delayed, active-next (merged into the next job stored behind the
   * active one), deduplicated (stored by this request as that next job).
   */
  state: string;
}

/** A hash field to write (or, without a value, delete) atomically with a request. */
export interface HashWrite {
  key: string;
  field: string;
  value: string | undefined;
}

/** One request of a batch (requestAll). */
export interface RequestItem {
  key: string;
  opts: RequestOptions;
  /**
   * Written with the request, by the same script or in the same transaction, so that they and the request
   * land together or not at all (the watcher records there which events the request answers). Keys in the
   * queue's hash slot.
   */
  record?: readonly HashWrite[];
  /**
   * The caller saw the key with no pending job an instant ago (its own script looked: no job at all, or only
   * the active one with no next job stored behind it): step 1 of requestAll, the merge into a pending job,
   * would find none, so the request goes straight to the transaction (which finds the queue as it is then,
   * a job created or stored meanwhile included).
   */
  noJob?: boolean;
}

/** A request, validated: what its scripts are given. */
interface PreparedRequest {
  key: string;
  payload: ReconcileRequest;
  delayMs: number;
  keys: MergeKeys;
  merge: { now: number; due: number; priority: number; incoming: string };
  record: readonly HashWrite[];
}

/** Requests per transaction (requestAll): one round trip each, short enough not to hold Redis long. */
const REQUESTS_PER_TRANSACTION = 100;

export class ReconcileQueue {
  readonly queueName: string;
  readonly prefix: string;
  /** The underlying BullMQ queue (for the dashboard, counts, pause/resume). */
  readonly queue: Queue;
  private readonly client: RedisClient;
  /** Whether `client` is the queue's own (disconnected on close) rather than the caller's. */
  private readonly ownsClient: boolean;
  private readonly bullClient: RedisClient | undefined;
  private readonly attempts: number;
  private readonly retention: Retention;
  private readonly onAddInputRepaired: ((repair: AddInputRepair) => void) | undefined;
  /** The client request transactions are built on, once chosen (transaction-client.ts). */
  private transactions: BullClient | undefined;
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
    this.onAddInputRepaired = opts.onAddInputRepaired;
    this.clock = opts.clock ?? systemClock;
    const bull = bullConnection(opts.connection);
    this.bullClient = bull.owned;
    this.queue = new Queue(queueName, { connection: bull.connection, prefix });
    this.client = opts.client ?? createClient(opts.connection);
    this.ownsClient = opts.client === undefined;
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
   * at the earliest due time and highest priority any request asked for. See requestAll.
   */
  async request(key: string, opts: RequestOptions): Promise<RequestResult> {
    const [result] = await this.requestAll([{ key, opts }]);
    return result!;
  }

  /**
   * Requests many keys, each as `request` does, in two round trips at most whatever their number:
   * 1. the merge script (request), for every item at once (but those given `noJob`): a key with a pending
   *    job (waiting, delayed, or a next job stored behind the active one) takes the request there, with its
   *    writes — the common case — answered `covered` when the cover rule says that job already ran no
   *    later and at no lower priority than asked, else `merged`;
   * 2. the others, in one transaction per REQUESTS_PER_TRANSACTION: per request the script (before-add),
   *    BullMQ's own add (deduplication by key, keepLastIfActive: it creates the job, or stores it behind
   *    the active one), the script again (after-add), the request's writes. Nothing runs between them, so
   *    whatever changed since step 1 is found as it is, and no lock is needed: any number of producers may
   *    request one key at once.
   */
  async requestAll(items: readonly RequestItem[]): Promise<RequestResult[]> {
    const prepared = items.map((item) => this.#prepare(item));
    const first = await Promise.all(
      prepared.map((r, i) =>
        items[i]!.noJob === true
          ? undefined
          : runMerge(this.client, r.keys, { mode: 'request', ...r.merge, writes: r.record }),
      ),
    );
    const out: (RequestResult | undefined)[] = first.map((m) =>
      m?.outcome === 'merged' || m?.outcome === 'covered'
        ? { jobId: m.jobId, outcome: m.outcome, state: m.state }
        : undefined,
    );
    const rest = prepared.filter((_, i) => out[i] === undefined);
    const added: RequestResult[] = [];
    for (let i = 0; i < rest.length; i += REQUESTS_PER_TRANSACTION) {
      added.push(...(await this.#transactOrRepair(rest.slice(i, i + REQUESTS_PER_TRANSACTION))));
    }
    return out.map((r) => r ?? added.shift()!);
  }

  /** Validates a request and builds what its scripts are given. */
  #prepare({ key, opts, record }: RequestItem): PreparedRequest {
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
    return {
      key,
      payload,
      delayMs,
      keys: { jobPrefix: this.jobPrefix, dedupId: key },
      merge: { now, due: payload.dueAt, priority, incoming: JSON.stringify(payload) },
      record: record ?? [],
    };
  }

  /** BullMQ's job for a request, with a fresh id: the key's job (or next job) carries it once the add made it. */
  #jobOf(r: PreparedRequest): Job {
    const ownId = `${r.key.replace('/', '~')}~${randomUUID()}`;
    const opts = {
      jobId: ownId,
      priority: r.merge.priority,
      delay: r.delayMs,
      attempts: this.attempts,
      backoff: { type: BACKOFF_TYPE },
      // Completed jobs: the newest 1000, by count alone (completions are the common case; failures are few).
      removeOnComplete: keepJobs(this.retention.completed, 1000),
      removeOnFail: keepJobs(this.retention.failed, 5000, 7 * 24 * 3600),
      deduplication: { id: r.key, keepLastIfActive: true },
    };
    return new Job(this.queue, r.key, r.payload, opts, ownId);
  }

  /**
   * #transact, and once more when it failed and a value the add reads was out of bounds and was repaired.
   * The requests of the first try that did land are merged into their own jobs by the second: nothing is
   * requested twice, and a request that failed wrote no record (the after-add step writes only when it landed).
   */
  async #transactOrRepair(batch: readonly PreparedRequest[]): Promise<RequestResult[]> {
    try {
      return await this.#transact(batch);
    } catch (err) {
      const repaired = await repairAddInputs(this.client, this.jobPrefix).catch(() => []);
      if (repaired.length === 0) throw err;
      for (const repair of repaired) this.onAddInputRepaired?.(repair);
      return await this.#transact(batch);
    }
  }

  /**
   * One transaction: before-add, BullMQ's add, after-add (with the request's writes), per request; on the
   * queue's own client with BullMQ's add scripts defined there (transaction-client.ts).
   */
  async #transact(batch: readonly PreparedRequest[]): Promise<RequestResult[]> {
    this.transactions ??= transactionClient(this.client, await this.queue.getBackend().client);
    const tx = this.transactions.multi();
    const added: Promise<string>[] = [];
    for (const r of batch) {
      const job = this.#jobOf(r);
      const merge = { ...r.merge, addedJobId: job.id! };
      tx.runCommand(MERGE_COMMAND_NAME, mergeCommandArgs(r.keys, { mode: 'before-add', ...merge }));
      added.push(job.addJob(tx));
      // Redis does not undo a transaction's other commands when one fails: the writes go with after-add,
      // which makes them only when the request landed.
      tx.runCommand(
        MERGE_COMMAND_NAME,
        mergeCommandArgs(r.keys, { mode: 'after-add', ...merge, writes: r.record }),
      );
    }
    const replies = await tx.exec();
    // The adds' own answers settle with the transaction (a failed add is reported by its reply below).
    await Promise.allSettled(added);
    if (replies === null) throw new Error('ReconcileQueue.request: the transaction was discarded');
    let at = 0;
    return batch.map((r) => {
      const mine = replies.slice(at, (at += 3));
      for (const [err] of mine) if (err !== null) throw err;
      const [outcome, jobId, state] = mine[2]![1] as [MergeResult['outcome'], string, string];
      if (outcome === 'absent') throw new Error(`ReconcileQueue.request: the add of ${r.key} did not land`);
      if (outcome === 'created') {
        return { jobId, outcome: 'created', state: r.delayMs > 0 ? 'delayed' : 'waiting' };
      }
      // Stored as the next job behind the active one (deduplicated), merged into the one stored there
      // (active-next), else merged where before-add found the job.
      const found = (mine[0]![1] as string[])[2] ?? '';
      const behindActive = state === 'active-next' || state === 'deduplicated';
      return { jobId, outcome: 'merged', state: behindActive || found === '' ? state : found };
    });
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
      { mode: 'after-finish', now: this.clock.now(), finishedJobId },
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
    if (this.ownsClient) this.client.disconnect();
    this.bullClient?.disconnect();
  }
}
