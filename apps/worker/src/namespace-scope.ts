// The namespaces a worker may act in: WATCH_NAMESPACES (the watcher's list; empty: all). The worker takes
// its keys from Redis, and a job is only as trustworthy as whoever could write it: in a namespaced install a
// job forged in Redis (by a leaked password, say) names a PodSet in another namespace, and the worker's
// own rights reach wherever its Roles were made. So the worker checks each job's key against the list and
// refuses one outside it, and refuses a list that includes its own namespace, where a PodSet author could
// mount the operator's Secrets into a pod (the watcher refuses the same list).
import type { Problem } from '@podset/runtime';

/** Problems of WATCH_NAMESPACES against the worker's own namespace (POD_NAMESPACE): none, or one. */
export function ownNamespaceProblems(cfg: {
  WATCH_NAMESPACES: readonly string[];
  POD_NAMESPACE: string | undefined;
}): Problem[] {
  const own = cfg.POD_NAMESPACE;
  if (own === undefined || own === '' || !cfg.WATCH_NAMESPACES.includes(own)) return [];
  return [
    {
      variable: 'WATCH_NAMESPACES',
      message: `lists "${own}", the worker's own namespace (POD_NAMESPACE): PodSets there could use the operator's Secrets; reconcile in other namespaces only`,
    },
  ];
}

/**
 * Whether a job's key (`namespace/name`) may be reconciled: always with no list; with one, only a key
 * whose namespace is in it (a key without a namespace never is).
 */
export function keyInScope(key: string, namespaces: readonly string[]): boolean {
  if (namespaces.length === 0) return true;
  const slash = key.indexOf('/');
  return slash > 0 && namespaces.includes(key.slice(0, slash));
}
