// What the Job controller reads off a Job and its pods, apart from the controller's steps (jobs.ts): the
// spec with the API server's defaults, the conditions, completion indexes, and an Indexed Job's pod spec.
import type { Json, JsonObject, KubeObject } from '../apimachinery/types.ts';
import { num, obj } from './pod-replicas.ts';

export const COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';

export interface JobSpec {
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

export const phase = (p: KubeObject): Json | undefined => obj(p.status).phase;

export function jobCondition(type: string, reason: string, message: string, now: string): JsonObject {
  return { type, status: 'True', lastProbeTime: now, lastTransitionTime: now, reason, message };
}

export function conditionTrue(status: JsonObject, type: string): JsonObject | undefined {
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

export function indexOf(pod: KubeObject): number | undefined {
  const v = pod.metadata.annotations?.[COMPLETION_INDEX] ?? pod.metadata.labels?.[COMPLETION_INDEX];
  const n = v === undefined ? NaN : Number(v);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** When a failed pod stopped: its containers' finish, else the last transition of its conditions. */
export function failedAt(pod: KubeObject): number {
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

/** An Indexed Job's pod: hostname `<job>-<index>` and JOB_COMPLETION_INDEX in every container. */
export function withIndex(spec: JsonObject, job: string, index: number): JsonObject {
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
