// Typed access to the API: one ResourceClient per resource type (pods, events, podsets, leases, revisions),
// its paths and options, over the one transport (KubeClient) that limits, authenticates and counts.
import { GROUP, PLURAL, VERSION } from '@podset/reconcile';
import type { ProtobufDecodeError } from './protobuf-reader.ts';
import type { KubeClient, StreamOptions } from './transport.ts';
import type { KubeList, KubeObject, Status, WatchEvent } from './types.ts';
export interface ResourceRef {
  group: string; // '' for core
  version: string;
  plural: string;
}

export const PODS: ResourceRef = { group: '', version: 'v1', plural: 'pods' };
export const EVENTS: ResourceRef = { group: '', version: 'v1', plural: 'events' };
export const PODSETS: ResourceRef = { group: GROUP, version: VERSION, plural: PLURAL };
export const LEASES: ResourceRef = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' };
export const CONTROLLER_REVISIONS: ResourceRef = {
  group: 'apps',
  version: 'v1',
  plural: 'controllerrevisions',
};

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Omit (with no resourceVersionMatch) for a consistent read. */
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  limit?: number;
  continue?: string;
  signal?: AbortSignal;
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  /**
   * Leave each object's metadata.managedFields out, cut from the line before it is parsed (watch-line.ts):
   * for a reader that never looks at them, about half the parse of a pod after its kubelet's writes.
   */
  dropManagedFields?: boolean;
  /**
   * Read the stream in paced turns (0, the default: as it arrives): after a turn's events were handed on,
   * what arrives is left in the kernel this long, then comes out in one turn. For a watch whose events come
   * one at a time and can wait that long: the process wakes and works once per turn, each event up to this
   * much later. A turn takes the whole backlog, and a 1 MiB one is followed at once (paced-reads.ts), so
   * pacing never caps how fast the stream is read.
   */
  readPauseMs?: number;
  /**
   * Ask for the watch in protobuf, as Go clients do for built-in kinds, and read it so when the API serves
   * it (JSON otherwise: custom resources have none). Its objects then hold only what protobuf-objects.ts
   * decodes: a pod's metadata without managedFields, spec.nodeName, status.phase and status.conditions; the
   * rest of a pod is stepped over by length, not parsed. A stream that does not decode fails with a
   * ProtobufDecodeError.
   */
  protobuf?: boolean;
  /** Told when a protobuf stream did not decode, before the watch fails with that ProtobufDecodeError. */
  onProtobufFailed?: (err: ProtobufDecodeError) => void;
  signal?: AbortSignal;
}

export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  signal?: AbortSignal;
}

export type PatchType = 'merge' | 'json' | 'strategic';
const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

