// The watcher's side of the projection (the change gate of STATE_SOURCE=projection, the default): every
// watch event and every relisted object is folded into the Redis projection before its reconcile is
// requested, so a worker that takes the request finds the event in the state it reads, and an event
// that changed nothing a plan reads requests nothing. A relist starts a new epoch per stream; once done,
// what it did not see is swept. The projection is marked ready once every stream has relisted into it:
// until then (a first start, or a Redis that lost its data) workers read the API.
import type {
  Fold,
  FoldItem,
  FoldType,
  ProjectedPod,
  ProjectedPodSet,
  ProjectionWriter,
} from '@podset/state';
import type { Admission, BatchWindows, ChangeGate, KeyedEvent, StreamInfo } from './change-gate.ts';
import type { EventLog, EventRecord } from './event-log.ts';
import type { WatchedObject } from './keys.ts';
import type { Logger } from '@podset/log';
import { admissionOf, statusWindowsArg } from './queue-cover.ts';
import { supersededInBatch } from './superseded.ts';
import type { ListedPage } from './watch-loop.ts';

/** A skipped event's answer: its object's later event in the batch was folded for it. */
const SUPERSEDED: Admission = {
  owed: false,
  superseded: true,
  requested: () => Promise.resolve(),
  failed: () => undefined,
};

/** One answer per event: the folds' in order, and SUPERSEDED where an event was not folded. */
function admissionsOf(folds: readonly Fold[], superseded: readonly boolean[] | undefined): Admission[] {
  if (superseded === undefined) return folds.map(admissionOf);
  const answers: Admission[] = [];
  let f = 0;
  for (const skipped of superseded) answers.push(skipped ? SUPERSEDED : admissionOf(folds[f++]!));
  return answers;
}

export class Projector implements ChangeGate {
  readonly projection: ProjectionWriter;
  readonly appendsLog: boolean;
  readonly #eventLog: Pick<EventLog, 'appendArgs'> | undefined;
  readonly #streams: ReadonlySet<string>;
  readonly #log: Logger;
  readonly #epochs = new Map<string, number>();
  readonly #relisted = new Set<string>();
  /** Settles once the latest batch has issued its folds (see admit). */
  #issuing: Promise<void> = Promise.resolve();
  /** Batches that wait to issue their folds (an epoch to read first, or such a batch before them). */
  #waiting = 0;

  /** `eventLog`: given when the projection appends its records (ProjectionWriter's eventLog option). */
  constructor(
    projection: ProjectionWriter,
    streams: readonly string[],
    log: Logger,
    eventLog?: Pick<EventLog, 'appendArgs'>,
  ) {
    this.projection = projection;
    this.#eventLog = projection.appendsLog ? eventLog : undefined;
    this.appendsLog = this.#eventLog !== undefined;
    this.#streams = new Set(streams);
    this.#log = log;
  }

  /** Whether the streams may resume from their checkpoints (the projection holds what they saw). */
  async resumable(): Promise<boolean> {
    await this.projection.retireUntaggedLayout();
    return await this.projection.isReady();
  }

