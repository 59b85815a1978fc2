// Structural-schema validation of custom resources, as kube-apiserver's apiextensions does it
// (kube-openapi's validator, converted to field errors); defaulting.ts and pruning.ts do the rest. Messages
// follow kube-openapi's wording (`spec.replicas in body should be greater than or equal to 0`) wrapped the
// way apimachinery's field.Error renders a cause (`Invalid value: -1: <detail>`).
import {
  duplicate,
  goFloat,
  goNumber,
  goQuote,
  invalid,
  notSupported,
  required,
  tooLong,
  tooMany,
  typeInvalid,
} from '../apimachinery/field-errors.ts';
import type { FieldCause, Json, JsonObject, JSONSchemaProps } from '../apimachinery/types.ts';
import { compilePattern, formatCheckers } from './formats.ts';
import { isObject, deepEqual } from '../apimachinery/json.ts';

// The registry's validators import the field-error constructors from here.

export interface ValidateOptions {
  /** The value is a whole object (a CR, or an embedded resource): `metadata` is left to ObjectMeta rules. Default true. */
  root?: boolean;
  /** Path prefix for the causes, e.g. `spec.template` (default ''). */
  path?: string;
}

type Kind = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

function jsonKind(v: Json): Kind {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isInteger(v) ? 'integer' : 'number';
    case 'string':
      return 'string';
    default:
      return 'object';
  }
}

/** `a` + `b` → `a.b`; '' + `b` → `b`. */
export function childPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
export function indexPath(path: string, i: number): string {
  return `${path}[${i}]`;
}

// ---------------------------------------------------------------------------------------------
// Validation

/** The JSON types a schema accepts (int-or-string is `integer,string`, as kube-openapi joins them). */
/** The schema of property `key`, own properties only (a field named `constructor` is not Object's). */
export function propOf(s: JSONSchemaProps, key: string): JSONSchemaProps | undefined {
  return s.properties && Object.hasOwn(s.properties, key) ? s.properties[key] : undefined;
}

function schemaTypes(s: JSONSchemaProps): string[] {
  if (s['x-kubernetes-int-or-string']) return ['integer', 'string'];
  return s.type ? [s.type] : [];
}

function inBody(path: string): string {
  return `${path === '' ? '.' : path} in body`;
}

/** Every violation, with field paths like `spec.replicas` or `spec.template.spec.containers[0].name`. */
export function validateValue(
  value: Json,
  schema: JSONSchemaProps,
  options: ValidateOptions = {},
): FieldCause[] {
  const causes: FieldCause[] = [];
  validateNode(value, schema, options.path ?? '', options.root ?? true, causes);
  return causes;
}

function validateNode(v: Json, s: JSONSchemaProps, path: string, isRoot: boolean, out: FieldCause[]): void {
  const types = schemaTypes(s);
  const kind = jsonKind(v);
  if (!validateType(kind, types, s, path, out)) return;
  validateFormat(v, kind, types, s, path, out);
  if (typeof v === 'number') validateNumber(v, s, path, out);
  if (typeof v === 'string') validateString(v, s, path, out);

  // enum
  if (s.enum && s.enum.length > 0 && !s.enum.some((e) => deepEqual(e, v))) {
    const supported = s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
    out.push(notSupported(path, v, supported));
  }

  // multipleOf and the value-validation combinators (structural schemas may use them, without types)
  const x = s as SchemaExtras;
  if (typeof v === 'number' && typeof x.multipleOf === 'number' && x.multipleOf > 0) {
    const q = v / x.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) {
      out.push(invalid(path, v, `${inBody(path)} should be a multiple of ${goNumber(x.multipleOf)}`));
    }
  }
  validateCombinators(v, x, path, out);

  if (Array.isArray(v)) validateArray(v, s, path, out);
  else if (isObject(v)) validateObject(v, s, path, isRoot, out);
}

