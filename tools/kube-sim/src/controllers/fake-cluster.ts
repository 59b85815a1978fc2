// A small in-memory ClusterAccess for the controllers' unit tests, with the store semantics the controllers
// rely on (see "Requests from controllers helper" in notes/STATUS-kube-sim.md): one resourceVersion counter,
// events to subscribers, 409 on stale writes, finalizers blocking removal, graceful pod deletion with
// deletionTimestamp = now + grace, propagationPolicy Foreground/Orphan as finalizers, namespaces finalized by
// spec.finalizers, deep-frozen objects handed out (as the real store does). It is not the real store; tests against the real one are in test/controllers.test.ts.
import { randomUUID } from 'node:crypto';
import {
  ApiError,
  type ClusterAccess,
  type DeleteOptions,
  type Json,
  type KubeObject,
  type ObjectMeta,
  type ResourceType,
  type StoreEvent,
} from '../apimachinery/types.ts';
import { resourceId } from './util.ts';

function type(
  group: string,
  version: string,
  kind: string,
  plural: string,
  namespaced: boolean,
): ResourceType {
  return {
    group,
    version,
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    namespaced,
    shortNames: [],
    categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: { status: true },
  };
}

export const fakeResourceTypes: ResourceType[] = [
  type('', 'v1', 'Namespace', 'namespaces', false),
  type('', 'v1', 'Node', 'nodes', false),
  type('', 'v1', 'Pod', 'pods', true),
  type('', 'v1', 'ConfigMap', 'configmaps', true),
  type('', 'v1', 'ServiceAccount', 'serviceaccounts', true),
  type('', 'v1', 'ReplicationController', 'replicationcontrollers', true),
  type('', 'v1', 'ResourceQuota', 'resourcequotas', true),
  type('', 'v1', 'Event', 'events', true),
  type('', 'v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', true),
  type('apps', 'v1', 'Deployment', 'deployments', true),
  type('apps', 'v1', 'ReplicaSet', 'replicasets', true),
  type('apps', 'v1', 'StatefulSet', 'statefulsets', true),
  type('apps', 'v1', 'ControllerRevision', 'controllerrevisions', true),
  type('batch', 'v1', 'Job', 'jobs', true),
  type('podset.io', 'v1', 'PodSet', 'podsets', true),
  type('example.com', 'v1', 'ClusterThing', 'clusterthings', false),
];

