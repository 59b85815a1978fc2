// Integrity tags of projected entries. Whoever can write to Redis could otherwise hand the worker a
// PodSet (or pod) to plan from that the API never had: a forged template, a deletionTimestamp, pods of
// another PodSet. So every entry the watcher writes carries an
// HMAC-SHA256 under a key that only the watcher and the workers hold, over what the worker plans from:
// the entry's kind, its PodSet key (namespace/name), its field (the pod's name; '@ps'), its
// resourceVersion and its stored payload (which holds the uid, generation, spec, deletionTimestamp, ...).
// The epoch is left out on purpose: the fold scripts re-stamp it in Redis, and it only orders relists.
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

/** 128 bits of the HMAC (RFC 2104 allows truncation to half the hash), base64url: 22 characters. */
const TAG_BYTES = 16;

/** The shortest key accepted: 32 characters (a 24-byte random key in base64 is 32). */
export const MIN_KEY_LENGTH = 32;

export interface TagKeys {
  /** Tags are made with this key and checked against it. */
  current: string;
  /** During a key rotation: tags made with the key before are still accepted. */
  previous?: string | undefined;
}

/** What one entry's tag is made over (see the header). */
export interface TaggedEntry {
  kind: 'pod' | 'podset';
  key: string;
  field: string;
  rv: string;
  payload: string;
}

function mac(secret: KeyObject, e: TaggedEntry): Buffer {
  // NUL separates the parts: none of kind, key, name or resourceVersion holds one, and the payload is last.
  return createHmac('sha256', secret)
    .update(`${e.kind}\0${e.key}\0${e.field}\0${e.rv}\0`)
    .update(e.payload)
    .digest()
    .subarray(0, TAG_BYTES);
}

export class EntryTags {
  // Imported once: an HMAC made with a string key imports it again for every tag (its UTF-8 bytes, the
  // same MAC), and the watcher tags every entry it folds, the workers check every entry that changed.
  readonly #current: KeyObject;
  readonly #previous: KeyObject | undefined;

  constructor(keys: TagKeys) {
    for (const [name, k] of [
      ['current', keys.current],
      ['previous', keys.previous],
    ] as const) {
      if (k !== undefined && k.length < MIN_KEY_LENGTH) {
        throw new Error(
          `the ${name} projection key is ${k.length} characters, at least ${MIN_KEY_LENGTH} needed`,
        );
      }
    }
    this.#current = createSecretKey(keys.current, 'utf8');
    this.#previous = keys.previous === undefined ? undefined : createSecretKey(keys.previous, 'utf8');
  }

  /** The entry's tag under the current key. */
  tag(e: TaggedEntry): string {
    return mac(this.#current, e).toString('base64url');
  }

  /** Whether `tag` is the entry's tag under the current key (or the previous one, during a rotation). */
  verify(e: TaggedEntry, tag: string): boolean {
    const given = Buffer.from(tag, 'base64url');
    if (given.length !== TAG_BYTES || given.toString('base64url') !== tag) return false;
    if (timingSafeEqual(given, mac(this.#current, e))) return true;
    return this.#previous !== undefined && timingSafeEqual(given, mac(this.#previous, e));
  }
}