/** The type (nullable, integer vs number, int-or-string); false when the value has the wrong one. */
function validateType(
  kind: Kind,
  types: string[],
  s: JSONSchemaProps,
  path: string,
  out: FieldCause[],
): boolean {
  if (kind === 'null') {
    if (types.length > 0 && !s.nullable) {
      out.push(typeInvalid(path, 'null', `${inBody(path)} must be of type ${types.join(',')}: "null"`));
    }
    return false;
  }
  if (types.length > 0) {
    const ok = types.includes(kind) || (kind === 'integer' && types.includes('number'));
    if (!ok) {
      out.push(
        typeInvalid(path, kind, `${inBody(path)} must be of type ${types.join(',')}: ${goQuote(kind)}`),
      );
      return false;
    }
  }
  return true;
}

/** The integer's range (int32, int64) and a string's `format`. */
function validateFormat(
  v: Json,
  kind: Kind,
  types: string[],
  s: JSONSchemaProps,
  path: string,
  out: FieldCause[],
): void {
  if (typeof v === 'number' && kind === 'integer' && types.includes('integer')) {
    const [lo, hi] = s.format === 'int32' ? [-(2 ** 31), 2 ** 31 - 1] : [-(2 ** 63), 2 ** 63];
    if (v < lo || (s.format === 'int32' ? v > hi : v >= hi)) {
      const fmt =
        s.format === 'int32' || s.format === 'int64' ? ` with format ${s.format}` : ' (default format)';
      out.push(invalid(path, '', `Checked value must be of type integer${fmt} in ${path}`));
    }
  }
  if (typeof v === 'string' && s.format) {
    const check = Object.hasOwn(formatCheckers, s.format) ? formatCheckers[s.format] : undefined;
    if (check && !check(v)) {
      out.push(typeInvalid(path, v, `${inBody(path)} must be of type ${s.format}: ${goQuote(v)}`));
    }
  }
}

function validateNumber(v: number, s: JSONSchemaProps, path: string, out: FieldCause[]): void {
  const fmtLimit = (n: number) => (Number.isInteger(v) ? goNumber(Math.trunc(n)) : goFloat(n));
  if (s.maximum !== undefined) {
    const bad = s.exclusiveMaximum ? v >= s.maximum : v > s.maximum;
    if (bad) {
      const rel = s.exclusiveMaximum ? 'less than' : 'less than or equal to';
      out.push(invalid(path, v, `${inBody(path)} should be ${rel} ${fmtLimit(s.maximum)}`));
    }
  }
  if (s.minimum !== undefined) {
    const bad = s.exclusiveMinimum ? v <= s.minimum : v < s.minimum;
    if (bad) {
      const rel = s.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
      out.push(invalid(path, v, `${inBody(path)} should be ${rel} ${fmtLimit(s.minimum)}`));
    }
  }
}

function validateString(v: string, s: JSONSchemaProps, path: string, out: FieldCause[]): void {
  const len = [...v].length;
  if (s.maxLength !== undefined && len > s.maxLength) out.push(tooLong(path, s.maxLength));
  if (s.minLength !== undefined && len < s.minLength) {
    out.push(invalid(path, v, `${inBody(path)} should be at least ${s.minLength} chars long`));
  }
  if (s.pattern !== undefined) {
    const re = compilePattern(s.pattern);
    if (re && !re.test(v)) out.push(invalid(path, v, `${inBody(path)} should match '${s.pattern}'`));
  }
}

function validateArray(v: Json[], s: JSONSchemaProps, path: string, out: FieldCause[]): void {
  if (s.maxItems !== undefined && v.length > s.maxItems) out.push(tooMany(path, v.length, s.maxItems));
  if (s.minItems !== undefined && v.length < s.minItems) {
    out.push(invalid(path, v.length, `${inBody(path)} should have at least ${s.minItems} items`));
  }
  if (s.items) {
    v.forEach((item, i) => validateNode(item, s.items as JSONSchemaProps, indexPath(path, i), false, out));
  }
  validateListType(v, s, path, out);
}

