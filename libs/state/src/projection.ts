// The projection: what a reconcile reads of a PodSet and its pods, folded from the watch events by the
// watcher and kept in Redis beside the queue (same hash tag), so that workers read one key's state in
// one round trip instead of a GET and a LIST against the API server. Two sides, one per app:
// ProjectionWriter (projection-writer.ts) is the watcher's — fold, epochs, sweep, the ready marker;
// ProjectionReader (projection-reader.ts) is the worker's — read, expectations, forget.
//
// Per PodSet key `ns/name` (the key names: libs/redis keyspace.ts, projectionKeyNames):
//   podset   the PodSet as the planner reads it (JSON), with the epoch and RV it was folded at
//   pods     hash pod name → epoch, RV and the pod's fields the planner reads (entry.ts)
// Each entry is `epoch \t rv \t tag \t payload`: the tag (integrity.ts) is made by the writer, before the
// fold script stores the entry verbatim, and the reader checks it: Redis is not trusted to hand back what
// was folded.
//   expect   hash pod name → expiry (ms): creates and deletes a worker made and has not seen yet
//   requested  hash pod name (or '@ps') → digest of the plan inputs last requested
// and the ready marker, set once a complete relist has been folded (until then workers read the API).
import { projectionKeyNames, type ProjectionKeyNames, type RedisClient } from '@podset/redis';
import { systemClock, type Clock } from '@podset/clock';
import type { EncodedPod, ProjectedMeta, ProjectedPod } from './entry.ts';
import type { EntryTags } from './integrity.ts';

export type { ProjectedMeta, ProjectedPod } from './entry.ts';

/** A PodSet as the planner and the status writer read it. */
export interface ProjectedPodSet {
  metadata: ProjectedMeta;
  spec?: unknown;
  status?: unknown;
}

export type FoldType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * A fold's answer. `owed`: a reconcile is owed — what a plan reads differs from what was last requested.
 * Call `requested()` once that request went through; until then a fold of the same event (re-delivered
 * after a failed request) owes it again.
 */
export interface Fold {
  owed: boolean;
  /**
   * Owed only for a pod's phase or readiness, which move the PodSet's status (and a rollout's pace) but no
   * plan: the request may wait a little and collapse with its neighbours'.
   */
  statusOnly?: boolean;
  /**
   * foldEach only: a request was owed, and the writer's owed-key hook settled it (recorded as requested);
   * the hook's word for how (OwedKeyHook).
   */
  settled?: string;
  requested(): Promise<void>;
  /**
   * foldEach only: the write `requested()` makes (the field of the key's inputs last requested: set to the
   * digest, or deleted for a DELETED event), for a caller that makes it in its request's own transaction.
   */
  record?: { key: string; field: string; value: string | undefined };
  /** foldEach only: owed, and the writer's owed-key hook hinted for the key (what it means is the hook's). */
  hint?: boolean;
}

/** One object to fold into PodSet `key`'s state. */
export interface FoldItem {
  key: string;
  kind: 'pod' | 'podset';
  type: FoldType;
  object: ProjectedPod | ProjectedPodSet;
  /** A pod's encoding (encodedPod of `object`) when the caller computed it already: not hashed again. */
  encoded?: EncodedPod;
}

export interface FoldOptions {
  /**
   * A relisted object: the caller requests the key anyway (a relist requests every key), so it is recorded as
   * requested now; and it replaces the stored entry whatever their resourceVersions (a relist is authoritative).
   */
  requestedAnyway?: boolean;
}

export interface ProjectedState {
  podset: ProjectedPodSet | undefined;
  pods: ProjectedPod[];
  /** Pod names a worker created or deleted and the projection has not shown yet (unexpired). */
  pending: string[];
  /**
   * Entries read() refused (only with `tags`): a tag that does not check, or a PodSet whose
   * namespace/name is not its key's. They are left out of `podset` and `pods`; never plan from the rest.
   */
  refused: Refusal[];
}

export interface Refusal {
  kind: 'pod' | 'podset';
  /** The pod's name; '@ps' for the PodSet. */
  field: string;
  reason: 'tag' | 'key';
  /** A refused pod entry's stored text: dropRefused removes the entry only while it is still this. */
  stored?: string;
}

/** Where a projection is and how its entries are checked: what both sides are given. */
export interface ProjectionOptions {
  client: RedisClient;
  /** The queue's prefix and name: the projection lives beside the queue (same Redis Cluster slot). */
  prefix: string;
  queueName: string;
  /**
   * The integrity key(s) (PROJECTION_HMAC_KEY): the writer tags every entry, and the reader refuses an
   * entry whose tag does not check. Without it entries carry no tag and the reader checks nothing: a
   * worker never plans from such a projection (it reads the API instead).
   */
  tags?: EntryTags;
  /** The time expectations and tombstones expire by. Default: the system clock. */
  clock?: Clock;
  /**
   * Told of values read from Redis that no writer of this code makes (an expectation expiring further
   * ahead than its ttl, an epoch counter that is not a small whole number): they were ignored.
   */
  outOfBounds?: (value: OutOfBoundsValue) => void;
}

/** A value the reader ignored because it was out of bounds: what it was, of which PodSet key, how many. */
export interface OutOfBoundsValue {
  what: 'expectation' | 'epoch';
  key: string;
  count: number;
}

/** The base of both sides (reader, writer): their Redis client, clock, entry tags and the projection's key names. */
export class ProjectionClient {
  protected readonly client: RedisClient;
  protected readonly clock: Clock;
  protected readonly tags: EntryTags | undefined;
  protected readonly outOfBounds: ((value: OutOfBoundsValue) => void) | undefined;
  readonly keyspace: ProjectionKeyNames;

  constructor(opts: ProjectionOptions) {
    this.client = opts.client;
    this.outOfBounds = opts.outOfBounds;
    this.clock = opts.clock ?? systemClock;
    this.tags = opts.tags;
    this.keyspace = projectionKeyNames(opts.prefix, opts.queueName);
  }

  get base(): string {
    return this.keyspace.base;
  }

  keys(key: string): { podset: string; pods: string; expect: string; requested: string } {
    return this.keyspace.of(key);
  }

  /** The PodSet keys that have (or had) entries. */
  get indexKey(): string {
    return this.keyspace.index;
  }

  /** Set once a complete relist has been folded (see keyspace.ts for its `:v2`). */
  get readyKey(): string {
    return this.keyspace.ready;
  }

  async isReady(): Promise<boolean> {
    return (await this.client.exists(this.readyKey)) === 1;
  }
}
