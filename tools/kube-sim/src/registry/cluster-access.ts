// ClusterAccess over the store, for in-process controllers: the same write path as the HTTP API.
import type { Api } from './api.ts';
import { resourceId } from './rest/resources.ts';
import {
  ApiError,
  type ClusterAccess,
  type DeleteOptions,
  type KubeObject,
  type ResourceType,
  type StoreEvent,
} from '../apimachinery/types.ts';

export class Cluster implements ClusterAccess {
  private readonly api: Api;
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  private queue: StoreEvent[] = [];
  private scheduled = false;
  private readonly unsubscribe: () => void;

  constructor(api: Api) {
    this.api = api;
    this.unsubscribe = api.store.onCommit((ev) => {
      if (this.listeners.size === 0) return;
      this.queue.push({ type: ev.type, resource: ev.resource, object: ev.rec.obj });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Delivers events after the write that caused them has returned, in commit order. */
  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    for (const ev of batch) {
      for (const l of this.listeners) {
        try {
          l(ev);
        } catch (e) {
          console.error('kube-sim: controller listener failed', e);
        }
      }
    }
  }

  private type(resource: string): ResourceType {
    const t = this.api.registry.byResourceId(resource);
    if (!t)
      throw new ApiError(404, 'NotFound', `the server could not find the requested resource (${resource})`);
    return t;
  }

  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.api.store.get(resource, namespace, name)?.obj;
  }

  list(resource: string, namespace?: string): KubeObject[] {
    return this.api.store.list(resource, namespace).map((r) => r.obj);
  }

  create(resource: string, object: KubeObject): KubeObject {
    const t = this.type(resource);
    return this.api.create(t, t.namespaced ? object.metadata.namespace : undefined, object);
  }

  update(resource: string, object: KubeObject): KubeObject {
    const t = this.type(resource);
    return this.api.update(t, object.metadata.namespace, object.metadata.name ?? '', object);
  }

  updateStatus(resource: string, object: KubeObject): KubeObject {
    const t = this.type(resource);
    return this.api.updateStatus(t, object.metadata.namespace, object.metadata.name ?? '', object);
  }

  bind(namespace: string, name: string, nodeName: string): KubeObject {
    return this.api.bind(namespace, name, { target: { name: nodeName } });
  }

  delete(
    resource: string,
    namespace: string | undefined,
    name: string,
    options?: DeleteOptions,
  ): KubeObject | undefined {
    const r = this.api.delete(this.type(resource), namespace, name, options ?? {});
    return r.removed ? undefined : r.object;
  }

  forceRemove(resource: string, namespace: string | undefined, name: string): void {
    this.api.forceRemove(this.type(resource), namespace, name);
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  resourceTypes(): ResourceType[] {
    return this.api.registry.all();
  }

  close(): void {
    this.unsubscribe();
    this.listeners.clear();
  }
}

export { resourceId };
