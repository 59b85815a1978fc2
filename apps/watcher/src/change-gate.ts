// Which watch events request a reconcile, and what the watcher keeps to decide it. One implementation is
// chosen at start-up by STATE_SOURCE: the projection (projector.ts: every event folded into the state the
// workers read, in Redis) or, for the API fallback, PodSetChangeFilter (change-filter.ts: each PodSet's plan
// inputs in memory, every pod event requests one). The pipeline asks the gate and never which one it has.
import type { RequestOutcome } from '@podset/queue';
import type { EventRecord } from './event-log.ts';
import type { Resource, WatchedObject } from './keys.ts';
import type { ListedPage, WatchEvent } from './watch-loop.ts';

/**
 * The status-only windows of one batch's keys (status-windows.ts judges them; windowOf reads one): the
 * default, and the keys whose window is another. The gate's fold takes them for the queue's cover rule.
 */
export interface BatchWindows {
  defaultMs: number;
  /** Keys whose window is not `defaultMs`, with theirs. */
  exceptions: ReadonlyMap<string, number>;
}

/** A hash field written (or, without a value, deleted) atomically with a request (@podset/queue's HashWrite). */
export interface RequestRecord {
  key: string;
  field: string;
  value: string | undefined;
}

export interface StreamInfo {
  stream: string;
  resource: Resource;
  namespace: string | undefined;
}

/** The gate's answer for one event. */
export interface Admission {
  /** A reconcile of the key is owed: the event may change its plan. */
  owed: boolean;
  /**
   * The queue's answer to the owed request, when the gate already has it: the queue's rules, run in the
   * gate's own call (queue-cover.ts), found the key's job covers it (`covered`) or merged the request into
   * the key's pending job (`merged`), and the event was recorded as requested there: nothing to request
   * (`owed` is false).
   */
  queueAnswer?: Extract<RequestOutcome, 'covered' | 'merged'>;
  /**
   * Owed only for what it moves of the PodSet's status (a pod's phase or readiness), not for anything a
   * plan acts on: its request may be due a little later, to collapse with its neighbours'.
   */
  statusOnly?: boolean;
  /** The owed request went through: record it (a re-delivered event then owes nothing more). */
  requested(): Promise<void>;
  /** What `requested()` writes, when the request can write it in its own transaction instead (then it is not called). */
  record?: RequestRecord;
  /**
   * Not folded: a later MODIFIED of its object in the same batch was folded in its place (superseded.ts),
   * and answers for both. `owed` is false.
   */
  superseded?: boolean;
  /** Owed, and the key had no pending job in the queue when admitted (none, or only the active one): nothing to merge into. */
  noJob?: boolean;
  /** The request or the event-log append failed: the watch re-delivers the event, which must owe again. */
  failed(): void;
}

/** A watch event and the PodSet key it concerns. */
/**
 * What a watch event came to: `requested` it made a live request; `coalesced` it shared one with another
 * event of its key in its batch; `covered` the queue's cover rule, run in the gate's call, found the key's job
 * covers it (the queue's answer, without a request); `merged` its request was merged into the key's pending
 * job in the gate's call (no request of its own); `unchanged` it changed nothing a plan reads (the
 * operator's own status writes among them); `superseded` a later event of its object in its batch was
 * folded in its place (that one's outcome is what the two came to); `unkeyed` it concerns no PodSet.
 */
export type EventOutcome =
  'requested' | 'coalesced' | 'covered' | 'merged' | 'unchanged' | 'superseded' | 'unkeyed';

export interface KeyedEvent {
  ev: WatchEvent;
  key: string;
}

export interface ChangeGate {
  /**
   * Set when admit appends the event-log records it is given, in the same Redis call as its folds: the
   * pipeline then hands it every batch's records (a batch of no keyed events too) and appends none itself.
   */
  readonly appendsLog?: boolean;
  /**
   * Records a batch of events (each of PodSet `key`) and answers, per event and in order, whether it owes
   * a reconcile. Batches are admitted in event order: one batch's records land before the next one's. With
   * `appendsLog`, `log` (the batch's event-log records) is appended with them. `windows`: how long each
   * key's status-only request would wait, for a gate that asks the queue's cover rule in its own call.
   */
  admit(
    events: readonly KeyedEvent[],
    log?: readonly EventRecord[],
    windows?: BatchWindows,
  ): Promise<Admission[]>;
  /** Records a relisted page (its keys are requested in bulk anyway). */
  listed(page: ListedPage, keyOf: (o: WatchedObject) => string | undefined): Promise<void>;
  /** A relist of `stream` begins (its pages follow). */
  relistStarted(stream: string): Promise<void>;
  /** A relist completed: every object of the stream was handed on. */
  relistDone(info: StreamInfo): Promise<void>;
  /** Every stream relists now (Redis lost its data). */
  relistingAll(): void;
  /** Whether the streams may resume from their checkpoints (what the gate keeps holds what they saw). */
  resumable(): Promise<boolean>;
}
