// The API fallback's memory of pods (STATE_SOURCE=api): each pod's plan inputs as last seen, as the
// projection's digest (32 characters), so that a pod event is told apart as the projection's fold tells it —
// a plan change, a change of status alone (phase, readiness), or nothing a plan reads (a binding, a container
// restart, an annotation) — by the same rule (@podset/state's inputsChange).
import { inputsChange, podDigest, type InputsChange, type ProjectedPod } from '@podset/state';
import type { StreamInfo } from './change-gate.ts';
import { objectId, type WatchedObject } from './keys.ts';

export class PodInputsSeen {
  readonly #seen = new Map<string, string>();
  /** Per pods stream being relisted: the pods its pages listed (what it did not list went unwatched). */
  readonly #relisting = new Map<string, Set<string>>();

  /**
   * Records the pod as the event shows it; answers what the event changed since the pod was last seen. A pod
   * never seen (ADDED, or first seen since a restart) and a DELETED one are plan changes.
   */
  admit(type: string, pod: WatchedObject): InputsChange {
    const id = objectId(pod);
    if (type === 'DELETED') {
      this.#seen.delete(id);
      return 'plan';
    }
    const digest = podDigest(pod as ProjectedPod);
    const before = type === 'ADDED' ? undefined : this.#seen.get(id);
    this.#seen.set(id, digest);
    return inputsChange(before, digest);
  }

  /** The event's request failed: its re-delivery must owe again, so the pod counts as never seen. */
  forget(pod: WatchedObject): void {
    this.#seen.delete(objectId(pod));
  }

  relistStarted(stream: string): void {
    this.#relisting.set(stream, new Set());
  }

  /** Relisted pods: remembered as seen (their keys are requested in bulk anyway). */
  listed(stream: string, pods: readonly WatchedObject[]): void {
    const listed = this.#relisting.get(stream);
    for (const pod of pods) {
      const id = objectId(pod);
      this.#seen.set(id, podDigest(pod as ProjectedPod));
      listed?.add(id);
    }
  }

  /** A relist completed: of a pods stream, forget the pods of its namespace (or all) it did not list. */
  relistDone({ stream, resource, namespace }: StreamInfo): void {
    const listed = this.#relisting.get(stream);
    this.#relisting.delete(stream);
    if (listed === undefined || resource !== 'pods') return;
    for (const id of this.#seen.keys()) {
      if (namespace !== undefined && !id.startsWith(`${namespace}/`)) continue;
      if (!listed.has(id)) this.#seen.delete(id);
    }
  }

  get size(): number {
    return this.#seen.size;
  }
}