  /**
   * Folds the events before anything is requested, a batch in a few Redis calls. Batches are issued in
   * order on one connection, so they land in order: the next batch issues its folds only once this one has
   * issued its own, even when this one must read an epoch first. A request that fails is not recorded:
   * the re-delivered event's fold owes it again. A MODIFIED followed by another of its object in the batch
   * is not folded (superseded.ts): the later one stands for both.
   */
  admit(
    events: readonly KeyedEvent[],
    records?: readonly EventRecord[],
    windows?: BatchWindows,
  ): Promise<Admission[]> {
    const eventLog = this.#eventLog;
    const log =
      records === undefined || records.length === 0 || eventLog === undefined
        ? undefined
        : eventLog.appendArgs(records);
    // The keys' status-only windows, for the fold's cover rule (the owed-key hook's second argument).
    const hookArg = windows === undefined ? undefined : statusWindowsArg(windows);
    // The common case: no batch before this one still waits to issue, every epoch known. Issued now, in
    // order, without the turn's chain of promises.
    const superseded = supersededInBatch(events);
    const answers = (folds: readonly Fold[]) => admissionsOf(folds, superseded);
    const items = this.#waiting === 0 ? this.#items(events, superseded) : undefined;
    if (items !== undefined) return this.projection.foldEach(items, log, hookArg).then(answers);
    this.#waiting++;
    const turn = this.#issuing.then(async () => {
      for (const { ev } of events) if (!this.#epochs.has(ev.stream)) await this.#epoch(ev.stream);
      // Wrapped, so that `turn` settles once the folds are issued, not once they are answered.
      return { folds: this.projection.foldEach(this.#items(events, superseded)!, log, hookArg) };
    });
    // The next batch issues its folds once this one has issued its own (not once they are answered).
    const issued = () => void this.#waiting--;
    this.#issuing = turn.then(issued, issued);
    return turn.then(({ folds }) => folds).then(answers);
  }

  /** The events' fold items (but the superseded), each at its stream's epoch; undefined while an epoch is unknown. */
  #items(
    events: readonly KeyedEvent[],
    superseded: readonly boolean[] | undefined,
  ): (FoldItem & { epoch: number })[] | undefined {
    const items: (FoldItem & { epoch: number })[] = [];
    for (let i = 0; i < events.length; i++) {
      if (superseded?.[i] === true) continue;
      const { ev, key } = events[i]!;
      const epoch = this.#epochs.get(ev.stream);
      if (epoch === undefined) return undefined;
      const item: FoldItem & { epoch: number } = {
        key,
        kind: ev.resource === 'pods' ? 'pod' : 'podset',
        type: ev.type as FoldType,
        object: ev.object as ProjectedPod | ProjectedPodSet,
        epoch,
      };
      if (ev.encoded !== undefined) item.encoded = ev.encoded;
      items.push(item);
    }
    return items;
  }

  async relistStarted(stream: string): Promise<void> {
    this.#relisted.delete(stream);
    this.#epochs.set(stream, await this.projection.nextEpoch(stream, this.#epochs.get(stream)));
  }

  /** Every stream relists now (Redis lost its data): ready again only once all of them are done. */
  relistingAll(): void {
    this.#relisted.clear();
  }

  /** Folds a relisted page (as ADDED) under the stream's new epoch, many objects per Redis call. */
  async listed(page: ListedPage, keyOf: (o: WatchedObject) => string | undefined): Promise<void> {
    const items: { key: string; object: ProjectedPod | ProjectedPodSet }[] = [];
    for (const obj of page.objects) {
      const key = keyOf(obj);
      if (key !== undefined) items.push({ key, object: obj as ProjectedPod | ProjectedPodSet });
    }
    // Every key of the page is requested anyway (in bulk, after this): the fold records that now.
    const kind = page.resource === 'pods' ? 'pod' : 'podset';
    await this.projection.foldListed(kind, items, await this.#epoch(page.stream), page.stream);
  }

  /** A relist completed: sweep what it did not see; once every stream has relisted, mark ready. */
  async relistDone(info: StreamInfo): Promise<void> {
    const epoch = await this.#epoch(info.stream);
    const removed = await this.projection.sweep(
      info.resource === 'pods' ? 'pod' : 'podset',
      info.namespace,
      epoch,
    );
    this.#relisted.add(info.stream);
    this.#log.info({ stream: info.stream, epoch, removed }, 'projection rebuilt from the relist');
    if ([...this.#streams].every((s) => this.#relisted.has(s))) await this.projection.markReady();
  }

  async #epoch(stream: string): Promise<number> {
    let epoch = this.#epochs.get(stream);
    if (epoch === undefined) {
      epoch = await this.projection.epoch(stream);
      this.#epochs.set(stream, epoch);
    }
    return epoch;
  }
}
