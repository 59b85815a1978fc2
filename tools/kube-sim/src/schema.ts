// Structural schemas of custom resources: validation, defaulting, pruning (structural.ts) and the CRD
// object itself (crd.ts). This module is the entry point the store and routes use.
import type { FieldCause, Json, JSONSchemaProps, KubeObject, ResourceType } from './types.ts';
import { defaultValue, pruneValue, validateValue, type ValidateOptions } from './structural.ts';
import { applyCrdDefaults, crdResourceTypes as crdTypes, validateCrd as validateCrdObject } from './crd.ts';

export { applyCrdDefaults, CRD_VERBS } from './crd.ts';
export { OBJECT_META_FIELDS, type ValidateOptions } from './structural.ts';

/**
 * Every violation, with field paths like `spec.replicas` or `spec.template.spec.containers[0].name`, and
 * messages as kube-apiserver words them (`Invalid value: -1: spec.replicas in body should be greater than or
 * equal to 0`). `value` is the whole object by default (its `metadata` is left to ObjectMeta validation).
 */
export function validateAgainstSchema(
  value: Json,
  schema: JSONSchemaProps,
  options?: ValidateOptions,
): FieldCause[] {
  return validateValue(value, schema, options);
}

/** Returns a copy with defaults applied (as the API server does on create/update and on read). */
export function applyDefaults(value: Json, schema: JSONSchemaProps, options?: { root?: boolean }): Json {
  return defaultValue(value, schema, options);
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
