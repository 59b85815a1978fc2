// What the reader already checked and decoded: per PodSet key, the entries of its last read whose tags
// checked, each by field with its stored text (resourceVersion, tag, payload) and its decoded form. A
// reconcile reads every pod of its PodSet, and most of them are unchanged since the last read of the key;
// an entry whose text is the same, byte for byte, under the same key and field would check the same (the
// tag is a function of exactly that text and the key held in memory), so it is neither checked again nor
// decoded again. Any change of its text — a new version, a forged payload, another tag — is checked.
// The decoded forms are frozen: a reconcile cannot change what the next one is handed.
import { deepFreeze } from '@podset/reconcile';

/**
 * Entries remembered at most (about 1 KB each, decoded form included); beyond it, the keys read least
 * recently are forgotten first.
 */
const MAX_ENTRIES = 20_000;

interface Known<T> {
  /** The entry's text from its resourceVersion on (the epoch before it is not tagged, and may change). */
  text: string;
  value: T;
}

export class VerifiedEntries<T extends object> {
  readonly #byKey = new Map<string, Map<string, Known<T>>>();
  readonly #maxEntries: number;
  #entries = 0;

  constructor(maxEntries = MAX_ENTRIES) {
    this.#maxEntries = maxEntries;
  }

  /**
   * A read of `key`, fed each entry as it is checked: `lookup` answers the decoded form of an entry
   * already checked with this very text, `keep` records one just checked. `done` makes this read's
   * entries the key's (an entry the read did not find — a pod gone, a refused one — is forgotten).
   */
  read(key: string): {
    lookup(field: string, text: string): T | undefined;
    keep(field: string, text: string, value: T): T;
    done(): void;
  } {
    const last = this.#byKey.get(key);
    const next = new Map<string, Known<T>>();
    return {
      lookup(field, text) {
        const known = last?.get(field);
        if (known === undefined || known.text !== text) return undefined;
        next.set(field, known);
        return known.value;
      },
      keep(field, text, value) {
        const frozen = deepFreeze(value);
        next.set(field, { text, value: frozen });
        return frozen;
      },
      done: () => {
        this.forget(key); // re-inserted last: the most recently read
        this.#byKey.set(key, next);
        this.#entries += next.size;
        for (const [oldest, entries] of this.#byKey) {
          if (this.#entries <= this.#maxEntries || oldest === key) break;
          this.#byKey.delete(oldest);
          this.#entries -= entries.size;
        }
      },
    };
  }

  /** A deleted PodSet's entries. */
  forget(key: string): void {
    this.#entries -= this.#byKey.get(key)?.size ?? 0;
    this.#byKey.delete(key);
  }

  /** Entries remembered (tests). */
  get size(): number {
    return this.#entries;
  }
}
