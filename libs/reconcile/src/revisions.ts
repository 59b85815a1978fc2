// A PodSet's revision history, as a Deployment keeps it with its ReplicaSets: one ControllerRevision per
// distinct template, numbered in the order the templates were rolled out (going back to an old template
// gives its revision the next number, as `kubectl rollout undo` of a Deployment does), the current number
// in the PodSet's podset.io/revision annotation, and no more old revisions than revisionHistoryLimit.
// Pure: the worker reads the revisions, asks revisionPlan what to write, and writes it.
import {
  CHANGE_CAUSE_ANNOTATION,
  DEFAULT_REVISION_HISTORY_LIMIT,
  NAME_LABEL,
  REVISION_ANNOTATION,
  TEMPLATE_HASH_LABEL,
} from './api.ts';
import { controllerRefTo, isControlledBy } from './ownership.ts';
import { effectiveTemplate } from './pod-template.ts';
import { templateHash } from './template-hash.ts';
import type { ObjectMeta, PodSet, PodTemplateSpec } from './types.ts';

/** A ControllerRevision as far as the bookkeeping reads it. */
export interface RevisionObject {
  metadata: ObjectMeta;
  revision: number;
  data?: unknown;
}

/** What to write so that the history matches the PodSet's template. Empty when it already does. */
export interface RevisionPlan {
  /** The revision number of the current template once the plan is carried out. */
  current: number;
  /** A new revision for a template never seen (or whose revision was pruned). */
  create?: { name: string; revision: number };
  /** An old revision whose template is current again: it becomes the newest. */
  renumber?: { name: string; uid: string; revision: number };
  /** Old revisions beyond revisionHistoryLimit, oldest first. */
  prune: { name: string; uid: string }[];
  /** The PodSet's annotation must be set to `current`. */
  annotate: boolean;
}

/** spec.revisionHistoryLimit, defaulted. */
export function revisionHistoryLimit(podset: PodSet): number {
  return podset.spec?.revisionHistoryLimit ?? DEFAULT_REVISION_HISTORY_LIMIT;
}

/** The revision number the PodSet's annotation gives, if any. */
export function annotatedRevision(podset: PodSet): number | undefined {
  const text = podset.metadata.annotations?.[REVISION_ANNOTATION];
  const n = text === undefined ? NaN : Number(text);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * Whether the history may be behind the spec: no revision annotated yet, or a spec the last status was not
 * written for (a new template, or another revisionHistoryLimit). Read from the PodSet alone, so a pass
 * with nothing new reads no revision. A PodSet never changed (generation 1) with a revision annotated and
 * no status yet is current: the annotation is written only once its one template's revision exists.
 */
export function revisionsMayBeStale(podset: PodSet): boolean {
  const status = podset.status;
  if (annotatedRevision(podset) === undefined) return true;
  if (podset.metadata.generation === 1 && status?.observedGeneration === undefined) return false;
  return (
    status?.observedGeneration !== podset.metadata.generation || status?.templateHash !== templateHash(podset)
  );
}

/** The revisions among `all` this PodSet controls (same UID), by revision number. */
export function ownRevisions<R extends RevisionObject>(podset: PodSet, all: readonly R[]): R[] {
  return all.filter((r) => isControlledBy(r, podset)).sort((a, b) => a.revision - b.revision);
}

/** The name a template's revision gets: the PodSet's name and the template's hash, as a ReplicaSet's. */
export function revisionName(podset: PodSet, hash: string): string {
  return `${podset.metadata.name ?? ''}-${hash}`;
}

const hashOf = (r: RevisionObject) => r.metadata.labels?.[TEMPLATE_HASH_LABEL];

/** What to write for the current template `hash`, given the PodSet's own revisions (ownRevisions). */
export function revisionPlan(podset: PodSet, own: readonly RevisionObject[], hash: string): RevisionPlan {
  const newest = own.reduce((max, r) => Math.max(max, r.revision), 0);
  const mine = own.find((r) => hashOf(r) === hash);
  let current: number;
  const plan: Omit<RevisionPlan, 'current' | 'annotate'> = { prune: [] };
  if (mine === undefined) {
    current = newest + 1;
    plan.create = { name: revisionName(podset, hash), revision: current };
  } else if (mine.revision < newest) {
    current = newest + 1;
    plan.renumber = { name: mine.metadata.name ?? '', uid: mine.metadata.uid ?? '', revision: current };
  } else {
    current = mine.revision;
  }
  // Never the current one: it is not in `old`.
  const old = own.filter((r) => r !== mine);
  const excess = old.length - revisionHistoryLimit(podset);
  for (const r of old.slice(0, Math.max(0, excess))) {
    plan.prune.push({ name: r.metadata.name ?? '', uid: r.metadata.uid ?? '' });
  }
  return { ...plan, current, annotate: annotatedRevision(podset) !== current };
}

/** A new ControllerRevision of the PodSet's current template, controlled by the PodSet. */
export function revisionManifest(podset: PodSet, hash: string, revision: number): RevisionObject {
  const cause = podset.metadata.annotations?.[CHANGE_CAUSE_ANNOTATION];
  return {
    metadata: {
      name: revisionName(podset, hash),
      namespace: podset.metadata.namespace ?? '',
      labels: { [NAME_LABEL]: podset.metadata.name ?? '', [TEMPLATE_HASH_LABEL]: hash },
      ...(cause !== undefined ? { annotations: { [CHANGE_CAUSE_ANNOTATION]: cause } } : {}),
      ownerReferences: [controllerRefTo(podset)],
    },
    revision,
    data: { spec: { template: effectiveTemplate(podset) } },
  };
}

/** The template a revision holds, if its data has one. */
export function revisionTemplate(r: RevisionObject): PodTemplateSpec | undefined {
  const data = r.data as { spec?: { template?: unknown } } | undefined;
  const t = data?.spec?.template;
  return typeof t === 'object' && t !== null ? (t as PodTemplateSpec) : undefined;
}
