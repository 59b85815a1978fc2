// What a write's object goes through before the kind's own rules: unknown metadata fields are dropped; a
// schema (custom resources) prunes, defaults and validates; a built-in's unknown fields are reported. Unknown
// and repeated fields are refused (fieldValidation=Strict), warned about (Warn, the default) or ignored.
import { OBJECT_META_FIELDS } from '../apiextensions/structural.ts';
import {
  applyDefaultsToOwnCopy,
  pruneUnknownFields,
  validateAgainstSchema,
} from '../apiextensions/schema.ts';
import { unknownBuiltinFields } from '../apimachinery/fieldcheck.ts';
import { invalidPatch } from '../apimachinery/type-check.ts';
import {
  ApiError,
  type Json,
  type JSONSchemaProps,
  type KubeObject,
  type ObjectMeta,
  type ResourceType,
} from '../apimachinery/types.ts';
import { invalid } from './rest/errors.ts';
import { scaleCauses } from './scale-validation.ts';
import type { WriteOptions } from './rest/write-options.ts';

/** The object without the metadata fields ObjectMeta has not, and their paths. */
function pruneMetadata(obj: KubeObject): { out: KubeObject; unknown: string[] } {
  const unknown: string[] = [];
  for (const k of Object.keys(obj.metadata)) if (!OBJECT_META_FIELDS.has(k)) unknown.push(`metadata.${k}`);
  if (!unknown.length) return { out: obj, unknown };
  const meta: Record<string, unknown> = { ...obj.metadata };
  for (const u of unknown) delete meta[u.slice('metadata.'.length)];
  return { out: { ...obj, metadata: meta as ObjectMeta }, unknown };
}

/** Pruning, defaulting and validation by the resource's structural schema (`old`: what an update replaces). */
function bySchema(
  t: ResourceType,
  schema: JSONSchemaProps,
  obj: KubeObject,
  opts: WriteOptions,
  name: string,
  unknown: string[],
  old: KubeObject | undefined,
): KubeObject {
  const pruned = pruneUnknownFields(obj as unknown as Json, schema);
  unknown.push(...pruned.unknownFields.filter((f) => !f.startsWith('metadata.')));
  const v = pruned.value as unknown as KubeObject;
  // Pruning made the copy (the root's metadata, left alone by both, is the caller's): default it in place.
  const defaulted = applyDefaultsToOwnCopy(
    { ...v, apiVersion: obj.apiVersion, kind: obj.kind, metadata: obj.metadata } as unknown as Json,
    schema,
  ) as unknown as KubeObject;
  const out = { ...defaulted, apiVersion: obj.apiVersion, kind: obj.kind, metadata: obj.metadata };
  const causes = validateAgainstSchema(out as unknown as Json, schema, {
    oldValue: old as unknown as Json | undefined,
    warnings: opts.warnings,
  });
  if (t.subresources.scale) causes.push(...scaleCauses(out, t.subresources.scale));
  if (causes.length) throw invalid(t, name, causes);
  return out;
}

/** Unknown and repeated fields: a 400 in Strict, warnings in Warn, nothing in Ignore. */
function reportUnknown(t: ResourceType, unknown: string[], opts: WriteOptions): void {
  const problems = unknown.map((f) => `unknown field "${f}"`);
  for (const f of opts.duplicateFields ?? []) problems.push(`duplicate field "${f}"`);
  if (!problems.length) return;
  const mode = opts.fieldValidation ?? 'Warn';
  if (mode === 'Strict') {
    const list = problems.join(', ');
    if (opts.patchShown) throw invalidPatch(opts.patchShown(), `strict decoding error: ${list}`);
    throw new ApiError(
      400,
      'BadRequest',
      `${t.kind} in version "${t.version}" cannot be handled as a ${t.kind}: strict decoding error: ${list}`,
    );
  }
  if (mode === 'Warn') opts.warnings?.push(...problems);
}

/** Metadata pruning, then for a schema: pruning, defaulting and validation (`old`: the object an update replaces). */
export function validateFields(
  t: ResourceType,
  isCrd: boolean,
  obj: KubeObject,
  opts: WriteOptions,
  name: string,
  old?: KubeObject,
): KubeObject {
  const { out: meta, unknown } = pruneMetadata(obj);
  let out = meta;
  if (t.schema) {
    out = bySchema(t, t.schema, out, opts, name, unknown, old);
  } else if (opts.fieldValidation !== 'Ignore' && !isCrd) {
    // Built-in kinds: unknown fields are reported (400 in Strict, a warning in Warn) but kept, so that a
    // field this simulator doesn't know can never be lost.
    unknown.push(...unknownBuiltinFields(t.group, t.kind, out));
  }
  reportUnknown(t, unknown, opts);
  return out;
}
