// Step 4a of a reconcile: the PodSet's revision history (libs/reconcile/src/revisions.ts) brought up to
// date from a consistent LIST of its ControllerRevisions, and, while the PodSet is paused, the template
// its pods keep: that of the current revision, not a newer spec.template. Called only from an API read
// and only when the PodSet alone says the history may be behind (a spec change, or no revision yet), so
// a pass with nothing new costs no request. Nothing here is watched, and the annotation the PodSet gets
// is no input of a plan (the watcher's change gate skips it): these writes request no reconcile.
import { isConflict, isNotFound, type ControllerRevision, type Kube, type PodSetWire } from '@podset/kube';
import {
  annotatedRevision,
  NAME_LABEL,
  ownRevisions,
  REVISION_ANNOTATION,
  revisionManifest,
  revisionName,
  revisionPlan,
  revisionTemplate,
  TEMPLATE_HASH_LABEL,
  templateHash,
  type RevisionPlan,
} from '@podset/reconcile';
import type { Logger } from 'pino';

export interface RevisionSync {
  /** The PodSet as the API has it after our writes (its resourceVersion is the one to write against). */
  podset: PodSetWire;
  /** What the plan is made from: `podset`, or while paused, `podset` with the current revision's template. */
  planned: PodSetWire;
}

/** Brings the history up to date; a 409 on the PodSet's annotation is thrown (the reconcile reads again). */
export async function syncRevisions(
  kube: Kube,
  podset: PodSetWire,
  log: Logger,
  signal?: AbortSignal,
): Promise<RevisionSync> {
  const ns = podset.metadata.namespace ?? '';
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
      planned = { ...podset, spec: { ...podset.spec, template } } as PodSetWire;
      hash = kept.metadata.labels?.[TEMPLATE_HASH_LABEL] ?? templateHash(planned);
    }
  }
  const plan = revisionPlan(podset, own, hash);
  const written = await carryOut(kube, podset, plan, hash, list.items, signal);
  if (hasWrites(plan))
    log.info({ revision: plan.current, hash, pruned: plan.prune.length }, 'revision recorded');
  return {
    podset: written,
    planned: written === podset ? planned : { ...planned, metadata: written.metadata },
  };
}

/**
 * The name for a new revision: `<podset>-<hash>`, unless a revision of a deleted PodSet of the same name
 * that the garbage collector has not removed yet holds it; then the PodSet's UID goes in the name too.
 */
function freeName(podset: PodSetWire, hash: string, listed: readonly ControllerRevision[]): string {
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

  static #mark(podset: PodSetWire): string {
    const m = podset.metadata;
    return `${m.uid ?? ''}/${m.generation ?? 0}/${templateHash(podset)}`;
  }

  has(key: string, podset: PodSetWire): boolean {
    return this.#marks.get(key) === HistoryMarks.#mark(podset);
  }

  set(key: string, podset: PodSetWire): void {
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
  podset: PodSetWire,
  plan: RevisionPlan,
  hash: string,
  listed: readonly ControllerRevision[],
  signal: AbortSignal | undefined,
): Promise<PodSetWire> {
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
  if (!plan.annotate) return podset;
  return kube.podSets.patch(
    ns,
    podset.metadata.name ?? '',
    {
      metadata: {
        annotations: { [REVISION_ANNOTATION]: String(plan.current) },
        resourceVersion: podset.metadata.resourceVersion,
      },
    },
    opts,
  );
}
