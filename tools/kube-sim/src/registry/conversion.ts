// Conversion between an API's shape and its storage shape, for resources served by two APIs from one store:
// events.k8s.io/v1 Events are core/v1 Events with other field names.
import { apiVersionOf } from './rest/resources.ts';
import type { Json, KubeObject, ResourceType } from '../apimachinery/types.ts';

/** events.k8s.io/v1 field → core/v1 field (the others have the same name in both). */
const EVENTS_V1_TO_CORE: [string, string][] = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

function rename(obj: KubeObject, pairs: [string, string][], apiVersion: string): KubeObject {
  const out: Record<string, Json | KubeObject['metadata'] | undefined> = {};
  const map = new Map(pairs);
  for (const [k, v] of Object.entries(obj)) out[map.get(k) ?? k] = v;
  out.apiVersion = apiVersion;
  return out as KubeObject;
}

export function needsConversion(t: ResourceType): boolean {
  return t.storageResource !== undefined;
}

/** A stored object as the API `t` shows it. */
export function toApiShape(t: ResourceType, stored: KubeObject): KubeObject {
  if (t.group === 'events.k8s.io' && t.kind === 'Event') {
    return rename(
      stored,
      EVENTS_V1_TO_CORE.map(([a, b]) => [b, a]),
      apiVersionOf(t),
    );
  }
  return { ...stored, apiVersion: apiVersionOf(t) };
}

/** An object written through the API `t`, in the shape of the resource it is stored as. */
export function toStorageShape(t: ResourceType, obj: KubeObject, storageApiVersion: string): KubeObject {
  if (t.group === 'events.k8s.io' && t.kind === 'Event')
    return rename(obj, EVENTS_V1_TO_CORE, storageApiVersion);
  return { ...obj, apiVersion: storageApiVersion };
}