/**
 * An object's property counts, required properties and each property by its schema (or
 * additionalProperties). At a resource root (the object, or an embedded resource) `metadata` is
 * ObjectMeta's, checked by validateMetadata.
 */
function validateObject(
  v: JsonObject,
  s: JSONSchemaProps,
  path: string,
  isRoot: boolean,
  out: FieldCause[],
): void {
  const n = Object.keys(v).length;
  if (s.maxProperties !== undefined && n > s.maxProperties) out.push(tooMany(path, n, s.maxProperties));
  if (s.minProperties !== undefined && n < s.minProperties) {
    out.push(invalid(path, n, `${inBody(path)} should have at least ${s.minProperties} properties`));
  }
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (embedded) validateEmbeddedResource(v, path, out);
  const resourceRoot = isRoot || embedded;
  for (const key of s.required ?? []) {
    if (resourceRoot && key === 'metadata') continue;
    if (!Object.hasOwn(v, key)) out.push(required(childPath(path, key)));
  }
  for (const [key, child] of Object.entries(v)) {
    const p = childPath(path, key);
    if (resourceRoot && key === 'metadata') {
      if (isObject(child)) validateMetadata(child, s.properties?.metadata, p, embedded, out);
      else
        out.push(
          typeInvalid(p, jsonKind(child), `${inBody(p)} must be of type object: ${goQuote(jsonKind(child))}`),
        );
      continue;
    }
    if (resourceRoot && (key === 'apiVersion' || key === 'kind') && embedded) continue;
    const prop = propOf(s, key);
    if (prop) validateNode(child, prop, p, false, out);
    else if (isObject(s.additionalProperties as Json)) {
      validateNode(child, s.additionalProperties as JSONSchemaProps, p, false, out);
    }
  }
}

/** Keywords of JSONSchemaProps the shared type leaves out but real CRDs use. */
interface SchemaExtras extends JSONSchemaProps {
  multipleOf?: number;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
}

/** allOf / anyOf / oneOf / not, worded as kube-openapi's validator (the failing branches' causes follow). */
function validateCombinators(v: Json, s: SchemaExtras, path: string, out: FieldCause[]): void {
  const run = (sub: JSONSchemaProps) => {
    const causes: FieldCause[] = [];
    validateNode(v, sub, path, false, causes);
    return causes;
  };
  const quoted = goQuote(path);
  if (Array.isArray(s.allOf) && s.allOf.length) {
    const results = s.allOf.map(run);
    const passed = results.filter((r) => r.length === 0).length;
    for (const r of results) out.push(...r);
    if (passed !== s.allOf.length) {
      const none = passed === 0 ? '. None validated' : '';
      out.push(invalid(path, '', `${quoted} must validate all the schemas (allOf)${none}`));
    }
  }
  if (Array.isArray(s.anyOf) && s.anyOf.length) {
    const results = s.anyOf.map(run);
    if (!results.some((r) => r.length === 0)) {
      out.push(invalid(path, '', `${quoted} must validate at least one schema (anyOf)`));
      const best = results.reduce((a, b) => (b.length < a.length ? b : a));
      out.push(...best);
    }
  }
  if (Array.isArray(s.oneOf) && s.oneOf.length) {
    const results = s.oneOf.map(run);
    const passed = results.filter((r) => r.length === 0).length;
    if (passed === 0) {
      out.push(
        invalid(path, '', `${quoted} must validate one and only one schema (oneOf). Found none valid`),
      );
      const best = results.reduce((a, b) => (b.length < a.length ? b : a));
      out.push(...best);
    } else if (passed > 1) {
      out.push(
        invalid(
          path,
          '',
          `${quoted} must validate one and only one schema (oneOf). Found ${passed} valid alternatives`,
        ),
      );
    }
  }
  if (s.not && typeof s.not === 'object' && run(s.not).length === 0) {
    out.push(invalid(path, '', `${quoted} must not validate the schema (not)`));
  }
}

