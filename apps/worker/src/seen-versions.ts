// What this worker already planned from, per key: the newest PodSet and pod versions its projection
// reads showed it and its own PodSet writes. The projection only ever moves forward (a fold never
// stores an older resourceVersion over a newer one), so an entry older than what was seen of it is a
// replay — an old entry written back into Redis with its valid tag — and is refused: planning from it
// could roll a PodSet back to an older template or count a pod as it was before.
import { compareRv } from '@podset/redis';

export interface SeenPodSet {
  rv: string | undefined;
  uid: string | undefined;
  generation: number | undefined;
}

export interface Replayed {
  kind: 'pod' | 'podset';
  /** The pod's name; '@ps' for the PodSet. */
  field: string;
}

/** A resourceVersion older than the one seen (opaque ones cannot be ordered: never older). */
const older = (rv: string | undefined, seen: string | undefined): boolean =>
  rv !== undefined && seen !== undefined && compareRv(rv, seen) === -1;

export class SeenVersions {
  readonly #podsets = new Map<string, SeenPodSet>();
  /** Per key, the pods of its last accepted read: a pod gone from it is forgotten with it. */
  readonly #pods = new Map<string, Map<string, string>>();

  /**
   * The entries of a read older than what was seen of them; when there are none, the read is recorded
   * as seen. `pods`: each pod's name and resourceVersion.
   */
  check(
    key: string,
    podset: SeenPodSet | undefined,
    pods: readonly { name: string; rv: string | undefined }[],
  ): Replayed[] {
    const refused: Replayed[] = [];
    const seen = this.#podsets.get(key);
    if (podset !== undefined && seen !== undefined) {
      const sameObject = podset.uid !== undefined && podset.uid === seen.uid;
      const olderGeneration =
        sameObject &&
        podset.generation !== undefined &&
        seen.generation !== undefined &&
        podset.generation < seen.generation;
      if (older(podset.rv, seen.rv) || olderGeneration) refused.push({ kind: 'podset', field: '@ps' });
    }
    const seenPods = this.#pods.get(key);
    for (const p of pods) {
      if (older(p.rv, seenPods?.get(p.name))) refused.push({ kind: 'pod', field: p.name });
    }
    if (refused.length > 0) return refused;
    if (podset !== undefined) this.saw(key, podset);
    const next = new Map<string, string>();
    for (const p of pods) if (p.rv !== undefined) next.set(p.name, p.rv);
    this.#pods.set(key, next);
    return refused;
  }

  /** A PodSet version this worker saw (its own write): older entries of it are refused from now on. */
  saw(key: string, podset: SeenPodSet): void {
    const seen = this.#podsets.get(key);
    if (seen !== undefined && older(podset.rv, seen.rv)) return;
    this.#podsets.set(key, podset);
  }

  /**
   * The key's PodSet is going (its finalizer is about to go): its pods are forgotten; its version is kept
   * (one small entry per key), so that its entry from before the deletion cannot be replayed to bring it back.
   */
  forget(key: string): void {
    this.#pods.delete(key);
  }
}
