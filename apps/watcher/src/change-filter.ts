// The change gate of the API fallback (STATE_SOURCE=api), where each reconcile reads the API: an event
// requests one when it changes what a plan reads, by the projection's rules — a pod's (pod-inputs-seen.ts:
// a change of its phase or readiness alone is told apart, as status-only) and a PodSet's. The worker's own
// status write comes back as a MODIFIED event; requesting a reconcile for it would make the operator wake
// itself up (and, since a live request pulls a backed-off retry forward, turn a failing PodSet's backoff
// into a retry storm).
import { podSetInputs } from '@podset/state';
import type { Admission, ChangeGate, KeyedEvent, StreamInfo } from './change-gate.ts';
import type { WatchedObject } from './keys.ts';
import { PodInputsSeen } from './pod-inputs-seen.ts';
import type { ListedPage } from './watch-loop.ts';

/**
 * What of a PodSet a plan reads besides its status (uid, generation — bumped by the API server on every
 * spec change, never on a status change —, deletionTimestamp, finalizers and labels): the projection's
 * rule, so the two cannot differ.
 */
function planInputs(obj: WatchedObject): string {
  return podSetInputs(obj.metadata ?? {});
}

const nothingToRecord = async (): Promise<void> => undefined;

/**
 * Remembers each PodSet's plan inputs as last seen (one short string per PodSet), and each pod's as a
 * digest, so a MODIFIED event that changed none of them requests nothing. Holds no objects: a restarted
 * watcher starts empty and requests once per object on its first event, which settles without a write.
 */
export class PodSetChangeFilter implements ChangeGate {
  readonly #seen = new Map<string, string>();
  readonly pods = new PodInputsSeen();

  async admit(events: readonly KeyedEvent[]): Promise<Admission[]> {
    return events.map(({ ev, key }): Admission => {
      if (ev.resource === 'podsets') {
        return {
          owed: this.admitPodSet(key, ev.type, ev.object),
          requested: nothingToRecord,
          failed: () => this.forget(key),
        };
      }
      const change = this.pods.admit(ev.type, ev.object);
      return {
        owed: change !== 'none',
        ...(change === 'status' ? { statusOnly: true } : {}),
        requested: nothingToRecord,
        failed: () => this.pods.forget(ev.object),
      };
    });
  }

  /**
   * Records `obj` as the key's newest state; true when the event may change a plan (always for ADDED
   * and DELETED, and for a MODIFIED event whose plan inputs differ from those last seen).
   */
  admitPodSet(key: string, type: string, obj: WatchedObject): boolean {
    if (type === 'DELETED') {
      this.#seen.delete(key);
      return true;
    }
    const inputs = planInputs(obj);
    const before = this.#seen.get(key);
    this.#seen.set(key, inputs);
    return type !== 'MODIFIED' || before !== inputs;
  }

  /** Relisted PodSets and pods: remember them (their reconciles are requested in bulk anyway). */
  async listed(page: ListedPage, keyOf: (o: WatchedObject) => string | undefined): Promise<void> {
    if (page.resource === 'pods') {
      this.pods.listed(page.stream, page.objects);
      return;
    }
    for (const obj of page.objects) {
      const key = keyOf(obj);
      if (key !== undefined) this.#seen.set(key, planInputs(obj));
    }
  }

  /**
   * The request for `key` failed: forget what was seen, so the re-delivered event (the watch resumes
   * from the last RV that was handed on) requests again instead of being taken for a repeat.
   */
  forget(key: string): void {
    this.#seen.delete(key);
  }

  async relistStarted(stream: string): Promise<void> {
    this.pods.relistStarted(stream);
  }

  /** A pods stream's relist forgets the pods it did not list (deleted while nobody watched). */
  async relistDone(info: StreamInfo): Promise<void> {
    this.pods.relistDone(info);
  }

  relistingAll(): void {}
  /** Nothing is kept across restarts: the checkpoints alone say where the streams resume. */
  async resumable(): Promise<boolean> {
    return true;
  }

  get size(): number {
    return this.#seen.size;
  }
}
