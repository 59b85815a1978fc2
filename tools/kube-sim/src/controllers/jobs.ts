// Job controller, as kube-controller-manager's (pkg/controller/job) for the common cases: pods created up
// to spec.parallelism (default 1) toward spec.completions (default 1; unset with parallelism set: done at
// the first success once no pod runs), NonIndexed or Indexed (completion index annotation and label,
// hostname, JOB_COMPLETION_INDEX, status.completedIndexes); failed pods replaced after an exponential
// back-off until more than spec.backoffLimit (default 6) have failed; activeDeadlineSeconds; suspend.
// A finished Job gets the interim condition first (SuccessCriteriaMet / FailureTarget) and the final one
// (Complete with completionTime / Failed) once none of its pods is still running, as in v1.32.
// A Job without spec.selector (the API server generates one) is matched by its uid, and its pods carry the
// labels the server would have put in the template. Not done: podFailurePolicy, successPolicy,
// backoffLimitPerIndex, the job-tracking finalizer (so deleting a finished pod lowers the counts).
// What is read off a Job and its pods (defaults, conditions, indexes) is in job-util.ts.
import {
  ApiError,
  type ClusterAccess,
  type JsonObject,
  type KubeObject,
  type StoreEvent,
} from '../apimachinery/types.ts';
import {
  COMPLETION_INDEX,
  conditionTrue,
  failedAt,
  formatIndexes,
  indexOf,
  jobCondition,
  jobSpec,
  phase,
  withIndex,
  type JobSpec,
} from './job-util.ts';
import { KeyedQueue } from './keyed-queue.ts';
import { recordEvent } from './object-events.ts';
import {
  FAILED_CREATE_RETRY_MS,
  claimPods,
  controllerOf,
  deletionOrder,
  isActive,
  isPodReady,
  obj,
  podFromTemplate,
  selectorMatcher,
  type Owner,
} from './pod-replicas.ts';
import { isTerminal } from './pod-status.ts';
import { isApiError, mutate, nowIso, type ErrorReporter } from './util.ts';

export const JOBS = 'jobs.batch';
const COMPONENT = 'job-controller';
/** The back-off after failures is capped, as DefaultJobPodFailureBackOff's doubling is. */
const MAX_BACKOFF_MS = 6 * 60_000;

export interface JobControllerOptions {
  /** Delay before a failed pod is replaced, doubled per failure (kube-controller-manager: 10 s). */
  backoffMs: number;
}

export interface JobController {
  stop(): void;
}

export function startJobController(
  cluster: ClusterAccess,
  options: JobControllerOptions,
  report: ErrorReporter,
): JobController {
  const queue = new KeyedQueue('job controller', report, (namespace, name) => {
    const job = cluster.get(JOBS, namespace, name);
    if (job) new JobSync(cluster, options, report, queue, job).run();
  });

  /** Events of the resources related to ours (its pods): the keys they concern. */
  function handle(event: StoreEvent): void {
    const o = event.object;
    const namespace = o.metadata.namespace ?? '';
    if (event.resource !== 'pods') return;
    const ref = controllerOf(o);
    if (ref?.kind === 'Job') queue.add(namespace, ref.name);
  }

  return queue.run(cluster, JOBS, handle);
}

/** One sync of one Job (syncJob): its pods counted, the next step taken, the status written once. */
class JobSync {
  readonly #cluster: ClusterAccess;
  readonly #options: JobControllerOptions;
  readonly #report: ErrorReporter;
  readonly #queue: KeyedQueue;
  readonly #job: KubeObject;
  readonly #namespace: string;
  readonly #name: string;
  readonly #spec: JobSpec;
  readonly #owner: Owner;
  /** The status read; `#status` is the one being built. */
  readonly #old: JsonObject;
  #status: JsonObject;
  #conditions: JsonObject[];
  /** The interim condition (SuccessCriteriaMet / FailureTarget) once the Job is finishing. */
  #finishing: JsonObject | undefined;
  #active: KubeObject[] = [];
  #succeeded = 0;
  #failedPods: KubeObject[] = [];
  /** Pods deleted but still running: the final condition waits for them. */
  #terminating: KubeObject[] = [];
  /** An Indexed Job's succeeded indexes. */
  readonly #completed = new Set<number>();
  #now = '';
  #nowMs = 0;

  constructor(
    cluster: ClusterAccess,
    options: JobControllerOptions,
    report: ErrorReporter,
    queue: KeyedQueue,
    job: KubeObject,
  ) {
    this.#cluster = cluster;
    this.#options = options;
    this.#report = report;
    this.#queue = queue;
    this.#job = job;
    this.#namespace = job.metadata.namespace ?? 'default';
    this.#name = job.metadata.name ?? '';
    this.#spec = jobSpec(job);
    this.#owner = { apiVersion: 'batch/v1', kind: 'Job', object: job };
    this.#old = obj(job.status);
    this.#status = { ...this.#old };
    this.#conditions = Array.isArray(this.#old.conditions) ? this.#old.conditions.map(obj) : [];
  }

