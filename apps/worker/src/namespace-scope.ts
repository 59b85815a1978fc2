// The namespaces a worker may act in: WATCH_NAMESPACES (the watcher's list; empty: all). The worker takes
// its keys from Redis, and a job is only as trustworthy as whoever could write it: in a namespaced install a
// job forged in Redis (by a leaked password, say) names a PodSet in another namespace, and the worker's
// own rights reach wherever its Roles were made. So the worker checks each job's key against the list and
// refuses one outside it (a list that includes its own namespace is refused at start, as the watcher does).
import { parseKey } from '@podset/reconcile';

/**
 * Whether a job's key (`namespace/name`) may be reconciled: always with no list; with one, only a key
 * whose namespace is in it (a key without a namespace never is).
 */
export function keyInScope(key: string, namespaces: readonly string[]): boolean {
  if (namespaces.length === 0) return true;
  const parsed = parseKey(key);
  return parsed !== undefined && namespaces.includes(parsed.namespace);
}
