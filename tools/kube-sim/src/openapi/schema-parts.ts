// The pieces the schema data is written with: a typed field with its description, a $ref, a string map,
// an object left open, and the descriptions every kind repeats.
import type { JsonObject } from '../apimachinery/types.ts';
import { REF_V3 } from './names.ts';

export const s = (type: string, description: string, extra: JsonObject = {}): JsonObject => ({
  type,
  description,
  ...extra,
});
export const ref = (name: string, description?: string): JsonObject =>
  description === undefined ? { $ref: REF_V3 + name } : { allOf: [{ $ref: REF_V3 + name }], description };
export const stringMap = (description: string): JsonObject => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string', default: '' },
});

export const API_VERSION_DESC =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
export const KIND_DESC =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
export const METADATA_DESC =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

export function openObject(description: string): JsonObject {
  return { type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true };
}
