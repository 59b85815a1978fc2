// Structural-schema validation, defaulting and pruning for custom resources, as kube-apiserver's
// apiextensions does it (kube-openapi's validator, converted to field errors). Messages follow
// kube-openapi's wording (`spec.replicas in body should be greater than or equal to 0`) wrapped the
// way apimachinery's field.Error renders a cause (`Invalid value: -1: <detail>`).
import type { FieldCause, Json, JsonObject, JSONSchemaProps } from '../apimachinery/types.ts';

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

export function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `a` + `b` → `a.b`; '' + `b` → `b`. */
export function childPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
function indexPath(path: string, i: number): string {
  return `${path}[${i}]`;
}

// ---------------------------------------------------------------------------------------------
// Go-style formatting of bad values, as field.Error.ErrorBody prints them.

/** Go's `%v` for a float64: %g with the shortest digits, exponent form (e+06) below 1e-4 or from 1e6 on. */
export function goFloat(x: number): string {
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : x < 0 ? '-Inf' : 'NaN';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [mant = '0', expStr = '0'] = x.toExponential().split('e');
  const exp = Number(expStr);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const abs = Math.abs(exp);
    return `${mant}e${sign}${abs < 10 ? '0' : ''}${abs}`;
  }
  return String(x);
}

/** How a number appears in a message: integers as int64 would, others as float64. */
export function goNumber(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 2 ** 63) return BigInt(x).toString();
  return goFloat(x);
}

/** Go's `%q` of a string (close enough: JSON escaping is a subset of Go's quoting for common text). */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** Go's `%#v` of a decoded JSON value (map[string]interface {}{...}, []interface {}{...}). */
function goSharpV(v: Json): string {
  if (v === null) return '<nil>';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpV).join(', ')}}`;
  const keys = Object.keys(v).sort();
  return `map[string]interface {}{${keys.map((k) => `${goQuote(k)}:${goSharpV(v[k] as Json)}`).join(', ')}}`;
}

/** field.Error.ErrorBody's rendering of a bad value. */
export function badValue(v: Json): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  return goSharpV(v);
}

// Cause constructors, rendering exactly as apimachinery's field.* helpers do.
export function invalid(field: string, value: Json, detail: string): FieldCause {
  return {
    reason: 'FieldValueInvalid',
    field,
    message: `Invalid value: ${badValue(value)}${detail ? `: ${detail}` : ''}`,
  };
}
export function typeInvalid(field: string, value: Json, detail: string): FieldCause {
  return { reason: 'FieldValueTypeInvalid', field, message: `Invalid value: ${badValue(value)}: ${detail}` };
}
export function required(field: string, detail = ''): FieldCause {
  return { reason: 'FieldValueRequired', field, message: `Required value${detail ? `: ${detail}` : ''}` };
}
export function forbidden(field: string, detail = ''): FieldCause {
  return { reason: 'FieldValueForbidden', field, message: `Forbidden${detail ? `: ${detail}` : ''}` };
}
export function notSupported(field: string, value: Json, supported: string[]): FieldCause {
  const detail = supported.length ? `: supported values: ${supported.map(goQuote).join(', ')}` : '';
  return {
    reason: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${badValue(value)}${detail}`,
  };
}
export function duplicate(field: string, value: Json): FieldCause {
  return { reason: 'FieldValueDuplicate', field, message: `Duplicate value: ${badValue(value)}` };
}
function tooLong(field: string, max: number): FieldCause {
  return { reason: 'FieldValueTooLong', field, message: `Too long: may not be longer than ${max}` };
}
function tooMany(field: string, actual: number, max: number): FieldCause {
  // FieldValueTooMany is not in the shared reason union; kube-apiserver sends it as a reason string.
  return {
    reason: 'FieldValueTooMany' as FieldCause['reason'],
    field,
    message: `Too many: ${actual}: must have at most ${max} items`,
  };
}

// ---------------------------------------------------------------------------------------------
// String formats kube-openapi's default registry checks (the ones CRDs commonly use).

