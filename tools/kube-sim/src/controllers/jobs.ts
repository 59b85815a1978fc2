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
import {
  ApiError,
  type ClusterAccess,
  type Json,
  type JsonObject,
  type KubeObject,
  type StoreEvent,
} from '../apimachinery/types.ts';
import { KeyedQueue } from './keyed-queue.ts';
import { recordEvent } from './object-events.ts';
import {
  FAILED_CREATE_RETRY_MS,
  claimPods,
  controllerOf,
  deletionOrder,
  isActive,
  isPodReady,
  num,
  obj,
  podFromTemplate,
  selectorMatcher,
  type Owner,
} from './pod-replicas.ts';
import { isTerminal } from './pod-status.ts';
import { isApiError, mutate, nowIso, type ErrorReporter } from './util.ts';

export const JOBS = 'jobs.batch';
const COMPONENT = 'job-controller';
export const COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';
/** The back-off after failures is capped, as DefaultJobPodFailureBackOff's doubling is. */
const MAX_BACKOFF_MS = 6 * 60_000;

export interface JobControllerOptions {
  /** Delay before a failed pod is replaced, doubled per failure (kube-controller-manager: 10 s). */
  backoffMs: number;
}

interface JobSpec {
  parallelism: number;
  completions: number | undefined;
  backoffLimit: number;
  indexed: boolean;
  suspend: boolean;
  activeDeadlineSeconds: number | undefined;
  template: JsonObject;
  selector: Json;
  /** Labels the API server puts on the template of a Job without a selector. */
  generatedLabels: Record<string, string>;
}

/** The spec with the API server's defaults for absent fields (batch/v1 SetDefaults_Job). */
export function jobSpec(job: KubeObject): JobSpec {
  const spec = obj(job.spec);
  const uid = job.metadata.uid ?? '';
  const name = job.metadata.name ?? '';
  const parallelismSet = typeof spec.parallelism === 'number';
  const completions =
    typeof spec.completions === 'number'
      ? spec.completions
      : parallelismSet || spec.completions === null
        ? undefined
        : 1;
  const generated = spec.selector === undefined || spec.selector === null;
  return {
    parallelism: num(spec.parallelism, 1),
    completions,
    backoffLimit: num(spec.backoffLimit, 6),
    indexed: spec.completionMode === 'Indexed',
    suspend: spec.suspend === true,
    activeDeadlineSeconds:
      typeof spec.activeDeadlineSeconds === 'number' ? spec.activeDeadlineSeconds : undefined,
    template: obj(spec.template),
    selector: generated
      ? { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } }
      : (spec.selector ?? null),
    generatedLabels: generated
      ? {
          'batch.kubernetes.io/controller-uid': uid,
          'batch.kubernetes.io/job-name': name,
          'controller-uid': uid,
          'job-name': name,
        }
      : {},
  };
}

const phase = (p: KubeObject): Json | undefined => obj(p.status).phase;

function jobCondition(type: string, reason: string, message: string, now: string): JsonObject {
  return { type, status: 'True', lastProbeTime: now, lastTransitionTime: now, reason, message };
}

function conditionTrue(status: JsonObject, type: string): JsonObject | undefined {
  const list = status.conditions;
  return Array.isArray(list) ? list.map(obj).find((c) => c.type === type && c.status === 'True') : undefined;
}

/** `0-2,5`: sorted indexes as ranges, as status.completedIndexes is written. */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const start = sorted[i]!;
    while (i + 1 < sorted.length && sorted[i + 1] === sorted[i]! + 1) i++;
    parts.push(start === sorted[i] ? String(start) : `${start}-${sorted[i]}`);
  }
  return parts.join(',');
}

