// The reconcile key of a PodSet, "namespace/name": the one place it is built and taken apart (the queue's
// job ids, the watcher's mapping of events, the projection's Redis keys and the worker all use it).

export interface PodSetName {
  namespace: string;
  name: string;
}

/** The key of PodSet `name` in `namespace`. */
export function formatKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** Namespace and name of a key; undefined unless it is exactly one "/" between two non-empty parts. */
export function parseKey(key: string): PodSetName | undefined {
  const i = key.indexOf('/');
  if (i <= 0 || i === key.length - 1 || key.indexOf('/', i + 1) !== -1) return undefined;
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