  run(): void {
    if (conditionTrue(this.#old, 'Complete') || conditionTrue(this.#old, 'Failed')) return;
    this.#countPods();
    this.#now = nowIso();
    this.#nowMs = Date.now();
    this.#setStartTime();
    this.#finishing =
      conditionTrue(this.#old, 'SuccessCriteriaMet') ?? conditionTrue(this.#old, 'FailureTarget');
    if (!this.#finishing) this.#progress();
    // The final condition once no pod of the Job runs any more.
    if (this.#finishing && this.#active.length === 0 && this.#terminating.length === 0)
      this.#finish(this.#finishing);
    this.#writeStatus();
  }

  /** Claims the Job's pods and sorts them by where they stand. */
  #countPods(): void {
    const pods = claimPods(this.#cluster, this.#owner, selectorMatcher(this.#spec.selector));
    this.#active = pods.filter(isActive);
    const succeededPods = pods.filter((p) => phase(p) === 'Succeeded');
    this.#failedPods = pods.filter((p) => phase(p) === 'Failed');
    this.#terminating = pods.filter(
      (p) => p.metadata.deletionTimestamp !== undefined && phase(p) !== 'Succeeded' && phase(p) !== 'Failed',
    );
    if (this.#spec.indexed) {
      for (const p of succeededPods) {
        const i = indexOf(p);
        if (i !== undefined && i < (this.#spec.completions ?? 0)) this.#completed.add(i);
      }
    }
    this.#succeeded = succeededPods.length;
  }

  #setStartTime(): void {
    const s = this.#spec;
    if (this.#status.startTime === undefined && !s.suspend) this.#status.startTime = this.#now;
    // activeDeadlineSeconds counts the time a Job is continuously active: a resumed Job starts again.
    if (!s.suspend && conditionTrue(this.#old, 'Suspended')) this.#status.startTime = this.#now;
  }

  /** A Job not yet finishing: finishes now, is suspended, or gets the pods it wants. */
  #progress(): void {
    const s = this.#spec;
    const startMs = Date.parse(String(this.#status.startTime ?? ''));
    this.#finishing = this.#finishingCondition(startMs);
    if (this.#finishing) {
      this.#conditions = [...this.#conditions, this.#finishing];
      this.#deletePods(this.#active);
      this.#active = [];
      return;
    }
    if (s.suspend) {
      this.#suspend();
      return;
    }
    this.#resume();
    // A Job being deleted gets no new pods; the garbage collector takes the ones it has.
    if (this.#job.metadata.deletionTimestamp === undefined) this.#managePods();
    if (s.activeDeadlineSeconds !== undefined && Number.isFinite(startMs)) {
      const left = startMs + s.activeDeadlineSeconds * 1000 - this.#nowMs;
      this.#queue.addAfter(this.#namespace, this.#name, Math.max(0, left) + 5);
    }
  }

  /** The interim condition the Job has reached: too many failures, its deadline, or its completions. */
  #finishingCondition(startMs: number): JsonObject | undefined {
    const s = this.#spec;
    const deadlinePassed =
      !s.suspend &&
      s.activeDeadlineSeconds !== undefined &&
      Number.isFinite(startMs) &&
      this.#nowMs - startMs >= s.activeDeadlineSeconds * 1000;
    const done = s.indexed
      ? this.#completed.size >= (s.completions ?? 0)
      : s.completions !== undefined
        ? this.#succeeded >= s.completions
        : this.#succeeded > 0 && this.#active.length === 0;
    if (this.#failedPods.length > s.backoffLimit)
      return jobCondition(
        'FailureTarget',
        'BackoffLimitExceeded',
        'Job has reached the specified backoff limit',
        this.#now,
      );
    if (deadlinePassed)
      return jobCondition(
        'FailureTarget',
        'DeadlineExceeded',
        'Job was active longer than specified deadline',
        this.#now,
      );
    if (done)
      return jobCondition(
        'SuccessCriteriaMet',
        'CompletionsReached',
        'Reached expected number of succeeded pods',
        this.#now,
      );
    return undefined;
  }

  #suspend(): void {
    this.#deletePods(this.#active);
    this.#active = [];
    if (conditionTrue(this.#old, 'Suspended')) return;
    this.#conditions = [
      ...this.#conditions.filter((c) => c.type !== 'Suspended'),
      jobCondition('Suspended', 'JobSuspended', 'Job suspended', this.#now),
    ];
    this.#event('Suspended', 'Job suspended');
  }

  #resume(): void {
    if (!conditionTrue(this.#old, 'Suspended')) return;
    this.#conditions = [
      ...this.#conditions.filter((c) => c.type !== 'Suspended'),
      { ...jobCondition('Suspended', 'JobResumed', 'Job resumed', this.#now), status: 'False' },
    ];
    this.#event('Resumed', 'Job resumed');
  }

  /** Creates or deletes pods toward the active count the Job wants now. */
  #managePods(): void {
    const want = this.#wantedActive();
    const active = this.#active;
    if (active.length > want) {
      const surplus = [...active].sort(deletionOrder).slice(0, active.length - want);
      this.#deletePods(surplus);
      this.#active = active.filter((p) => !surplus.includes(p));
      return;
    }
    if (active.length === want || this.#backingOff()) return;
    this.#createPods(this.#indexesToStart(want));
  }

  #wantedActive(): number {
    const s = this.#spec;
    if (s.indexed) return Math.min(s.parallelism, (s.completions ?? 0) - this.#completed.size);
    if (s.completions === undefined) return this.#succeeded > 0 ? this.#active.length : s.parallelism;
    return Math.max(0, Math.min(s.parallelism, s.completions - this.#succeeded));
  }

  /** Failed pods are replaced after a back-off that doubles with each failure: true while it lasts. */
  #backingOff(): boolean {
    const failed = this.#failedPods;
    if (failed.length === 0) return false;
    const last = Math.max(...failed.map(failedAt));
    const backoff = Math.min(MAX_BACKOFF_MS, this.#options.backoffMs * 2 ** (failed.length - 1));
    const wait = last + backoff - Date.now();
    if (wait <= 0) return false;
    this.#queue.addAfter(this.#namespace, this.#name, wait + 5);
    return true;
  }

  /** One entry per pod to create: its completion index (Indexed), else undefined. */
  #indexesToStart(want: number): (number | undefined)[] {
    const active = this.#active;
    const busy = new Set(active.map(indexOf));
    const pending: (number | undefined)[] = [];
    if (this.#spec.indexed) {
      for (let i = 0; i < (this.#spec.completions ?? 0) && pending.length < want - active.length; i++)
        if (!this.#completed.has(i) && !busy.has(i)) pending.push(i);
    } else for (let i = active.length; i < want; i++) pending.push(undefined);
    return pending;
  }

  #createPods(pending: (number | undefined)[]): void {
    const name = this.#name;
    for (const index of pending) {
      const pod = podFromTemplate(this.#owner, this.#spec.template, {
        labels: {
          ...this.#spec.generatedLabels,
          ...(index !== undefined ? { [COMPLETION_INDEX]: String(index) } : {}),
        },
        ...(index !== undefined
          ? { generateName: `${name}-${index}-`, annotations: { [COMPLETION_INDEX]: String(index) } }
          : {}),
      });
      if (index !== undefined) pod.spec = withIndex(obj(pod.spec), name, index);
      let made: KubeObject;
      try {
        made = this.#cluster.create('pods', pod);
      } catch (err) {
        // Refused (quota, validation, a terminating namespace): reported, tried again later.
        if (!(err instanceof ApiError)) throw err;
        this.#event('FailedCreate', `Error creating: ${err.message}`, 'Warning');
        this.#queue.addAfter(this.#namespace, name, FAILED_CREATE_RETRY_MS);
        break;
      }
      this.#active = [...this.#active, made];
      this.#event('SuccessfulCreate', `Created pod: ${made.metadata.name}`);
    }
  }

  /** Deleted pods still running count as terminating: the final condition waits for them. */
  #deletePods(victims: KubeObject[]): void {
    for (const p of victims) {
      try {
        const left = this.#cluster.delete('pods', this.#namespace, p.metadata.name ?? '');
        if (left && !isTerminal(left)) this.#terminating.push(left);
        this.#event('SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
      } catch (err) {
        if (!isApiError(err, 404)) throw err;
      }
    }
  }

  /** Complete (with completionTime) or Failed, after the interim condition. */
  #finish(finishing: JsonObject): void {
    const success = finishing.type === 'SuccessCriteriaMet';
    const reason = String(finishing.reason);
    const message = String(finishing.message);
    const final = jobCondition(success ? 'Complete' : 'Failed', reason, message, this.#now);
    this.#conditions = [...this.#conditions, final];
    if (success) this.#status.completionTime = this.#now;
    if (success) this.#event('Completed', 'Job completed');
    else this.#event(reason, message, 'Warning');
  }

  #writeStatus(): void {
    const active = this.#active;
    const status: JsonObject = {
      ...this.#status,
      active: active.length,
      succeeded: this.#succeeded,
      failed: this.#failedPods.length,
      terminating: this.#terminating.length,
      ready: active.filter(isPodReady).length,
      uncountedTerminatedPods: {},
    };
    if (this.#spec.indexed) status.completedIndexes = formatIndexes(this.#completed);
    for (const k of ['active', 'succeeded', 'failed'] as const) if (status[k] === 0) delete status[k];
    if (this.#conditions.length) status.conditions = this.#conditions;
    if (JSON.stringify(status) === JSON.stringify(this.#old)) return;
    const job = this.#job;
    mutate(this.#cluster, 'updateStatus', JOBS, this.#namespace, this.#name, job.metadata.uid, (o) => ({
      ...o,
      status,
    }));
  }

  #event(reason: string, message: string, type?: 'Warning'): void {
    recordEvent(this.#cluster, this.#report, this.#job, {
      component: COMPONENT,
      reason,
      message,
      ...(type ? { type } : {}),
    });
  }
}