function indexOf(pod: KubeObject): number | undefined {
  const v = pod.metadata.annotations?.[COMPLETION_INDEX] ?? pod.metadata.labels?.[COMPLETION_INDEX];
  const n = v === undefined ? NaN : Number(v);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** When a failed pod stopped: its containers' finish, else the last transition of its conditions. */
function failedAt(pod: KubeObject): number {
  let latest = 0;
  const status = obj(pod.status);
  for (const cs of Array.isArray(status.containerStatuses) ? status.containerStatuses : []) {
    const t = Date.parse(String(obj(obj(obj(cs).state).terminated).finishedAt ?? ''));
    if (Number.isFinite(t)) latest = Math.max(latest, t);
  }
  for (const c of Array.isArray(status.conditions) ? status.conditions : []) {
    const t = Date.parse(String(obj(c).lastTransitionTime ?? ''));
    if (Number.isFinite(t)) latest = Math.max(latest, t);
  }
  return latest;
}

export interface JobController {
  stop(): void;
}

export function startJobController(
  cluster: ClusterAccess,
  options: JobControllerOptions,
  report: ErrorReporter,
): JobController {
  const queue = new KeyedQueue('job controller', report, sync);

  function sync(namespace: string, name: string): void {
    const job = cluster.get(JOBS, namespace, name);
    if (!job) return;
    const old = obj(job.status);
    if (conditionTrue(old, 'Complete') || conditionTrue(old, 'Failed')) return;
    const s = jobSpec(job);
    const owner: Owner = { apiVersion: 'batch/v1', kind: 'Job', object: job };
    const pods = claimPods(cluster, owner, selectorMatcher(s.selector));
    let active = pods.filter(isActive);
    const succeededPods = pods.filter((p) => phase(p) === 'Succeeded');
    const failedPods = pods.filter((p) => phase(p) === 'Failed');
    const terminating = pods.filter(
      (p) => p.metadata.deletionTimestamp !== undefined && phase(p) !== 'Succeeded' && phase(p) !== 'Failed',
    );
    const completed = new Set<number>();
    if (s.indexed) {
      for (const p of succeededPods) {
        const i = indexOf(p);
        if (i !== undefined && i < (s.completions ?? 0)) completed.add(i);
      }
    }
    const succeeded = succeededPods.length;
    const failed = failedPods.length;
    const now = nowIso();
    const nowMs = Date.now();
    let status: JsonObject = { ...old };
    if (status.startTime === undefined && !s.suspend) status.startTime = now;
    // activeDeadlineSeconds counts the time a Job is continuously active: a resumed Job starts again.
    if (!s.suspend && conditionTrue(old, 'Suspended')) status.startTime = now;
    let conditions = Array.isArray(old.conditions) ? old.conditions.map(obj) : [];
    const interim = conditionTrue(old, 'SuccessCriteriaMet') ?? conditionTrue(old, 'FailureTarget');
    let finishing = interim;

    // Deleted pods still running count as terminating: the final condition waits for them.
    const deletePods = (victims: KubeObject[]): void => {
      for (const p of victims) {
        try {
          const left = cluster.delete('pods', namespace, p.metadata.name ?? '');
          if (left && !isTerminal(left)) terminating.push(left);
          recordEvent(cluster, report, job, {
            component: COMPONENT,
            reason: 'SuccessfulDelete',
            message: `Deleted pod: ${p.metadata.name}`,
          });
        } catch (err) {
          if (!isApiError(err, 404)) throw err;
        }
      }
    };

    if (!finishing) {
      const startMs = Date.parse(String(status.startTime ?? ''));
      const deadlinePassed =
        !s.suspend &&
        s.activeDeadlineSeconds !== undefined &&
        Number.isFinite(startMs) &&
        nowMs - startMs >= s.activeDeadlineSeconds * 1000;
      const done = s.indexed
        ? completed.size >= (s.completions ?? 0)
        : s.completions !== undefined
          ? succeeded >= s.completions
          : succeeded > 0 && active.length === 0;
      if (failed > s.backoffLimit) {
        finishing = jobCondition(
          'FailureTarget',
          'BackoffLimitExceeded',
          'Job has reached the specified backoff limit',
          now,
        );
      } else if (deadlinePassed) {
        finishing = jobCondition(
          'FailureTarget',
          'DeadlineExceeded',
          'Job was active longer than specified deadline',
          now,
        );
      } else if (done) {
        finishing = jobCondition(
          'SuccessCriteriaMet',
          'CompletionsReached',
          'Reached expected number of succeeded pods',
          now,
        );
      }
      if (finishing) {
        conditions = [...conditions, finishing];
        deletePods(active);
        active = [];
      } else if (s.suspend) {
        deletePods(active);
        active = [];
        if (!conditionTrue(old, 'Suspended')) {
          conditions = [
            ...conditions.filter((c) => c.type !== 'Suspended'),
            jobCondition('Suspended', 'JobSuspended', 'Job suspended', now),
          ];
          recordEvent(cluster, report, job, {
            component: COMPONENT,
            reason: 'Suspended',
            message: 'Job suspended',
          });
        }
      } else {
        if (conditionTrue(old, 'Suspended')) {
          conditions = [
            ...conditions.filter((c) => c.type !== 'Suspended'),
            { ...jobCondition('Suspended', 'JobResumed', 'Job resumed', now), status: 'False' },
          ];
          recordEvent(cluster, report, job, {
            component: COMPONENT,
            reason: 'Resumed',
            message: 'Job resumed',
          });
        }
        // A Job being deleted gets no new pods; the garbage collector takes the ones it has.
        if (job.metadata.deletionTimestamp === undefined)
          active = managePods(job, s, active, completed, succeeded, failedPods, deletePods);
        if (s.activeDeadlineSeconds !== undefined && Number.isFinite(startMs))
          queue.addAfter(namespace, name, Math.max(0, startMs + s.activeDeadlineSeconds * 1000 - nowMs) + 5);
      }
    }

    // The final condition once no pod of the Job runs any more.
    if (finishing && active.length === 0 && terminating.length === 0) {
      const success = finishing.type === 'SuccessCriteriaMet';
      const final = jobCondition(
        success ? 'Complete' : 'Failed',
        String(finishing.reason),
        String(finishing.message),
        now,
      );
      conditions = [...conditions, final];
      if (success) status.completionTime = now;
      recordEvent(cluster, report, job, {
        component: COMPONENT,
        ...(success
          ? { reason: 'Completed', message: 'Job completed' }
          : {
              reason: String(finishing.reason),
              message: String(finishing.message),
              type: 'Warning' as const,
            }),
      });
    }

    status = {
      ...status,
      active: active.length,
      succeeded,
      failed,
      terminating: terminating.length,
      ready: active.filter(isPodReady).length,
      uncountedTerminatedPods: {},
    };
    if (s.indexed) status.completedIndexes = formatIndexes(completed);
    for (const k of ['active', 'succeeded', 'failed'] as const) if (status[k] === 0) delete status[k];
    if (conditions.length) status.conditions = conditions;
    if (JSON.stringify(status) === JSON.stringify(old)) return;
    mutate(cluster, 'updateStatus', JOBS, namespace, name, job.metadata.uid, (o) => ({ ...o, status }));
  }

  /** Creates or deletes pods toward the active count the Job wants now; returns the active pods. */
  function managePods(
    job: KubeObject,
    s: JobSpec,
    active: KubeObject[],
    completed: Set<number>,
    succeeded: number,
    failedPods: KubeObject[],
    deletePods: (victims: KubeObject[]) => void,
  ): KubeObject[] {
    const namespace = job.metadata.namespace ?? 'default';
    const name = job.metadata.name ?? '';
    let want: number;
    if (s.indexed) want = Math.min(s.parallelism, (s.completions ?? 0) - completed.size);
    else if (s.completions === undefined) want = succeeded > 0 ? active.length : s.parallelism;
    else want = Math.max(0, Math.min(s.parallelism, s.completions - succeeded));
    if (active.length > want) {
      const surplus = [...active].sort(deletionOrder).slice(0, active.length - want);
      deletePods(surplus);
      return active.filter((p) => !surplus.includes(p));
    }
    if (active.length === want) return active;
    // Failed pods are replaced after a back-off that doubles with each failure.
    if (failedPods.length > 0) {
      const last = Math.max(...failedPods.map(failedAt));
      const backoff = Math.min(MAX_BACKOFF_MS, options.backoffMs * 2 ** (failedPods.length - 1));
      const wait = last + backoff - Date.now();
      if (wait > 0) {
        queue.addAfter(namespace, name, wait + 5);
        return active;
      }
    }
    const owner: Owner = { apiVersion: 'batch/v1', kind: 'Job', object: job };
    const busy = new Set(active.map(indexOf));
    const pending: (number | undefined)[] = [];
    if (s.indexed) {
      for (let i = 0; i < (s.completions ?? 0) && pending.length < want - active.length; i++)
        if (!completed.has(i) && !busy.has(i)) pending.push(i);
    } else for (let i = active.length; i < want; i++) pending.push(undefined);
    const created: KubeObject[] = [];
    for (const index of pending) {
      const pod = podFromTemplate(owner, s.template, {
        labels: {
          ...s.generatedLabels,
          ...(index !== undefined ? { [COMPLETION_INDEX]: String(index) } : {}),
        },
        ...(index !== undefined
          ? { generateName: `${name}-${index}-`, annotations: { [COMPLETION_INDEX]: String(index) } }
          : {}),
      });
      if (index !== undefined) pod.spec = withIndex(obj(pod.spec), name, index);
      let made: KubeObject;
      try {
        made = cluster.create('pods', pod);
      } catch (err) {
        // Refused (quota, validation, a terminating namespace): reported, tried again later.
        if (!(err instanceof ApiError)) throw err;
        recordEvent(cluster, report, job, {
          component: COMPONENT,
          reason: 'FailedCreate',
          message: `Error creating: ${err.message}`,
          type: 'Warning',
        });
        queue.addAfter(namespace, name, FAILED_CREATE_RETRY_MS);
        break;
      }
      created.push(made);
      recordEvent(cluster, report, job, {
        component: COMPONENT,
        reason: 'SuccessfulCreate',
        message: `Created pod: ${made.metadata.name}`,
      });
    }
    return [...active, ...created];
  }

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

/** An Indexed Job's pod: hostname `<job>-<index>` and JOB_COMPLETION_INDEX in every container. */
function withIndex(spec: JsonObject, job: string, index: number): JsonObject {
  const env = { name: 'JOB_COMPLETION_INDEX', value: String(index) };
  const addEnv = (list: Json | undefined): Json[] | undefined =>
    Array.isArray(list)
      ? list.map((c) => {
          const container = obj(c);
          const current = Array.isArray(container.env) ? container.env : [];
          return { ...container, env: [...current.filter((e) => obj(e).name !== env.name), env] };
        })
      : undefined;
  const containers = addEnv(spec.containers);
  const initContainers = addEnv(spec.initContainers);
  return {
    ...spec,
    hostname: `${job}-${index}`,
    ...(containers ? { containers } : {}),
    ...(initContainers ? { initContainers } : {}),
  };
}