function isoNow(offsetMs = 0): string {
  return new Date(Date.now() + offsetMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class FakeCluster implements ClusterAccess {
  private rv = 1;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly listeners = new Set<(e: StoreEvent) => void>();
  private readonly types: ResourceType[];
  /** Every write, for assertions: verb, resource, name. */
  readonly writes: { verb: string; resource: string; name: string }[] = [];

  constructor(types: ResourceType[] = fakeResourceTypes) {
    this.types = types;
    for (const name of ['default', 'kube-system']) {
      this.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
  }

  resourceTypes(): ResourceType[] {
    return this.types;
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const o = this.bucket(resource).get(this.key(resource, namespace, name));
    return o ? frozen(o) : undefined;
  }

  list(resource: string, namespace?: string): KubeObject[] {
    const out: KubeObject[] = [];
    for (const o of this.bucket(resource).values()) {
      if (namespace === undefined || o.metadata.namespace === namespace) out.push(frozen(o));
    }
    return out;
  }

  /** Number of stored objects of a resource (cheap, for tests). */
  count(resource: string): number {
    return this.bucket(resource).size;
  }

  create(resource: string, object: KubeObject): KubeObject {
    const t = this.typeOf(resource);
    const o = structuredClone(object);
    const m = o.metadata;
    if (!m.name && m.generateName) m.name = m.generateName + Math.random().toString(36).slice(2, 7);
    if (!m.name) throw new ApiError(422, 'Invalid', 'name or generateName is required');
    if (t.namespaced) {
      m.namespace ??= 'default';
      const ns = this.get('namespaces', undefined, m.namespace);
      if (!ns && resource !== 'namespaces')
        throw new ApiError(404, 'NotFound', `namespaces "${m.namespace}" not found`);
      if (ns?.metadata.deletionTimestamp) {
        throw new ApiError(403, 'Forbidden', `namespace ${m.namespace} is being terminated`);
      }
    } else {
      delete m.namespace;
    }
    const key = this.key(resource, m.namespace, m.name);
    if (this.bucket(resource).has(key))
      throw new ApiError(409, 'AlreadyExists', `${resource} "${m.name}" already exists`);
    m.uid = randomUUID();
    m.creationTimestamp = isoNow();
    m.generation = 1;
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    if (resource === 'pods') o.status = { phase: 'Pending' };
    else if (resource === 'namespaces') {
      o.spec = { finalizers: ['kubernetes'] };
      o.status = { phase: 'Active' };
    } else if (t.subresources.status) delete o.status;
    return this.commit('create', resource, key, o, 'ADDED');
  }

  update(resource: string, object: KubeObject): KubeObject {
    return this.write('update', resource, object);
  }

  updateStatus(resource: string, object: KubeObject): KubeObject {
    return this.write('updateStatus', resource, object);
  }

  bind(namespace: string, name: string, nodeName: string): KubeObject {
    const pod = this.get('pods', namespace, name);
    if (!pod) throw new ApiError(404, 'NotFound', `pods "${name}" not found`);
    const spec = (pod.spec ?? {}) as { nodeName?: string };
    if (spec.nodeName)
      throw new ApiError(409, 'Conflict', `pod ${name} is already assigned to node "${spec.nodeName}"`);
    if (pod.metadata.deletionTimestamp)
      throw new ApiError(409, 'Conflict', `pod ${name} is being deleted, cannot be assigned to a host`);
    return this.write('update', 'pods', {
      ...pod,
      spec: { ...(pod.spec as object), nodeName },
    } as KubeObject);
  }

  delete(
    resource: string,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): KubeObject | undefined {
    const key = this.key(resource, namespace, name);
    const stored = this.bucket(resource).get(key);
    if (!stored) throw new ApiError(404, 'NotFound', `${resource} "${name}" not found`);
    if (options.preconditions?.uid !== undefined && options.preconditions.uid !== stored.metadata.uid) {
      throw new ApiError(409, 'Conflict', 'Precondition failed: UID in precondition does not match');
    }
    if (resource === 'namespaces' && (name === 'default' || name === 'kube-system')) {
      throw new ApiError(403, 'Forbidden', `namespace ${name} may not be deleted`);
    }
    const o = structuredClone(stored);
    const m = o.metadata;
    const finalizers = [...(m.finalizers ?? [])];
    const addFinalizer = (f: string): void => {
      if (!finalizers.includes(f)) finalizers.push(f);
    };
    if (!m.deletionTimestamp) {
      if (options.propagationPolicy === 'Foreground') addFinalizer('foregroundDeletion');
      if (options.propagationPolicy === 'Orphan') addFinalizer('orphan');
    }
    let grace = 0;
    if (resource === 'pods') {
      const spec = (o.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
      const phase = (o.status as { phase?: string } | undefined)?.phase;
      grace = options.gracePeriodSeconds ?? spec.terminationGracePeriodSeconds ?? 30;
      if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') grace = 0;
      if (m.deletionGracePeriodSeconds !== undefined) grace = Math.min(grace, m.deletionGracePeriodSeconds);
    }
    const nsFinalizers =
      resource === 'namespaces' ? ((o.spec as { finalizers?: string[] }).finalizers ?? []) : [];
    if (finalizers.length === 0 && grace === 0 && nsFinalizers.length === 0) {
      return void this.remove(resource, key, 'delete');
    }
    if (m.deletionTimestamp && m.deletionGracePeriodSeconds === grace && sameList(finalizers, m.finalizers)) {
      return frozen(stored); // nothing changes
    }
    m.finalizers = finalizers;
    if (finalizers.length === 0) delete m.finalizers;
    m.deletionGracePeriodSeconds = grace;
    m.deletionTimestamp = isoNow(grace * 1000);
    if (resource === 'namespaces') (o.status as { phase?: string }).phase = 'Terminating';
    return this.commit('delete', resource, key, o, 'MODIFIED');
  }

  forceRemove(resource: string, namespace: string | undefined, name: string): void {
    const key = this.key(resource, namespace, name);
    const stored = this.bucket(resource).get(key);
    if (!stored) throw new ApiError(404, 'NotFound', `${resource} "${name}" not found`);
    if (!stored.metadata.finalizers?.length) return this.remove(resource, key, 'forceRemove');
    if (stored.metadata.deletionGracePeriodSeconds === 0) return;
    const o = structuredClone(stored);
    o.metadata.deletionGracePeriodSeconds = 0;
    o.metadata.deletionTimestamp ??= isoNow();
    this.commit('forceRemove', resource, key, o, 'MODIFIED');
  }

  private write(verb: 'update' | 'updateStatus', resource: string, object: KubeObject): KubeObject {
    const t = this.typeOf(resource);
    const key = this.key(
      resource,
      t.namespaced ? (object.metadata.namespace ?? 'default') : undefined,
      object.metadata.name ?? '',
    );
    const stored = this.bucket(resource).get(key);
    if (!stored) throw new ApiError(404, 'NotFound', `${resource} "${object.metadata.name}" not found`);
    const rv = object.metadata.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== stored.metadata.resourceVersion) {
      throw new ApiError(
        409,
        'Conflict',
        `the object has been modified; please apply your changes to the latest version`,
      );
    }
    const next = structuredClone(stored);
    if (verb === 'updateStatus') {
      if (object.status === undefined) delete next.status;
      else next.status = structuredClone(object.status);
    } else {
      const incoming = structuredClone(object);
      for (const k of Object.keys(next)) if (k !== 'metadata' && k !== 'status') delete next[k];
      for (const [k, v] of Object.entries(incoming)) if (k !== 'metadata' && k !== 'status') next[k] = v;
      const m = incoming.metadata;
      next.metadata.labels = m.labels;
      next.metadata.annotations = m.annotations;
      next.metadata.ownerReferences = m.ownerReferences;
      next.metadata.finalizers = m.finalizers;
      for (const f of ['labels', 'annotations', 'ownerReferences', 'finalizers'] as const) {
        if (next.metadata[f] === undefined) delete next.metadata[f];
      }
      if (JSON.stringify(stored.spec) !== JSON.stringify(next.spec))
        next.metadata.generation = (stored.metadata.generation ?? 1) + 1;
      if (stored.metadata.deletionTimestamp && !next.metadata.finalizers?.length) {
        const nsFinalizers =
          resource === 'namespaces'
            ? ((next.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [])
            : [];
        if ((next.metadata.deletionGracePeriodSeconds ?? 0) === 0 && nsFinalizers.length === 0) {
          this.remove(resource, key, verb, next);
          return frozen(next);
        }
      }
    }
    if (JSON.stringify(next) === JSON.stringify(stored)) return frozen(stored);
    return this.commit(verb, resource, key, next, 'MODIFIED');
  }

  private commit(
    verb: string,
    resource: string,
    key: string,
    o: KubeObject,
    type: 'ADDED' | 'MODIFIED',
  ): KubeObject {
    o.metadata.resourceVersion = String(++this.rv);
    this.bucket(resource).set(key, o);
    this.writes.push({ verb, resource, name: o.metadata.name ?? '' });
    this.emit({ type, resource, object: o });
    return frozen(o);
  }

  private remove(resource: string, key: string, verb: string, last?: KubeObject): void {
    const o = structuredClone(last ?? this.bucket(resource).get(key)!);
    this.bucket(resource).delete(key);
    o.metadata.resourceVersion = String(++this.rv);
    this.writes.push({ verb, resource, name: o.metadata.name ?? '' });
    this.emit({ type: 'DELETED', resource, object: o });
  }

  private emit(event: StoreEvent): void {
    for (const l of [...this.listeners]) l({ ...event, object: frozen(event.object) });
  }

  private typeOf(resource: string): ResourceType {
    const t = this.types.find((x) => resourceId(x) === resource);
    if (!t)
      throw new ApiError(404, 'NotFound', `the server could not find the requested resource (${resource})`);
    return t;
  }

  private key(resource: string, namespace: string | undefined, name: string): string {
    return this.typeOf(resource).namespaced ? `${namespace ?? 'default'}/${name}` : name;
  }

  private bucket(resource: string): Map<string, KubeObject> {
    let b = this.objects.get(resource);
    if (!b) {
      this.typeOf(resource);
      b = new Map();
      this.objects.set(resource, b);
    }
    return b;
  }
}

/** A deep-frozen copy: like the real store, objects handed out must not be edited in place. */
function frozen<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function sameList(a: string[] | undefined, b: string[] | undefined): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
}

/** Test helper: a minimal object of a given kind. */
export function obj(
  apiVersion: string,
  kind: string,
  name: string,
  namespace: string | undefined,
  extra: { metadata?: ObjectMeta; [field: string]: unknown } = {},
): KubeObject {
  const { metadata, ...rest } = extra;
  const o: KubeObject = {
    apiVersion,
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}), ...metadata },
  };
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) o[k] = v as Json;
  return o;
}

/** Test helper: resolves when `check` returns a truthy value, polling on the event loop; rejects after `ms`. */
export async function until<T>(
  check: () => T | undefined | false | null,
  ms = 5000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A FakeCluster that refuses pod creates (as quota admission would) while `refuse` is true. */
export class PodRefusingCluster extends FakeCluster {
  refuse = true;
  readonly #message: string;
  constructor(message: string) {
    super();
    this.#message = message;
  }
  override create(resource: string, object: KubeObject): KubeObject {
    if (resource === 'pods' && this.refuse) throw new ApiError(403, 'Forbidden', this.#message);
    return super.create(resource, object);
  }
}
