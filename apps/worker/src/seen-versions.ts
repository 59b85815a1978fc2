// What this worker already planned from, per key: the newest PodSet and pod versions its projection
// reads showed it and its own PodSet writes. The projection only ever moves forward (a fold never
// stores an older resourceVersion over a newer one), so an entry older than what was seen of it is a
// replay — an old entry written back into Redis with its valid tag — and is refused: planning from it
// could roll a PodSet back to an older template or count a pod as it was before.
// What it remembers is bounded: only versions of reads it accepted (a refused entry never raises them),
// replaced by the API's own versions whenever a refusal sends the key to the API (so an entry that was
// accepted with a resourceVersion the API never reached, say one tagged by a stolen key, cannot keep the
// key on API reads for good), and for at most `maxKeys` keys, the least recently used forgotten first
// (a forgotten key loses only its replay check: what it acts on is read from the API anyway).
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

/** Keys remembered at most by default: ~200 bytes each, some 20 MB at most. */
export const DEFAULT_MAX_SEEN_KEYS = 100_000;

export class SeenVersions {
  readonly #podsets = new Map<string, SeenPodSet>();
  /** Per key, the pods of its last accepted read: a pod gone from it is forgotten with it. */
  readonly #pods = new Map<string, Map<string, string>>();
  readonly #maxKeys: number;

  constructor(maxKeys = DEFAULT_MAX_SEEN_KEYS) {
    this.#maxKeys = maxKeys;
  }

  /** How many keys are remembered (for the tests of the bound). */
  get size(): number {
    return this.#podsets.size;
  }

  /** The key becomes the most recently used; past `maxKeys`, the least recently used is forgotten. */
  #touch(key: string, podset: SeenPodSet): void {
    this.#podsets.delete(key);
    this.#podsets.set(key, podset);
    while (this.#podsets.size > this.#maxKeys) {
      const oldest = this.#podsets.keys().next().value as string;
      this.#podsets.delete(oldest);
      this.#pods.delete(oldest);
    }
  }

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
    this.#setPods(key, pods);
    return refused;
  }

  #setPods(key: string, pods: readonly { name: string; rv: string | undefined }[]): void {
    const next = new Map<string, string>();
    for (const p of pods) if (p.rv !== undefined) next.set(p.name, p.rv);
    if (this.#podsets.has(key)) this.#pods.set(key, next);
  }

  /**
   * The API's versions of the key, read because a projected entry was refused: they replace what was
   * seen, higher or not (the API is the truth; a version above it was never the API's). `podset`
   * undefined: the API has no such PodSet; the key is forgotten.
   */
  fromApi(key: string, podset: SeenPodSet | undefined): void {
    this.#pods.delete(key);
    if (podset === undefined) this.#podsets.delete(key);
    else this.#touch(key, podset);
  }

  /** The API's pods of the key (after `fromApi`): they replace the pods seen. */
  podsFromApi(key: string, pods: readonly { name: string; rv: string | undefined }[]): void {
    this.#setPods(key, pods);
  }

  /** A PodSet version this worker saw (its own write): older entries of it are refused from now on. */
  saw(key: string, podset: SeenPodSet): void {
    const seen = this.#podsets.get(key);
    if (seen !== undefined && older(podset.rv, seen.rv)) return;
    this.#touch(key, podset);
  }

  /**
   * The key's PodSet is going (its finalizer is about to go): its pods are forgotten; its version is kept
   * (one small entry per key), so that its entry from before the deletion cannot be replayed to bring it back.
   */
  forget(key: string): void {
    this.#pods.delete(key);
  }
}
