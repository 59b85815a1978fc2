// A PodSet's pods for its page: listed by the podset.io/name label, then kept only when the PodSet is
// their controller (ownerReference with its uid), as the worker counts them. Pods that carry the label
// without being its own (released for debugging, a deleted namesake's leftovers) are named apart, so
// their watch events are not shown as the PodSet's. Also what its template runs and how it rolls out.
import type { Kube, Pod } from '@podset/kube';
import type { EventLogEntry } from '@podset/event-log';
import {
  controlledPods,
  effectiveTemplate,
  NAME_LABEL,
  TEMPLATE_HASH_LABEL,
  templateHash,
  isPodReady,
  podNamePrefix,
  type PodSet,
} from '@podset/reconcile';

export interface PodView {
  name: string;
  /** Pending, Running, Succeeded, Failed, Unknown; "Terminating" while it is being deleted. */
  phase: string;
  ready: boolean;
  /** ISO 8601. */
  createdAt?: string;
  node?: string;
  templateHash?: string;
}

export interface PodsOfPodSet {
  /** Its own pods, oldest first. */
  pods: PodView[];
  /** Names of pods with its label that it does not control. */
  others: string[];
}

export interface TemplateSummary {
  /** The containers' images, in the template's order (init containers first). */
  images: string[];
  /** e.g. "RollingUpdate (maxSurge 25%, maxUnavailable 25%)" or "Recreate". */
  strategy: string;
  /** The template hash its current pods carry (podset.io/template-hash). */
  templateHash: string;
}

/** A Kubernetes timestamp as ISO 8601; undefined when absent or not a date. */
export function isoTime(t: string | Date | undefined): string | undefined {
  const ms = t === undefined ? Number.NaN : new Date(t).getTime();
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** One pod as its row shows it. Pure: exported for tests. */
export function podView(pod: Pod): PodView {
  const createdAt = isoTime(pod.metadata?.creationTimestamp);
  const node = pod.spec?.nodeName;
  const hash = pod.metadata?.labels?.[TEMPLATE_HASH_LABEL];
  return {
    name: pod.metadata?.name ?? '',
    phase: pod.metadata?.deletionTimestamp !== undefined ? 'Terminating' : (pod.status?.phase ?? 'Unknown'),
    ready: isPodReady(pod),
    ...(createdAt !== undefined ? { createdAt } : {}),
    ...(node !== undefined && node !== '' ? { node } : {}),
    ...(hash !== undefined ? { templateHash: hash } : {}),
  };
}

/** Splits the pods with the PodSet's label into its own and the others. Pure: exported for tests. */
export function podsOf(ps: PodSet, labelled: readonly Pod[]): PodsOfPodSet {
  const own = controlledPods(ps as PodSet, labelled);
  const ownSet = new Set(own);
  const pods = own.map(podView).sort((a, b) => {
    const byAge = (a.createdAt ?? '').localeCompare(b.createdAt ?? '');
    return byAge !== 0 ? byAge : a.name.localeCompare(b.name);
  });
  const others = labelled
    .filter((p) => !ownSet.has(p))
    .map((p) => p.metadata?.name ?? '')
    .sort();
  return { pods, others };
}

export async function readPods(
  kube: Kube,
  ps: PodSet,
  opts: { signal?: AbortSignal } = {},
): Promise<PodsOfPodSet> {
  const list = await kube.pods.listAll(ps.metadata.namespace, {
    labelSelector: `${NAME_LABEL}=${ps.metadata.name}`,
    limit: 500,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return podsOf(ps, list.items);
}

function strategyText(ps: PodSet): string {
  const s = ps.spec?.strategy;
  if (s?.type === 'Recreate') return 'Recreate';
  const surge = s?.rollingUpdate?.maxSurge ?? '25%';
  const unavailable = s?.rollingUpdate?.maxUnavailable ?? '25%';
  return `RollingUpdate (maxSurge ${surge}, maxUnavailable ${unavailable})`;
}

/** What the template runs and how a new one replaces the pods. Pure: exported for tests. */
export function templateSummary(ps: PodSet): TemplateSummary {
  // The template's pod spec is schemaless beyond containers: read its lists leniently.
  const spec = (effectiveTemplate(ps as PodSet).spec ?? {}) as {
    initContainers?: unknown;
    containers?: unknown;
  };
  const list = (x: unknown) => (Array.isArray(x) ? (x as { image?: unknown }[]) : []);
  const containers = [...list(spec.initContainers), ...list(spec.containers)];
  return {
    images: containers.map((c) => (typeof c.image === 'string' ? c.image : '')).filter((i) => i !== ''),
    strategy: strategyText(ps),
    templateHash: templateHash(ps as PodSet),
  };
}

/**
 * Whether a watch event recorded under the PodSet's key is about the PodSet or one of its own pods. The
 * watcher also files events of pods that only carry its label under its key (so that it learns it lost
 * them): those are not its own. A pod event names the uid of its controlling PodSet (`owner`, empty for
 * none), which decides when the PodSet's uid is known. An older watcher's entry has no `owner`, nor can
 * one be matched without the uid: then a pod is its own unless the list shows it does not control it or
 * its generateName could not have made its name (a deleted stray pod of such a name slips through). Pure.
 */
export function isOwnEvent(
  e: EventLogEntry,
  podSet: { name: string; uid?: string | undefined },
  others: readonly string[],
): boolean {
  if (e.kind !== 'Pod') return true;
  if (e.owner === '') return false;
  if (e.owner !== undefined && podSet.uid) return e.owner === podSet.uid;
  return e.name.startsWith(podNamePrefix(podSet.name)) && !others.includes(e.name);
}
