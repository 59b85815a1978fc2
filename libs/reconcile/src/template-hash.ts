// The podset.io/template-hash of a PodSet's template: which template a pod was created from. Computed from
// the template in effect, in a canonical form, so that what the API server stores and what the user
// wrote hash alike: object keys in any order, the default template given or left out, restartPolicy
// Always written or left to its default, empty label and annotation maps present or not.
import { createHash } from 'node:crypto';
import { isDeepFrozen } from './deep-freeze.ts';
import { effectiveTemplate } from './pod-template.ts';
import type { PodSet, PodTemplateSpec } from './types.ts';

/** Characters of the hex SHA-256 kept: 40 bits, so two templates of one PodSet collide at 2^-40. */
const HASH_LENGTH = 10;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** JSON with sorted keys; undefined-valued keys dropped. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isPlainObject(v)) {
    const keys = Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v instanceof Date ? v.toISOString() : v);
}

const isEmptyMap = (v: unknown): boolean => isPlainObject(v) && Object.keys(v).length === 0;

/** The template with what defaulting may add or leave out removed. */
export function normalizedTemplate(template: PodTemplateSpec): PodTemplateSpec {
  const { metadata, spec } = structuredClone(template);
  // spec is required by the schema; a template without one (rejected by specProblem) still hashes.
  const { restartPolicy, ...restOfSpec } = spec ?? {};
  const meta = { ...metadata };
  if (meta.labels === undefined || isEmptyMap(meta.labels)) delete meta.labels;
  if (meta.annotations === undefined || isEmptyMap(meta.annotations)) delete meta.annotations;
  return {
    ...(Object.keys(meta).length > 0 ? { metadata: meta } : {}),
    spec:
      restartPolicy === undefined || restartPolicy === 'Always'
        ? restOfSpec
        : { ...restOfSpec, restartPolicy },
  } as PodTemplateSpec;
}

/** The hash of a template: 10 hex characters of the SHA-256 of its canonical JSON. */
export function hashTemplate(template: PodTemplateSpec): string {
  // A pass hashes its PodSet's template several times (revision check, marks, plan), and the projection
  // hands every pass of an unchanged PodSet the same deep-frozen object: such an object cannot change,
  // so its hash is remembered by the object itself, without even its text.
  const frozen = frozenHashes.get(template);
  if (frozen !== undefined) return frozen;
  const hash = hashByText(template);
  if (isDeepFrozen(template)) frozenHashes.set(template, hash);
  return hash;
}

function hashByText(template: PodTemplateSpec): string {
  // Every pass of a PodSet hashes the same template again: remembered by its JSON text, the normalizing,
  // sorting and hashing is done once per template. (Templates come as JSON, from the API or the
  // projection: equal text, equal template.)
  const text = JSON.stringify(template);
  const known = hashes.get(text);
  if (known !== undefined) return known;
  const hash = createHash('sha256')
    .update(canonicalJson(normalizedTemplate(template)))
    .digest('hex')
    .slice(0, HASH_LENGTH);
  if (hashes.size >= MAX_REMEMBERED) hashes.delete(hashes.keys().next().value!);
  hashes.set(text, hash);
  return hash;
}

/** Templates whose hash is remembered, at most (the oldest goes first): a few per PodSet is plenty. */
const MAX_REMEMBERED = 4096;
const hashes = new Map<string, string>();

/** Hashes of deep-frozen templates, by the object: gone with it. */
const frozenHashes = new WeakMap<object, string>();

/** How many template hashes are remembered (tests). */
export function rememberedTemplateHashes(): number {
  return hashes.size;
}

/** The hash of the PodSet's template in effect (spec.template, or the default). */
export function templateHash(podset: PodSet): string {
  return hashTemplate(effectiveTemplate(podset));
}
