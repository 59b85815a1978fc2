// Name and label validation as the API server does it, returning field causes for a 422.
import { invalid } from './field-errors.ts';
import type { FieldCause, KubeObject } from './types.ts';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

export type NameRule = 'subdomain' | 'label' | 'path';

/** How a resource's names are validated (namespaces and services are DNS-1123 labels; RBAC names are path segments). */
export function nameRuleFor(resource: string): NameRule {
  if (resource === 'namespaces' || resource === 'services') return 'label';
  if (resource.endsWith('.rbac.authorization.k8s.io')) return 'path';
  return 'subdomain';
}

export function validateName(name: string, rule: NameRule, field = 'metadata.name'): FieldCause[] {
  if (rule === 'path') {
    if (name === '.' || name === '..') return [invalid(field, name, `may not be '${name}'`)];
    for (const c of ['/', '%']) if (name.includes(c)) return [invalid(field, name, `may not contain '${c}'`)];
    return [];
  }
  if (rule === 'label') {
    if (name.length > 63) return [invalid(field, name, 'must be no more than 63 characters')];
    return DNS1123_LABEL.test(name) ? [] : [invalid(field, name, LABEL_MSG)];
  }
  if (name.length > 253) return [invalid(field, name, 'must be no more than 253 characters')];
  return DNS1123_SUBDOMAIN.test(name) ? [] : [invalid(field, name, SUBDOMAIN_MSG)];
}

function validateQualifiedKey(key: string, field: string): FieldCause[] {
  const parts = key.split('/');
  let name = key;
  if (parts.length === 2) {
    const prefix = parts[0] as string;
    name = parts[1] as string;
    if (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) {
      return [invalid(field, key, 'prefix part ' + SUBDOMAIN_MSG)];
    }
  } else if (parts.length > 2) {
    return [invalid(field, key, "a qualified name must consist of alphanumeric characters, '-', '_' or '.'")];
  }
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME.test(name)) {
    return [
      invalid(
        field,
        key,
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character, and be at most 63 characters",
      ),
    ];
  }
  return [];
}

/** Labels, annotation keys, finalizer names. */
export function validateMetadata(obj: KubeObject): FieldCause[] {
  const causes: FieldCause[] = [];
  const meta = obj.metadata;
  for (const [k, v] of Object.entries(meta.labels ?? {})) {
    causes.push(...validateQualifiedKey(k, 'metadata.labels'));
    if (typeof v !== 'string') {
      causes.push({
        reason: 'FieldValueTypeInvalid',
        field: `metadata.labels`,
        message: 'label values must be strings',
      });
    } else if (v.length > 63 || !LABEL_VALUE.test(v)) {
      causes.push(
        invalid(
          'metadata.labels',
          v,
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character, and be at most 63 characters",
        ),
      );
    }
  }
  let annotationBytes = 0;
  for (const [k, v] of Object.entries(meta.annotations ?? {})) {
    causes.push(...validateQualifiedKey(k.toLowerCase(), 'metadata.annotations'));
    annotationBytes += Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
  }
  // All annotations together, keys and values: what a client-side `kubectl apply` of a large object (its
  // last-applied-configuration copy) runs into on a real server.
  if (annotationBytes > TOTAL_ANNOTATION_SIZE_LIMIT)
    causes.push({
      reason: 'FieldValueTooLong',
      field: 'metadata.annotations',
      message: `Too long: must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes`,
    });
  return causes;
}

/** The API server's limit on the bytes of an object's annotations (keys and values). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function randomSuffix(length = 5): string {
  let s = '';
  for (let i = 0; i < length; i++) s += SUFFIX_ALPHABET[Math.floor(Math.random() * SUFFIX_ALPHABET.length)];
  return s;
}
