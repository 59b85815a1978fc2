// Structural schemas of custom resources: validation (structural.ts), defaulting, pruning, CEL validation
// rules (cel-rules.ts) and the CRD object itself (crd.ts). This module is the entry point the store and routes use.
import type { FieldCause, Json, JSONSchemaProps, KubeObject, ResourceType } from '../apimachinery/types.ts';
import { validateValue, type ValidateOptions } from './structural.ts';
import { defaultOwnCopy, defaultValue } from './defaulting.ts';
import { pruneValue } from './pruning.ts';
import { blocksRules, hasValidationRules, rulesNotChecked, validateRules } from './cel-rules.ts';
import { applyCrdDefaults, crdResourceTypes as crdTypes, validateCrd as validateCrdObject } from './crd.ts';

export { applyCrdDefaults, CRD_VERBS } from './crd.ts';
export { OBJECT_META_FIELDS, type ValidateOptions } from './structural.ts';

export interface SchemaValidateOptions extends ValidateOptions {
  /**
   * On update: the object before the write. Transition rules (`oldSelf`) need it, and a failing rule whose
   * value it shows unchanged is ratcheted (a warning, not an error).
   */
  oldValue?: Json | undefined;
  /** Receives the ratcheted failures, for the `Warning` header. */
  warnings?: string[] | undefined;
}

/**
 * Every violation, with field paths like `spec.replicas` or `spec.template.spec.containers[0].name`, and
 * messages as kube-apiserver words them (`Invalid value: -1: spec.replicas in body should be greater than or
 * equal to 0`). `value` is the whole object by default (its `metadata` is left to ObjectMeta validation).
 * Then, as the API server does, the x-kubernetes-validations rules, unless a blocking cause (wrong type,
 * missing field, enum, too long or too many) stops them: that adds the cause saying some were not checked.
 */
export function validateAgainstSchema(
  value: Json,
  schema: JSONSchemaProps,
  options: SchemaValidateOptions = {},
): FieldCause[] {
  const causes = validateValue(value, schema, options);
  if (!hasValidationRules(schema)) return causes;
  if (blocksRules(causes)) return [...causes, rulesNotChecked()];
  const root = options.root ?? true;
  const oldValue =
    options.oldValue === undefined ? undefined : defaultValue(options.oldValue, schema, { root });
  causes.push(
    ...validateRules(value, schema, {
      oldValue,
      root,
      path: options.path ?? '',
      warnings: options.warnings,
    }),
  );
  return causes;
}

/** Returns a copy with defaults applied (as the API server does on create/update and on read). */
export function applyDefaults(value: Json, schema: JSONSchemaProps, options?: { root?: boolean }): Json {
  return defaultValue(value, schema, options);
}

/** applyDefaults on a value the caller owns (its own copy, shared with nobody): in place, no copy. */
export function applyDefaultsToOwnCopy(
  value: Json,
  schema: JSONSchemaProps,
  options?: { root?: boolean },
): Json {
  return defaultOwnCopy(value, schema, options);
}

/**
 * Returns a copy without fields the schema doesn't know, and their paths (for fieldValidation Strict/Warn):
 * `spec.foo`, `spec.template.spec.containers[0].foo`, sorted — the server reports them as `unknown field "spec.foo"`.
 */
export function pruneUnknownFields(
  value: Json,
  schema: JSONSchemaProps,
  options?: { root?: boolean },
): { value: Json; unknownFields: string[] } {
  return pruneValue(value, schema, options);
}

/** Validates a CustomResourceDefinition object itself (names, versions, exactly one storage version, structural schemas). */
export function validateCrd(crd: KubeObject): FieldCause[] {
  return validateCrdObject(applyCrdDefaults(crd));
}

/** One ResourceType per served version of a valid CRD. */
export function crdResourceTypes(crd: KubeObject): ResourceType[] {
  return crdTypes(crd);
}