function validateListType(v: Json[], s: JSONSchemaProps, path: string, out: FieldCause[]): void {
  const lt = s['x-kubernetes-list-type'];
  if (lt === 'set') {
    const seen: Json[] = [];
    v.forEach((item, i) => {
      if (seen.some((x) => deepEqual(x, item))) out.push(duplicate(indexPath(path, i), item));
      else seen.push(item);
    });
  } else if (lt === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const seen = new Set<string>();
    v.forEach((item, i) => {
      if (!isObject(item)) return;
      const k: JsonObject = {};
      for (const key of keys) if (Object.hasOwn(item, key)) k[key] = item[key] as Json;
      const id = JSON.stringify(keys.map((key) => k[key] ?? null));
      if (seen.has(id)) out.push(duplicate(indexPath(path, i), k));
      else seen.add(id);
    });
  }
}

const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** apiextensions' validateEmbeddedResource: apiVersion and kind must be there and well formed. */
function validateEmbeddedResource(v: JsonObject, path: string, out: FieldCause[]): void {
  if (!Object.hasOwn(v, 'apiVersion')) out.push(required(childPath(path, 'apiVersion'), 'must not be empty'));
  if (!Object.hasOwn(v, 'kind')) out.push(required(childPath(path, 'kind'), 'must not be empty'));
  const apiVersion = v.apiVersion;
  if (apiVersion !== undefined) {
    const p = childPath(path, 'apiVersion');
    if (typeof apiVersion !== 'string') out.push(invalid(p, apiVersion, 'must be a string'));
    else if (apiVersion === '') out.push(invalid(p, apiVersion, 'must not be empty'));
    else if (apiVersion.split('/').length > 2 || apiVersion.startsWith('/') || apiVersion.endsWith('/')) {
      out.push(invalid(p, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    }
  }
  const kind = v.kind;
  if (kind !== undefined) {
    const p = childPath(path, 'kind');
    if (typeof kind !== 'string') out.push(invalid(p, kind, 'must be a string'));
    else if (kind === '') out.push(invalid(p, kind, 'must not be empty'));
    else if (kind.length > 63 || !DNS1035.test(kind.toLowerCase())) {
      out.push(
        invalid(
          p,
          kind,
          "may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        ),
      );
    }
  }
}

/**
 * metadata of a resource root: the server validates ObjectMeta itself; the schema may only constrain name and
 * generateName (as string schemas). For an embedded resource we also check the name's shape.
 */
function validateMetadata(
  meta: JsonObject,
  metaSchema: JSONSchemaProps | undefined,
  path: string,
  embedded: boolean,
  out: FieldCause[],
): void {
  for (const key of ['name', 'generateName'] as const) {
    const val = meta[key];
    if (val === undefined) continue;
    const p = childPath(path, key);
    if (typeof val !== 'string') {
      out.push(
        typeInvalid(p, jsonKind(val), `${inBody(p)} must be of type string: ${goQuote(jsonKind(val))}`),
      );
      continue;
    }
    const sub = metaSchema ? propOf(metaSchema, key) : undefined;
    if (sub) validateNode(val, sub, p, false, out);
    if (embedded && key === 'name' && val !== '' && (val.length > 253 || !DNS1123_SUBDOMAIN.test(val))) {
      out.push(
        invalid(
          p,
          val,
          "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
      );
    }
  }
  for (const key of ['labels', 'annotations'] as const) {
    const val = meta[key];
    if (val === undefined || val === null) continue;
    const p = childPath(path, key);
    if (!isObject(val)) {
      out.push(
        typeInvalid(p, jsonKind(val), `${inBody(p)} must be of type object: ${goQuote(jsonKind(val))}`),
      );
      continue;
    }
    for (const [k, x] of Object.entries(val)) {
      if (typeof x !== 'string') {
        const q = childPath(p, k);
        out.push(typeInvalid(q, jsonKind(x), `${inBody(q)} must be of type string: ${goQuote(jsonKind(x))}`));
      }
    }
  }
}

/** ObjectMeta's fields: what survives in the metadata of an embedded resource. */
export const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);
