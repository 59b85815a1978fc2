// A resource's names as the store and the API spell them, from its group, version and plural alone (no
// registry needed), so storage and the endpoints name resources as the registry does.

/** The store's name for a resource: `pods` for the core group, `plural.group` otherwise (or its storageResource). */
export function resourceId(t: {
  group: string;
  plural: string;
  storageResource?: string | undefined;
}): string {
  return t.storageResource ?? apiResourceId(t);
}

/** The API's own name for a resource (`events.events.k8s.io`), whatever it is stored as. */
export function apiResourceId(t: { group: string; plural: string }): string {
  return t.group === '' ? t.plural : `${t.plural}.${t.group}`;
}

export function apiVersionOf(t: { group: string; version: string }): string {
  return t.group === '' ? t.version : `${t.group}/${t.version}`;
}