const formatCheckers: Record<string, (s: string) => boolean> = {
  'date-time': (s) =>
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s) &&
    !Number.isNaN(Date.parse(s.replace(' ', 'T'))),
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  byte: (s) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s),
  ipv4: (s) => /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(s),
  hostname: (s) =>
    s.length <= 255 &&
    /^[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*$/.test(s),
  email: (s) => /^[^\s@]+@[^\s@]+$/.test(s),
};

const POSIX_CLASSES: Record<string, string> = {
  alnum: 'a-zA-Z0-9',
  alpha: 'a-zA-Z',
  ascii: '\\x00-\\x7F',
  blank: ' \\t',
  digit: '0-9',
  lower: 'a-z',
  space: '\\s',
  upper: 'A-Z',
  word: '\\w',
  xdigit: '0-9A-Fa-f',
  punct: '!-\\/:-@\\[-`{-~',
};

/**
 * Go (RE2) pattern → JS RegExp: inline flags such as `^(?i)(a|b)$` become RegExp flags, `\A`/`\z` become
 * anchors, POSIX classes (`[[:alpha:]]`) are expanded. Undefined when JS cannot compile it.
 */
export function goRegExp(pattern: string): RegExp | undefined {
  let flags = '';
  let src = pattern.replace(/\(\?([imsU]+)\)/g, (_m, f: string) => {
    for (const c of f) if (c !== 'U' && !flags.includes(c)) flags += c;
    return '';
  });
  src = src.replace(/\\A/g, '^').replace(/\\z/g, '$');
  src = src.replace(/\[:(\^?)([a-z]+):\]/g, (m, neg: string, name: string) => {
    const cls = Object.hasOwn(POSIX_CLASSES, name) ? POSIX_CLASSES[name] : undefined;
    return cls === undefined || neg ? m : cls;
  });
  for (const f of [`${flags}u`, flags]) {
    try {
      return new RegExp(src, f);
    } catch {
      // try without the unicode flag (JS is stricter about escapes with it)
    }
  }
  return undefined;
}

