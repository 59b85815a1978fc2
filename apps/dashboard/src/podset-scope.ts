// Which PodSets the dashboard reads: every namespace, or only WATCH_NAMESPACES. A namespaced install
// grants Roles in those namespaces and no cluster-wide list, so the dashboard lists each one.
import type { Kube, ListOptions, PodSet } from '@podset/kube';

/** All PodSets in scope (every page of each list); `namespaces` empty: cluster-wide. */
export async function listPodSetsInScope(
  kube: Pick<Kube, 'podSets'>,
  namespaces: readonly string[],
  opts: ListOptions = {},
): Promise<{ items: PodSet[] }> {
  if (namespaces.length === 0) return await kube.podSets.listAll(undefined, opts);
  const lists = await Promise.all(namespaces.map((ns) => kube.podSets.listAll(ns, opts)));
  return { items: lists.flatMap((l) => l.items) };
}

/** One cheap read that needs the same permission as the lists (for readiness). */
export async function probePodSets(
  kube: { podSets: Pick<Kube['podSets'], 'list'> },
  namespaces: readonly string[],
  signal: AbortSignal,
): Promise<void> {
  const scope = namespaces.length === 0 ? [undefined] : namespaces;
  await Promise.all(scope.map((ns) => kube.podSets.list(ns, { limit: 1, signal })));
}
