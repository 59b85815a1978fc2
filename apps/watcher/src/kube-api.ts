// The few API calls the watcher makes, as a small interface (so each part is testable with a fake),
// and its implementation over @podset/kube (auth, rate limit, request counting).
import type { Kube, KubeList, KubeObject, Lease, WatchEvent } from '@podset/kube';
import type { Resource, WatchedObject } from './keys.ts';

export interface ListPage {
  items: WatchedObject[];
  metadata: { resourceVersion?: string; continue?: string };
}

/** One line of a watch stream: an event, a BOOKMARK, or an ERROR (a metav1.Status as its object). */
export interface WatchLine {
  type: string;
  object: WatchedObject & { code?: number; message?: string };
}

export interface WatchApi {
  list(
    resource: Resource,
    namespace: string | undefined,
    opts: { labelSelector?: string; limit?: number; continue?: string; signal?: AbortSignal },
  ): Promise<ListPage>;
  /**
   * Events until the server ends the stream, in arrays (those of one read from the socket together: one
   * await per read, not per event; never empty); errors with `code` (HTTP status) when it refuses.
   */
  watch(
    resource: Resource,
    namespace: string | undefined,
    opts: {
      labelSelector?: string;
      resourceVersion?: string;
      allowWatchBookmarks: boolean;
      timeoutSeconds: number;
      signal: AbortSignal;
    },
  ): AsyncIterable<readonly WatchLine[]>;
}

export interface LeaseApi {
  /** The Lease, or undefined when it doesn't exist. */
  get(namespace: string, name: string, signal?: AbortSignal): Promise<Lease | undefined>;
  /** Fails with code 409 when it already exists. */
  create(namespace: string, lease: Lease, signal?: AbortSignal): Promise<Lease>;
  /** Fails with code 409 when metadata.resourceVersion is stale. */
  replace(namespace: string, lease: Lease, signal?: AbortSignal): Promise<Lease>;
}

/** The HTTP status of a failed call, when it got one. */
export function errorCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * kube-apiserver's 504 for a resourceVersion it has not reached (a checkpoint from before an etcd restore,
 * or from another cluster). The RV can never become valid here, so the answer is a relist, as client-go does.
 * `status` is a metav1.Status: an in-stream ERROR object, or a failed call's `.status`.
 */
export function isTooLargeResourceVersion(status: unknown): boolean {
  const s = status as { code?: unknown; details?: { causes?: { reason?: unknown }[] } } | null;
  return s?.code === 504 && (s.details?.causes ?? []).some((c) => c.reason === 'ResourceVersionTooLarge');
}

export function retryAfterSeconds(err: unknown): number | undefined {
  const s = (err as { retryAfterSeconds?: unknown } | null)?.retryAfterSeconds;
  return typeof s === 'number' && Number.isFinite(s) ? s : undefined;
}

export interface WatchApiOptions {
  /** The pod watch is read in paced turns (libs/kube WatchOptions.readPauseMs). */
  podReadPauseMs?: number | undefined;
  /** The pod watch in JSON (default) or protobuf. */
  podEncoding?: PodWatchEncoding | undefined;
  /** Said once when a protobuf pod watch did not decode, and pods are watched in JSON from then on. */
  onProtobufFailed?: ((err: Error) => void) | undefined;
}

export type PodWatchEncoding = 'protobuf' | 'json';

/**
 * Pods are paced (`podReadPauseMs`): on a busy cluster their kubelets' status writes arrive one at a time,
 * and most wait a collapse window anyway; a PodSet's change is a user's, read at once. With `podEncoding`
 * protobuf, pods are watched as kube-controller-manager watches them: the watcher reads a pod's metadata,
 * node, phase and conditions, and protobuf lets the rest (most of the bytes: managedFields, containers,
 * container statuses) be stepped over by length instead of parsed. PodSets are custom resources, which the
 * API serves in JSON only. A protobuf stream that does not decode (an API server that writes something this
 * reader does not know) ends that watch; the next watch of pods asks for JSON, so pods are never left
 * unwatched.
 */
export function watchApiOf(kube: Kube, options: WatchApiOptions = {}): WatchApi {
  const client = (resource: Resource) => (resource === 'pods' ? kube.pods : kube.podSets);
  const podReadPauseMs = options.podReadPauseMs ?? 0;
  let podProtobuf = options.podEncoding === 'protobuf';
  const onProtobufFailed = (err: Error) => {
    if (!podProtobuf) return;
    podProtobuf = false;
    options.onProtobufFailed?.(err);
  };
  const opt = <T>(v: T | undefined) => v;
  return {
    async list(resource, namespace, opts) {
      const page: KubeList<KubeObject> = await client(resource).list(namespace, {
        labelSelector: opt(opts.labelSelector),
        limit: opt(opts.limit),
        continue: opt(opts.continue),
        ...(opts.signal === undefined ? {} : { signal: opts.signal }),
      });
      return page as ListPage;
    },
    watch(resource, namespace, opts) {
      // The watcher never reads managedFields (nothing it hashes or stores has them): not parsed at all.
      const pods = resource === 'pods';
      const readPauseMs = pods ? podReadPauseMs : 0;
      const protobuf = pods && podProtobuf;
      return client(resource).watchBatches(namespace, {
        ...opts,
        dropManagedFields: true,
        ...(readPauseMs > 0 ? { readPauseMs } : {}),
        ...(protobuf ? { protobuf, onProtobufFailed } : {}),
      }) as AsyncIterable<WatchEvent<WatchedObject & { code?: number; message?: string }>[]>;
    },
  };
}

export function leaseApiOf(kube: Kube): LeaseApi {
  const sig = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal });
  return {
    async get(namespace, name, signal) {
      try {
        return await kube.leases.get(namespace, name, sig(signal));
      } catch (err) {
        if (errorCode(err) === 404) return undefined;
        throw err;
      }
    },
    create: (namespace, lease, signal) => kube.leases.create(namespace, lease, sig(signal)),
    replace: (namespace, lease, signal) =>
      kube.leases.replace(namespace, lease.metadata.name ?? '', lease, sig(signal)),
  };
}
