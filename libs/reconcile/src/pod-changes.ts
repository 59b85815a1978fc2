// The pods a pass creates and deletes: one step of the strategy towards spec.replicas of the current
// template, and finished pods beyond retention, each capped per pass.
import { deepFreeze } from './deep-freeze.ts';
import { podManifest } from './pod-template.ts';
import { rankFinishedForRetention } from './ranking.ts';
import { rolloutStep } from './rollout.ts';
import type { PassView } from './pass-view.ts';
import type { DeleteReason, Pod, PodDeletion, PodManifest, PodSet, ReconcileOptions } from './types.ts';

export interface PodChanges {
  creates: PodManifest[];
  deletes: PodDeletion[];
  /** The caps cut the step short: there is more to do at once. */
  capped: boolean;
  /** Deletes are due but held back by maxUnavailable, or creates by old pods still terminating. */
  held: boolean;
}

const NONE: PodChanges = { creates: [], deletes: [], capped: false, held: false };

/** A deletion of `pod` with a UID precondition (and, if `unchanged`, a resourceVersion one). */
export function podDeletion(podset: PodSet, pod: Pod, reason: DeleteReason, unchanged = false): PodDeletion {
  const rv = pod.metadata?.resourceVersion;
  return {
    namespace: pod.metadata?.namespace ?? podset.metadata.namespace ?? 'default',
    name: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid ?? '',
    reason,
    ...(unchanged && rv !== undefined ? { resourceVersion: rv } : {}),
  };
}

export function podChanges(view: PassView, opts: Required<ReconcileOptions>): PodChanges {
  if (!view.strategy) return NONE;
  const step = rolloutStep({
    desired: view.desired,
    strategy: view.strategy,
    current: view.updated,
    outdated: view.outdated,
    outdatedTerminating: view.outdatedTerminating,
    isAvailable: view.isAvailable,
    paused: view.podset.spec?.paused === true,
  });
  const creates: PodManifest[] = [];
  const n = Math.min(step.creates, opts.maxCreatesPerPass);
  if (n > 0) {
    // The creates are identical (generateName) and only ever serialized: one frozen manifest, n times,
    // instead of a deep copy per pod.
    const manifest = deepFreeze(podManifest(view.podset, view.hash));
    for (let i = 0; i < n; i++) creates.push(manifest);
  }
  const deletes = step.deletes
    .slice(0, opts.maxDeletesPerPass)
    .map((d) => podDeletion(view.podset, d.pod, d.reason, d.unchanged === true));
  let capped = n < step.creates || deletes.length < step.deletes.length;
  const old = rankFinishedForRetention(view.finished).slice(opts.finishedPodsToKeep);
  const budget = opts.maxDeletesPerPass - deletes.length;
  for (const p of old.slice(0, budget)) deletes.push(podDeletion(view.podset, p, 'Finished'));
  capped ||= old.length > budget;
  return { creates, deletes, capped, held: step.held };
}
