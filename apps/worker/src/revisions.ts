// Step 4a of a reconcile: the PodSet's revision history (libs/reconcile/src/revisions.ts) brought up to
// date, and, while the PodSet is paused, the template its pods keep: that of the current revision, not a
// newer spec.template. Called only from an API read and only when the PodSet alone says the history may be
// behind (a spec change, or no revision yet), so a pass with nothing new costs no request. A PodSet never
// changed and never annotated gets its first revision by a create alone: only a 409 (an earlier pass, or a
// deleted namesake's leftover, holds the name) costs the LIST that a spec change costs. The annotation is
// not written here but handed back, so that the caller writes it with the finalizer in one patch. Nothing
// here is watched, and the annotation is no input of a plan (the watcher's change gate skips it).
import { isConflict, isNotFound, type ControllerRevision, type Kube, type PodSet } from '@podset/kube';
import {
  annotatedRevision,
  NAME_LABEL,
  ownRevisions,
  revisionManifest,
  revisionName,
  revisionPlan,
  revisionTemplate,
  TEMPLATE_HASH_LABEL,
  templateHash,
  type RevisionPlan,
} from '@podset/reconcile';
import type { Logger } from '@podset/log';

export interface RevisionSync {
  /** What the plan is made from: `podset`, or while paused, `podset` with the current revision's template. */
  planned: PodSet;
  /** The revision number the PodSet's podset.io/revision annotation must be set to, if it differs. */
  annotate?: number;
}

/** Brings the history up to date, the PodSet's annotation excepted (`annotate` says what it must be). */
export async function syncRevisions(
  kube: Kube,
  podset: PodSet,
  log: Logger,
  signal?: AbortSignal,
): Promise<RevisionSync> {
  const ns = podset.metadata.namespace ?? '';
  if (await createdFirst(kube, podset, signal)) {
    log.info({ revision: 1, hash: templateHash(podset) }, 'revision recorded');
    return { planned: podset, annotate: 1 };
  }
  const list = await kube.controllerRevisions.listAll(ns, {
    labelSelector: `${NAME_LABEL}=${podset.metadata.name ?? ''}`,
    ...(signal !== undefined ? { signal } : {}),
  });
  const own = ownRevisions(podset, list.items);
  let planned = podset;
  let hash = templateHash(podset);
  if (podset.spec?.paused === true) {
    // Paused: the template stays that of the current revision (if one was recorded).
    const current = annotatedRevision(podset);
    const kept = own.find((r) => r.revision === current) ?? own.at(-1);
    const template = kept === undefined ? undefined : revisionTemplate(kept);
    if (kept !== undefined && template !== undefined) {
      planned = { ...podset, spec: { ...podset.spec, template } } as PodSet;
      hash = kept.metadata.labels?.[TEMPLATE_HASH_LABEL] ?? templateHash(planned);
    }
  }
  const plan = revisionPlan(podset, own, hash);
  await carryOut(kube, podset, plan, hash, list.items, signal);
  if (hasWrites(plan))
    log.info({ revision: plan.current, hash, pruned: plan.prune.length }, 'revision recorded');
  return { planned, ...(plan.annotate ? { annotate: plan.current } : {}) };
}

/**
 * A PodSet whose spec never changed (generation 1) and that has no revision annotated can have no revision
 * but one of this very template, under the name it would get: so it is created as revision 1 without a
 * read. True when made; false when there is more to it (the name is held: by an earlier pass whose
 * annotation was not written, or by a deleted namesake's leftover), and the caller reads the list.
 */
async function createdFirst(kube: Kube, podset: PodSet, signal: AbortSignal | undefined) {
  if (podset.metadata.generation !== 1 || annotatedRevision(podset) !== undefined) return false;
  const hash = templateHash(podset);
  const made = revisionManifest(podset, hash, 1);
  const manifest = { apiVersion: 'apps/v1', kind: 'ControllerRevision', ...made } as ControllerRevision;
  try {
    await kube.controllerRevisions.create(podset.metadata.namespace ?? '', manifest, {
      ...(signal !== undefined ? { signal } : {}),
    });
    return true;
  } catch (err) {
    if (isConflict(err)) return false;
    throw err;
  }
}

/**
 * The name for a new revision: `<podset>-<hash>`, unless a revision of a deleted PodSet of the same name
 * that the garbage collector has not removed yet holds it; then the PodSet's UID goes in the name too.
 */
function freeName(podset: PodSet, hash: string, listed: readonly ControllerRevision[]): string {
  const name = revisionName(podset, hash);
  const taken = listed.find((r) => r.metadata.name === name);
  if (taken === undefined || ownRevisions(podset, [taken]).length > 0) return name;
  return `${name}-${(podset.metadata.uid ?? '').slice(0, 8)}`;
}

/** Marks PodSets kept at most; the oldest goes first (a missing mark costs one API read, nothing more). */
const MAX_MARKS = 10_000;

/**
 * For which PodSet spec (UID, generation, template) this worker last brought the history up to date: a
 * reconcile from the projection right after (the status for that generation is often written a pass
 * later) then needs no API read for it. In this process only: another worker reads the API once.
 */
export class HistoryMarks {
  readonly #marks = new Map<string, string>();

  static #mark(podset: PodSet): string {
    const m = podset.metadata;
    return `${m.uid ?? ''}/${m.generation ?? 0}/${templateHash(podset)}`;
  }

  has(key: string, podset: PodSet): boolean {
    return this.#marks.get(key) === HistoryMarks.#mark(podset);
  }

  set(key: string, podset: PodSet): void {
    this.#marks.delete(key);
    if (this.#marks.size >= MAX_MARKS) this.#marks.delete(this.#marks.keys().next().value!);
    this.#marks.set(key, HistoryMarks.#mark(podset));
  }
}

function hasWrites(plan: RevisionPlan): boolean {
  return plan.create !== undefined || plan.renumber !== undefined || plan.prune.length > 0 || plan.annotate;
}

async function carryOut(
  kube: Kube,
  podset: PodSet,
  plan: RevisionPlan,
  hash: string,
  listed: readonly ControllerRevision[],
  signal: AbortSignal | undefined,
): Promise<void> {
  const ns = podset.metadata.namespace ?? '';
  const opts = signal !== undefined ? { signal } : {};
  if (plan.create !== undefined) {
    const made = revisionManifest(podset, hash, plan.create.revision);
    const manifest = { apiVersion: 'apps/v1', kind: 'ControllerRevision', ...made } as ControllerRevision;
    manifest.metadata.name = freeName(podset, hash, listed);
    await kube.controllerRevisions.create(ns, manifest, opts);
  }
  if (plan.renumber !== undefined) {
    await kube.controllerRevisions.patch(ns, plan.renumber.name, { revision: plan.renumber.revision }, opts);
  }
  for (const old of plan.prune) {
    try {
      await kube.controllerRevisions.delete(ns, old.name, { preconditions: { uid: old.uid }, ...opts });
    } catch (err) {
      // Gone already, or another object under its name now: nothing of ours to prune.
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
}
