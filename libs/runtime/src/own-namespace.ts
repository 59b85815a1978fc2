// A namespaced install never reconciles in the operator's own namespace: a PodSet author there could
// mount the operator's Secrets (Redis, dashboard) into a pod or label a pod to pass the Redis network
// policy. Empty WATCH_NAMESPACES (a cluster-wide install) is the cluster administrator's own choice.
// The watcher and the worker both refuse such a list, each in its own words.
import type { Problem } from './open-app.ts';

/** How the refusing app names its own namespace and what it advises instead. */
export interface OwnNamespaceWording {
  /** e.g. "the worker's own namespace". */
  own: string;
  /** e.g. "watch other namespaces only". */
  instead: string;
}

/** Problems of WATCH_NAMESPACES against the app's own namespace (POD_NAMESPACE): none, or one. */
export function ownNamespaceProblems(
  cfg: { WATCH_NAMESPACES: readonly string[]; POD_NAMESPACE: string | undefined },
  wording: OwnNamespaceWording,
): Problem[] {
  const own = cfg.POD_NAMESPACE;
  if (own === undefined || own === '' || !cfg.WATCH_NAMESPACES.includes(own)) return [];
  return [
    {
      variable: 'WATCH_NAMESPACES',
      message: `lists "${own}", ${wording.own} (POD_NAMESPACE): PodSets there could use the operator's Secrets; ${wording.instead}`,
    },
  ];
}
