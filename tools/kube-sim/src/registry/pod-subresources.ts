// pods/binding and pods/eviction: the two writes of a pod that are not updates of it.
import type { DeleteOptions, KubeObject, ResourceType } from '../apimachinery/types.ts';
import { conflict, invalid } from './rest/errors.ts';
import { isObject } from '../apimachinery/json.ts';
import type { GenericStore } from './store.ts';
import type { WriteOptions } from './rest/write-options.ts';

function podType(api: GenericStore): ResourceType {
  return api.registry.lookup('', 'v1', 'pods') as ResourceType;
}

/** pods/binding: assigns a node (409 if the pod already has one). */
export function bindPod(
  api: GenericStore,
  ns: string,
  name: string,
  body: unknown,
  opts: WriteOptions = {},
): KubeObject {
  const t = podType(api);
  const b = isObject(body) ? body : {};
  const target = isObject(b.target) ? b.target : {};
  const node = typeof target.name === 'string' ? target.name : '';
  if (!node) {
    throw invalid({ ...t, kind: 'Binding' }, name, [
      { reason: 'FieldValueRequired', field: 'target.name', message: 'Required value' },
    ]);
  }
  const cur = api.getRec(t, ns, name).obj;
  const spec = isObject(cur.spec) ? cur.spec : {};
  if (spec.nodeName)
    throw conflict(t, name, `pod ${name} is already assigned to node "${String(spec.nodeName)}"`);
  if (cur.metadata.deletionTimestamp)
    throw conflict(t, name, `pod ${name} is being deleted, cannot be assigned to a host`);
  const next = { ...cur, spec: { ...spec, nodeName: node } } as KubeObject;
  return api.writeUpdate(t, cur, next, { ...opts, binding: true }, 'main');
}

/** pods/eviction: a delete with the Eviction's deleteOptions (no disruption budgets are checked). */
export function evictPod(
  api: GenericStore,
  ns: string,
  name: string,
  body: unknown,
  opts: WriteOptions = {},
): void {
  const b = isObject(body) ? body : {};
  const d = isObject(b.deleteOptions) ? b.deleteOptions : {};
  const options: DeleteOptions = {};
  if (typeof d.gracePeriodSeconds === 'number') options.gracePeriodSeconds = d.gracePeriodSeconds;
  if (isObject(d.preconditions)) {
    options.preconditions = {
      ...(typeof d.preconditions.uid === 'string' ? { uid: d.preconditions.uid } : {}),
      ...(typeof d.preconditions.resourceVersion === 'string'
        ? { resourceVersion: d.preconditions.resourceVersion }
        : {}),
    };
  }
  api.delete(podType(api), ns, name, options, opts);
}
