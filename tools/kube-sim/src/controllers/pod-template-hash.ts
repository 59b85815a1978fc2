// The `pod-template-hash` of a Deployment's ReplicaSets, computed as controller.ComputeHash does: FNV-32a
// over the pod template, then, when the Deployment has a status.collisionCount, 8 more bytes (the count as
// a little-endian uint32, then 4 zero bytes); the decimal form of the 32-bit sum is then rendered with
// rand.SafeEncodeString's alphabet (no vowels, no 0/1/3, so no words). What differs: the real input is
// Go's spew printout of the typed PodTemplateSpec (every field, defaulted ones included), which a JSON
// store cannot reproduce; kube-sim hashes the template's JSON with sorted keys (nulls and empties
// dropped) instead. The hash is as stable and as template-sensitive, but not the value a real cluster
// would give the same manifest.
import type { Json } from '../apimachinery/types.ts';

const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * The template as Go would hold it: nulls, empty objects and empty lists dropped (a typed client sends
 * `creationTimestamp: null` and `resources: {}` for fields it never set, and the API machinery's semantic
 * equality holds nil and empty equal), so the same template from kubectl and from a manifest is one.
 */
export function pruneEmpty(value: Json | undefined): Json | undefined {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map((v) => pruneEmpty(v) ?? null);
    return items.length ? items : undefined;
  }
  if (typeof value !== 'object') return value;
  const out: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(value)) {
    const p = pruneEmpty(v);
    if (p !== undefined) out[k] = p;
  }
  return Object.keys(out).length ? out : undefined;
}

/** JSON with object keys sorted at every level, so equal templates hash equally. */
export function canonicalJson(value: Json | undefined): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value)
    .filter((k) => value[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
}

export function fnv32a(bytes: Uint8Array, hash = 0x811c9dc5): number {
  let h = hash;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** rand.SafeEncodeString: each character of `s` replaced by the alphabet letter at its code modulo 27. */
export function safeEncode(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += SAFE_ALPHABET[s.charCodeAt(i) % SAFE_ALPHABET.length];
  return out;
}

/** The pod-template-hash of `template` for a Deployment whose status.collisionCount is `collisionCount`. */
export function podTemplateHash(template: Json | undefined, collisionCount?: number): string {
  let h = fnv32a(new TextEncoder().encode(canonicalJson(pruneEmpty(template))));
  if (collisionCount !== undefined) {
    const extra = new Uint8Array(8);
    new DataView(extra.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv32a(extra, h);
  }
  return safeEncode(String(h));
}