const regexCache = new Map<string, RegExp | null>();
function compilePattern(pattern: string): RegExp | null {
  let re = regexCache.get(pattern);
  if (re !== undefined) return re;
  re = goRegExp(pattern) ?? null;
  regexCache.set(pattern, re);
  return re;
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

  // type (nullable, integer vs number, int-or-string)
  if (kind === 'null') {
    if (types.length > 0 && !s.nullable) {
      out.push(typeInvalid(path, 'null', `${inBody(path)} must be of type ${types.join(',')}: "null"`));
    }
    return;
  }
  if (types.length > 0) {
    const ok = types.includes(kind) || (kind === 'integer' && types.includes('number'));
    if (!ok) {
      out.push(
        typeInvalid(path, kind, `${inBody(path)} must be of type ${types.join(',')}: ${goQuote(kind)}`),
      );
      return;
    }
  }

  // formats
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

  // numbers
  if (typeof v === 'number') {
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

  // strings
  if (typeof v === 'string') {
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

  // arrays
  if (Array.isArray(v)) {
    if (s.maxItems !== undefined && v.length > s.maxItems) out.push(tooMany(path, v.length, s.maxItems));
    if (s.minItems !== undefined && v.length < s.minItems) {
      out.push(invalid(path, v.length, `${inBody(path)} should have at least ${s.minItems} items`));
    }
    if (s.items) {
      v.forEach((item, i) => validateNode(item, s.items as JSONSchemaProps, indexPath(path, i), false, out));
    }
    validateListType(v, s, path, out);
    return;
  }

  // objects
  if (isObject(v)) {
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
            typeInvalid(
              p,
              jsonKind(child),
              `${inBody(p)} must be of type object: ${goQuote(jsonKind(child))}`,
            ),
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

export function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (typeof a !== typeof b) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

function clone<T extends Json>(v: T): T {
  return structuredClone(v);
}

// ---------------------------------------------------------------------------------------------
// Defaulting

/**
 * Returns a copy with defaults applied, as the API server does on create/update/read: for every object that is
 * present, absent properties with a default get it (deep-copied), then defaulting recurses (also into the
 * defaults just set, into array items and additionalProperties). A null in a non-nullable property is replaced by
 * its default, or dropped when there is none (apiextensions v1 prunes such nulls before defaulting).
 * `metadata` of the resource root is left alone.
 */
export function defaultValue(value: Json, schema: JSONSchemaProps, options: { root?: boolean } = {}): Json {
  const copy = clone(value);
  defaultNode(copy, schema, options.root ?? true);
  return copy;
}

function defaultNode(v: Json, s: JSONSchemaProps, isRoot: boolean): void {
  if (Array.isArray(v)) {
    if (s.items) for (const item of v) defaultNode(item, s.items, false);
    return;
  }
  if (!isObject(v)) return;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const resourceRoot = isRoot || embedded;
  for (const [key, prop] of Object.entries(s.properties ?? {})) {
    if (resourceRoot && key === 'metadata') continue;
    const cur = v[key];
    if (cur === null && !prop.nullable) {
      if (prop.default !== undefined) v[key] = clone(prop.default);
      else delete v[key];
    } else if (cur === undefined && prop.default !== undefined) {
      v[key] = clone(prop.default);
    }
  }
  const addl = isObject(s.additionalProperties as Json)
    ? (s.additionalProperties as JSONSchemaProps)
    : undefined;
  for (const [key, child] of Object.entries(v)) {
    if (resourceRoot && key === 'metadata') continue;
    const prop = propOf(s, key);
    if (prop) defaultNode(child, prop, false);
    else if (addl) {
      if (child === null && !addl.nullable && addl.default !== undefined) v[key] = clone(addl.default);
      defaultNode(v[key] as Json, addl, false);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Pruning

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

/**
 * Returns a copy without fields the schema doesn't know, and their paths (`spec.foo`,
 * `spec.containers[0].foo`), sorted, as kube-apiserver names them in `unknown field "spec.foo"`.
 * Honours x-kubernetes-preserve-unknown-fields (unknown fields kept, known ones still pruned inside) and
 * x-kubernetes-embedded-resource (apiVersion/kind/metadata kept; metadata pruned to ObjectMeta's fields).
 * apiVersion, kind and metadata of the root are never pruned: the server handles ObjectMeta.
 */
export function pruneValue(
  value: Json,
  schema: JSONSchemaProps,
  options: { root?: boolean } = {},
): { value: Json; unknownFields: string[] } {
  const copy = clone(value);
  const unknown: string[] = [];
  pruneNode(copy, schema, '', options.root ?? true, unknown);
  unknown.sort();
  return { value: copy, unknownFields: unknown };
}

function pruneNode(v: Json, s: JSONSchemaProps, path: string, isRoot: boolean, unknown: string[]): void {
  if (Array.isArray(v)) {
    if (s.items)
      v.forEach((item, i) => pruneNode(item, s.items as JSONSchemaProps, indexPath(path, i), false, unknown));
    else if (!s['x-kubernetes-preserve-unknown-fields']) {
      // An array without an items schema is not structural; keep it as is.
    }
    return;
  }
  if (!isObject(v)) return;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const addl = isObject(s.additionalProperties as Json)
    ? (s.additionalProperties as JSONSchemaProps)
    : undefined;
  const allowAny = s.additionalProperties === true;
  for (const key of Object.keys(v)) {
    const p = childPath(path, key);
    if (isRoot && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
    if (embedded && (key === 'apiVersion' || key === 'kind')) continue;
    if (embedded && key === 'metadata') {
      const meta = v[key];
      if (isObject(meta)) {
        for (const mk of Object.keys(meta)) {
          if (!OBJECT_META_FIELDS.has(mk)) {
            unknown.push(childPath(p, mk));
            delete meta[mk];
          }
        }
      }
      continue;
    }
    const prop = propOf(s, key);
    if (prop) pruneNode(v[key] as Json, prop, p, false, unknown);
    else if (addl) pruneNode(v[key] as Json, addl, p, false, unknown);
    else if (!preserve && !allowAny) {
      unknown.push(p);
      delete v[key];
    }
  }
}