export function resourcePath(
  ref: ResourceRef,
  namespace?: string,
  name?: string,
  subresource?: string,
): string {
  let p = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  if (namespace !== undefined) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${ref.plural}`;
  if (name !== undefined) p += `/${encodeURIComponent(name)}`;
  if (subresource !== undefined) p += `/${subresource}`;
  return p;
}

/** The calls for one resource type. `namespace` undefined = all namespaces (list, watch) or cluster-scoped. */
export class ResourceClient<T extends KubeObject> {
  readonly client: KubeClient;
  readonly ref: ResourceRef;
  /** How its requests are counted (resourceOfPath's name, worked out once instead of per request). */
  readonly #resource: string;
  constructor(client: KubeClient, ref: ResourceRef) {
    this.client = client;
    this.ref = ref;
    this.#resource = ref.group === '' ? ref.plural : `${ref.plural}.${ref.group}`;
  }

  /**
   * `resourceVersion: '0'` lets the API server answer from its watch cache (any version it holds, no
   * quorum read of etcd); omitted, the read is consistent.
   */
  get(
    namespace: string | undefined,
    name: string,
    opts: { signal?: AbortSignal; resourceVersion?: string } = {},
  ): Promise<T> {
    return this.client.request<T>({
      verb: 'get',
      method: 'GET',
      path: resourcePath(this.ref, namespace, name),
      resource: this.#resource,
      ...(opts.resourceVersion !== undefined ? { query: { resourceVersion: opts.resourceVersion } } : {}),
      ...signalOf(opts),
    });
  }

  list(namespace: string | undefined, opts: ListOptions = {}): Promise<KubeList<T>> {
    return this.client.request<KubeList<T>>({
      verb: 'list',
      method: 'GET',
      path: resourcePath(this.ref, namespace),
      resource: this.#resource,
      query: {
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        resourceVersion: opts.resourceVersion,
        resourceVersionMatch: opts.resourceVersionMatch,
        limit: opts.limit,
        continue: opts.continue,
      },
      ...signalOf(opts),
    });
  }

  /** Follows `continue` until the list is complete. */
  async listAll(namespace: string | undefined, opts: ListOptions = {}): Promise<KubeList<T>> {
    const first = await this.list(namespace, opts);
    const items = [...first.items];
    let cont = first.metadata.continue;
    while (cont !== undefined && cont !== '') {
      const page = await this.list(namespace, {
        ...opts,
        continue: cont,
        resourceVersion: undefined,
        resourceVersionMatch: undefined,
      });
      items.push(...page.items);
      cont = page.metadata.continue;
    }
    return { ...first, metadata: { ...first.metadata, continue: undefined }, items };
  }

  create(namespace: string | undefined, object: T, opts: { signal?: AbortSignal } = {}): Promise<T> {
    return this.client.request<T>({
      verb: 'create',
      method: 'POST',
      path: resourcePath(this.ref, namespace),
      resource: this.#resource,
      body: object,
      ...signalOf(opts),
    });
  }

  /** PUT; a stale metadata.resourceVersion gives 409. */
  replace(
    namespace: string | undefined,
    name: string,
    object: T,
    opts: { signal?: AbortSignal } = {},
  ): Promise<T> {
    return this.put(resourcePath(this.ref, namespace, name), this.#resource, object, opts);
  }

  /** PUT …/status; a stale metadata.resourceVersion gives 409. */
  replaceStatus(
    namespace: string | undefined,
    name: string,
    object: T,
    opts: { signal?: AbortSignal } = {},
  ): Promise<T> {
    return this.put(
      resourcePath(this.ref, namespace, name, 'status'),
      `${this.#resource}/status`,
      object,
      opts,
    );
  }

  private put(path: string, resource: string, object: T, opts: { signal?: AbortSignal }): Promise<T> {
    return this.client.request<T>({
      verb: 'update',
      method: 'PUT',
      path,
      resource,
      body: object,
      ...signalOf(opts),
    });
  }

  patch(
    namespace: string | undefined,
    name: string,
    patch: unknown,
    opts: { type?: PatchType; subresource?: 'status' | 'scale'; signal?: AbortSignal } = {},
  ): Promise<T> {
    return this.client.request<T>({
      verb: 'patch',
      method: 'PATCH',
      path: resourcePath(this.ref, namespace, name, opts.subresource),
      resource: opts.subresource === undefined ? this.#resource : `${this.#resource}/${opts.subresource}`,
      body: patch,
      contentType: PATCH_CONTENT_TYPES[opts.type ?? 'merge'],
      ...signalOf(opts),
    });
  }

  /** Returns the object as left (still terminating / held by finalizers) or a Status when gone. */
  delete(namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<T | Status> {
    const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
    if (opts.preconditions !== undefined) body.preconditions = opts.preconditions;
    if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
    if (opts.propagationPolicy !== undefined) body.propagationPolicy = opts.propagationPolicy;
    return this.client.request<T | Status>({
      verb: 'delete',
      method: 'DELETE',
      path: resourcePath(this.ref, namespace, name),
      resource: this.#resource,
      body,
      ...signalOf(opts),
    });
  }

  watch(namespace: string | undefined, opts: WatchOptions = {}): AsyncGenerator<WatchEvent<T>> {
    return this.client.stream<T>(this.#watchRequest(namespace, opts));
  }

  /** The same watch, its events in arrays, one per read from the socket (KubeClient.streamBatches). */
  watchBatches(namespace: string | undefined, opts: WatchOptions = {}): AsyncGenerator<WatchEvent<T>[]> {
    return this.client.streamBatches<T>(this.#watchRequest(namespace, opts));
  }

  #watchRequest(namespace: string | undefined, opts: WatchOptions): StreamOptions {
    return {
      path: resourcePath(this.ref, namespace),
      resource: this.#resource,
      query: {
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        resourceVersion: opts.resourceVersion,
        allowWatchBookmarks: opts.allowWatchBookmarks,
        timeoutSeconds: opts.timeoutSeconds,
      },
      ...(opts.dropManagedFields === true ? { dropManagedFields: true } : {}),
      ...(opts.readPauseMs !== undefined ? { readPauseMs: opts.readPauseMs } : {}),
      ...(opts.protobuf === true ? { protobuf: true } : {}),
      ...(opts.onProtobufFailed !== undefined ? { onProtobufFailed: opts.onProtobufFailed } : {}),
      ...signalOf(opts),
    };
  }
}

function signalOf(opts: { signal?: AbortSignal }): { signal?: AbortSignal } {
  return opts.signal === undefined ? {} : { signal: opts.signal };
}
