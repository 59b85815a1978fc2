// Decoding by type, as the API server decodes a built-in kind into its Go struct: a value of the wrong JSON
// type for its field (a boolean where a string belongs, a string where a list belongs, an object where a
// number belongs) is refused. The field types are those of the message descriptions protobuf decoding and
// unknown-field detection read (protobuf-schemas.ts). A write meets one of three decoders, each with its own
// wording: Go's JSON decoder (create, update, and the result of a merge or JSON patch), the unstructured
// converter (the result of a strategic merge patch), and structured-merge-diff's typed conversion (an apply).
import type { TypeView } from './type-view.ts';
import { fieldsByName, LEAF } from './fieldcheck.ts';
import type { Field } from './protobuf.ts';
import { KINDS } from './protobuf-schemas.ts';
import { parseQuantity, QUANTITY_FORMAT_ERROR } from './quantity.ts';
import { ApiError, type Json, type JSONSchemaProps } from './types.ts';

/** What a field holds, as its Go type decodes JSON. */
type Want =
  | { kind: 'scalar'; go: 'string' | 'bool' | 'int32' | 'int64' | 'float64' }
  | { kind: 'bytes' }
  | { kind: 'slice' | 'map' | 'struct'; go: string }
  /** Types with their own UnmarshalJSON: IntOrString, Quantity, Time and Duration (text). */
  | { kind: 'intstr' | 'quantity' | 'text' };

export interface TypeMismatch {
  /** JSON field names from the root, as Go's decoder names a field: no list indices, no map keys. */
  fields: readonly string[];
  /** The Go struct the last field belongs to. */
  struct: string;
  /** The path as structured-merge-diff prints it: `.spec.containers[name="c"].command[2]`. */
  typedPath: string;
  value: Json;
  want: Want;
}

/** Go's int64 fields among the API's integers (the rest are int32); only messages name the width. */
const INT64_FIELDS = new Set([
  'generation',
  'deletionGracePeriodSeconds',
  'activeDeadlineSeconds',
  'terminationGracePeriodSeconds',
  'runAsUser',
  'runAsGroup',
  'fsGroup',
  'supplementalGroups',
  'observedGeneration',
  'revision',
  'sizeBytes',
  'expirationSeconds',
  'startingDeadlineSeconds',
  'seconds',
  'gracePeriodSeconds',
]);

/** The meta/v1 messages, whose Go package is v1 whatever the kind's version. */
const META_MESSAGES = new Set([
  'ObjectMeta',
  'OwnerReference',
  'ManagedFieldsEntry',
  'LabelSelector',
  'LabelSelectorRequirement',
  'Condition',
]);

/** Message names that differ from their Go type's (two packages declare an Event). */
function goName(message: string): string {
  return message.startsWith('core') ? message.slice('core'.length) : message;
}

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function elementGo(f: Field, pkg: string): string {
  switch (f.type) {
    case 's':
      return 'string';
    case 'i':
      return INT64_FIELDS.has(f.name) ? 'int64' : 'int32';
    case 'b':
      return 'bool';
    case 'y':
      return '[]uint8';
    case 'd':
      return 'float64';
    case 'f':
      return 'float32';
    case 'time':
      return 'v1.Time';
    case 'microtime':
      return 'v1.MicroTime';
    case 'duration':
      return 'v1.Duration';
    case 'intstr':
      return 'intstr.IntOrString';
    case 'quantity':
      return 'resource.Quantity';
    case 'raw':
      return 'runtime.RawExtension';
    default:
      return `${META_MESSAGES.has(f.type) ? 'v1' : pkg}.${goName(f.type)}`;
  }
}

/** The element's own type (a list's item, a map's value, or the field itself). */
function elementWant(f: Field, pkg: string): Want | undefined {
  switch (f.type) {
    case 's':
    case 'b':
      return { kind: 'scalar', go: f.type === 's' ? 'string' : 'bool' };
    case 'i':
      return { kind: 'scalar', go: INT64_FIELDS.has(f.name) ? 'int64' : 'int32' };
    case 'd':
    case 'f':
      return { kind: 'scalar', go: 'float64' };
    case 'y':
      return { kind: 'bytes' };
    case 'time':
    case 'microtime':
    case 'duration':
      return { kind: 'text' };
    case 'intstr':
      return { kind: 'intstr' };
    case 'quantity':
      return { kind: 'quantity' };
    case 'raw':
    case 'any':
      return undefined;
    default:
      return { kind: 'struct', go: elementGo(f, pkg) };
  }
}

function fieldWant(f: Field, pkg: string): Want | undefined {
  if (f.repeated) return { kind: 'slice', go: `[]${elementGo(f, pkg)}` };
  if (f.map) {
    const go = f.type === 'quantity' ? `${pkg}.ResourceList` : `map[string]${elementGo(f, pkg)}`;
    return { kind: 'map', go };
  }
  return elementWant(f, pkg);
}

const INT32_MAX = 2 ** 31 - 1;

function fitsInt(v: number, go: string): boolean {
  if (!Number.isInteger(v)) return false;
  return go !== 'int32' || (v >= -INT32_MAX - 1 && v <= INT32_MAX);
}

function quantityError(v: Json): string | undefined {
  if (typeof v === 'number') return undefined;
  if (typeof v !== 'string') return QUANTITY_FORMAT_ERROR;
  try {
    parseQuantity(v.trim());
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : QUANTITY_FORMAT_ERROR;
  }
}

/** Whether `v` decodes into `want` (JSON null decodes into anything: the zero value). */
function fits(v: Json, want: Want): boolean {
  if (v === null) return true;
  switch (want.kind) {
    case 'scalar':
      if (want.go === 'string') return typeof v === 'string';
      if (want.go === 'bool') return typeof v === 'boolean';
      if (want.go === 'float64') return typeof v === 'number';
      return typeof v === 'number' && fitsInt(v, want.go);
    case 'bytes':
      return typeof v === 'string' || Array.isArray(v);
    case 'slice':
      return Array.isArray(v);
    case 'map':
    case 'struct':
      return isObject(v);
    case 'intstr':
      return typeof v === 'string' || (typeof v === 'number' && fitsInt(v, 'int32'));
    case 'quantity':
      return quantityError(v) === undefined;
    case 'text':
      return typeof v === 'string';
  }
}

/** How structured-merge-diff names a list item: by its keys, by its value (a set), or by its index. */
function itemPath(view: TypeView | undefined, item: Json, i: number): string {
  const lt = view?.list();
  if (lt?.type === 'set' && item !== null && typeof item !== 'object') return `[=${JSON.stringify(item)}]`;
  if (lt?.type === 'map' && isObject(item)) {
    const parts: string[] = [];
    for (const k of lt.keys) {
      const kv = item[k] ?? lt.defaults[k];
      if (kv === undefined) return `[${i}]`;
      parts.push(`${k}=${JSON.stringify(kv)}`);
    }
    return `[${parts.join(',')}]`;
  }
  return `[${i}]`;
}

interface Walk {
  pkg: string;
  out: TypeMismatch[];
  limit: number;
  /** When given, collects the typed paths of fields the kind does not declare (metadata aside). */
  undeclared?: string[];
}

/** A step from a value to one inside it: a struct's field, a list's item, or a map's key. */
type Step =
  | { kind: 'field'; name: string }
  | { kind: 'item'; value: Json; index: number; list: TypeView | undefined }
  | { kind: 'key'; name: string };

/** Where the walk is: a chain of steps, turned into paths only for a mismatch (most writes have none). */
interface At {
  parent: At | undefined;
  step: Step | undefined;
  /** The Go struct whose field was the last one stepped into. */
  struct: string;
  view: TypeView | undefined;
}

function stepsOf(at: At): Step[] {
  const steps: Step[] = [];
  for (let a: At | undefined = at; a; a = a.parent) if (a.step) steps.push(a.step);
  return steps.reverse();
}

function mismatch(at: At, value: Json, want: Want): TypeMismatch {
  const steps = stepsOf(at);
  const fields: string[] = [];
  let typedPath = '';
  for (const st of steps) {
    if (st.kind === 'field') fields.push(st.name);
    typedPath += st.kind === 'item' ? itemPath(st.list, st.value, st.index) : `.${st.name}`;
  }
  return { fields, struct: at.struct, typedPath, value, want };
}

function check(w: Walk, v: Json, want: Want | undefined, at: At): boolean {
  if (!want || w.out.length >= w.limit) return false;
  if (fits(v, want)) return true;
  w.out.push(mismatch(at, v, want));
  return false;
}

function walkValue(w: Walk, v: Json, f: Field, at: At): void {
  if (!check(w, v, fieldWant(f, w.pkg), at) || v === null) return;
  if (f.repeated && Array.isArray(v)) {
    const item = elementWant(f, w.pkg);
    const view = at.view?.item();
    v.forEach((x, i) => {
      const itemAt: At = {
        parent: at,
        step: { kind: 'item', value: x, index: i, list: at.view },
        struct: at.struct,
        view,
      };
      if (check(w, x, item, itemAt) && x !== null && item?.kind === 'struct')
        walkMessage(w, x as Record<string, Json>, f.type, itemAt);
    });
  } else if (f.map && isObject(v)) {
    const item = elementWant(f, w.pkg);
    for (const [k, x] of Object.entries(v)) {
      const itemAt: At = {
        parent: at,
        step: { kind: 'key', name: k },
        struct: at.struct,
        view: at.view?.field(k),
      };
      if (check(w, x, item, itemAt) && x !== null && item?.kind === 'struct')
        walkMessage(w, x as Record<string, Json>, f.type, itemAt);
    }
  } else if (!LEAF.has(f.type) || f.type === 'ObjectMeta') {
    if (isObject(v)) walkMessage(w, v, f.type, at);
  }
}

function walkMessage(w: Walk, obj: Record<string, Json>, message: string, at: At): void {
  const fields = fieldsByName(message);
  const struct = goName(message);
  for (const [k, v] of Object.entries(obj)) {
    const f = fields.get(k);
    if (!f) {
      // An unknown field is fieldValidation's business, but for an apply (metadata has its own checks).
      if (message !== 'ObjectMeta' && w.undeclared) {
        const path = mismatch(
          { parent: at, step: { kind: 'field', name: k }, struct, view: undefined },
          null,
          {
            kind: 'text',
          },
        ).typedPath;
        w.undeclared.push(path);
      }
      continue;
    }
    walkValue(w, v, f, { parent: at, step: { kind: 'field', name: k }, struct, view: at.view?.field(k) });
  }
}

/** Whether kube-sim knows the field types of this built-in kind. */
export function typesKnown(group: string, kind: string): boolean {
  return KINDS[`${group}/${kind}`] !== undefined;
}

/**
 * The values of `obj` (a `group`/`kind` of `version`) that its Go type cannot decode, in document order (at
 * most `limit`); `view` names list items by their keys in typedPath. Empty for kinds kube-sim has no types of.
 */
export function typeMismatches(
  rt: { group: string; version: string; kind: string },
  obj: unknown,
  options: { view?: TypeView; limit?: number; undeclared?: string[] } = {},
): TypeMismatch[] {
  const message = KINDS[`${rt.group}/${rt.kind}`];
  if (!message || !isObject(obj)) return [];
  const w: Walk = {
    pkg: rt.version,
    out: [],
    limit: options.limit ?? 1,
    ...(options.undeclared ? { undeclared: options.undeclared } : {}),
  };
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  walkMessage(w, rest, message, {
    parent: undefined,
    step: undefined,
    struct: goName(message),
    view: options.view,
  });
  return w.out;
}

// ---------------------------------------------------------------- wording

/** JSON's name of a value's type, as Go's decoder reports it. */
function jsonKind(v: Json): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

/** Go's json.Unmarshal error for `v`: what the JSON decoder says (create, update, merge and JSON patch). */
export function decodeError(m: TypeMismatch): string {
  const v = m.value;
  switch (m.want.kind) {
    case 'intstr':
      return `json: cannot unmarshal ${typeof v === 'number' ? `number ${v}` : jsonKind(v)} into Go value of type int32`;
    case 'quantity':
      return quantityError(v) ?? QUANTITY_FORMAT_ERROR;
    case 'text':
      return `json: cannot unmarshal ${jsonKind(v)} into Go value of type string`;
    default: {
      const go = m.want.kind === 'bytes' ? '[]uint8' : m.want.go;
      const what = typeof v === 'number' && (go === 'int32' || go === 'int64') ? `number ${v}` : jsonKind(v);
      return `json: cannot unmarshal ${what} into Go struct field ${m.struct}.${m.fields.join('.')} of type ${go}`;
    }
  }
}

/** The body's decoding error for the first mismatch, worded by Go's decoder: an UnmarshalJSON error wins. */
export function firstDecodeError(ms: readonly TypeMismatch[]): string | undefined {
  const own = ms.find(
    (m) => m.want.kind === 'intstr' || m.want.kind === 'quantity' || m.want.kind === 'text',
  );
  const first = own ?? ms[0];
  return first && decodeError(first);
}

/** Go's reflect kind of an unstructured value (JSON numbers are int64 or float64 there). */
function goKind(v: Json): string {
  if (Array.isArray(v)) return 'slice';
  if (isObject(v)) return 'map';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

/** The unstructured converter's error (a strategic merge patch's result turned into the Go struct). */
export function convertError(m: TypeMismatch): string | undefined {
  const v = m.value;
  const want = m.want;
  if (want.kind === 'slice' || want.kind === 'bytes') return `cannot restore slice from ${goKind(v)}`;
  if (want.kind === 'map') return `cannot restore map from ${goKind(v)}`;
  if (want.kind === 'struct') return `cannot restore struct from: ${goKind(v)}`;
  if (want.kind !== 'scalar') return decodeError(m);
  const st = goKind(v);
  // Numbers convert between Go's numeric kinds (a wider int is cut to width without a word); an int64
  // converts to a string (a rune) but the converter refuses it.
  if (st === 'int64' && want.go !== 'string' && want.go !== 'bool') return undefined;
  if (st === 'float64' && want.go === 'float64') return undefined;
  if ((st === 'int64' && want.go === 'string') || (st === 'float64' && want.go.startsWith('int')))
    return `cannot convert ${st} to ${want.go}`;
  return `json: cannot unmarshal ${jsonKind(v)} into Go value of type ${want.go}`;
}

/** Go's %v of an unstructured value: `map[a:1 b:[x y]]` (map keys sorted). */
export function goValue(v: Json): string {
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goValue(v[k] as Json)}`).join(' ')}]`;
  }
  return String(v);
}

/** Go's %#v of an unstructured value: `map[string]interface {}{"a":1}`. */
function goSyntax(v: Json): string {
  if (v === null) return 'interface {}(nil)';
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[string]interface {}{${keys.map((k) => `${JSON.stringify(k)}:${goSyntax(v[k] as Json)}`).join(', ')}}`;
  }
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

function goTypeName(v: Json): string {
  if (Array.isArray(v)) return '[]interface {}';
  if (isObject(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

/**
 * structured-merge-diff's error for an applied configuration: its schema types IntOrString and Quantity as
 * any scalar, and everything else by its JSON type (a string for Time and Duration, a number for any integer).
 */
export function typedError(m: TypeMismatch): string | undefined {
  const v = m.value;
  const want = m.want;
  const shown = `&{${goValue(v)}}`;
  let problem: string | undefined;
  if (want.kind === 'intstr' || want.kind === 'quantity') {
    if (Array.isArray(v) || isObject(v)) problem = `expected any scalar, got ${shown}`;
  } else if (want.kind === 'slice') problem = `expected list, got ${shown}`;
  else if (want.kind === 'map' || want.kind === 'struct') problem = `expected map, got ${shown}`;
  else if (want.kind !== 'scalar' || want.go === 'string')
    problem = `expected string, got &value.valueUnstructured{Value:${goSyntax(v)}}`;
  else if (want.go === 'bool') problem = `expected boolean, got ${shown}`;
  else if (typeof v !== 'number') problem = `expected numeric (int or float), got ${goTypeName(v)}`;
  return problem && `${m.typedPath}: ${problem}`;
}

// ---------------------------------------------------------------- refusals

type Kind = { group: string; version: string; kind: string };

/** A created or replaced object (POST, PUT): 400, as the body's decoding fails. */
export function refuseUndecodable(t: Kind, body: unknown): void {
  const error = firstDecodeError(typeMismatches(t, body));
  if (error === undefined) return;
  throw new ApiError(
    400,
    'BadRequest',
    `${t.kind} in version "${t.version}" cannot be handled as a ${t.kind}: ${error}`,
  );
}

/**
 * A patch whose result the kind's type cannot hold: 422 on the field `patch`, as the patch handler answers
 * (no kind or name: it refuses before it knows the object). A merge or JSON patch shows the patched object, a
 * strategic merge patch the patch itself (as Go prints a map).
 */
export function refuseUndecodablePatch(
  t: Kind,
  patched: unknown,
  strategic: { patch: Json } | undefined,
): void {
  const ms = typeMismatches(t, patched, { limit: 50 });
  let error: string | undefined;
  if (strategic) for (const m of ms) error ??= convertError(m);
  else error = firstDecodeError(ms);
  if (error === undefined) return;
  throw invalidPatch(patchShown(patched, strategic), error);
}

/** How the patch handler shows a patch it refuses: the patched object as JSON, or a strategic patch as Go prints a map. */
export function patchShown(patched: unknown, strategic: { patch: Json } | undefined): string {
  return strategic ? goValue(strategic.patch) : JSON.stringify(patched);
}

/** The patch handler's refusal of a patch whose result does not decode (by type, or strictly). */
export function invalidPatch(shown: string, detail: string): ApiError {
  const message = `Invalid value: ${JSON.stringify(shown)}: ${detail}`;
  return new ApiError(422, 'Invalid', ` "" is invalid: patch: ${message}`, {
    causes: [{ reason: 'FieldValueInvalid', field: 'patch', message }],
    details: { name: '', group: '', kind: '' },
  });
}

/** Walks a custom resource's applied configuration along its structural schema (see customTypedErrors). */
function schemaWalk(
  s: JSONSchemaProps | undefined,
  v: Json,
  at: { path: string; view: TypeView | undefined; root: boolean },
  out: string[],
): void {
  if (!s || v === null) return;
  const shown = `&{${goValue(v)}}`;
  if (s['x-kubernetes-int-or-string']) {
    if (Array.isArray(v) || isObject(v)) out.push(`${at.path}: expected any scalar, got ${shown}`);
    return;
  }
  switch (s.type) {
    case 'string':
      if (typeof v !== 'string')
        out.push(`${at.path}: expected string, got &value.valueUnstructured{Value:${goSyntax(v)}}`);
      return;
    case 'integer':
    case 'number':
      if (typeof v !== 'number')
        out.push(`${at.path}: expected numeric (int or float), got ${goTypeName(v)}`);
      return;
    case 'boolean':
      if (typeof v !== 'boolean') out.push(`${at.path}: expected boolean, got ${shown}`);
      return;
    case 'array': {
      if (!Array.isArray(v)) {
        out.push(`${at.path}: expected list, got ${shown}`);
        return;
      }
      const view = at.view?.item();
      v.forEach((x, i) =>
        schemaWalk(s.items, x, { path: at.path + itemPath(at.view, x, i), view, root: false }, out),
      );
      return;
    }
    default:
      if (!isObject(v)) {
        if (s.type === 'object') out.push(`${at.path}: expected map, got ${shown}`);
        return;
      }
  }
  const embedded = at.root || s['x-kubernetes-embedded-resource'] === true;
  for (const [k, x] of Object.entries(v)) {
    if (embedded && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
    const child =
      s.properties?.[k] ?? (isObject(s.additionalProperties) ? s.additionalProperties : undefined);
    const path = `${at.path}.${k}`;
    if (child) schemaWalk(child, x, { path, view: at.view?.field(k), root: false }, out);
    else if (!s['x-kubernetes-preserve-unknown-fields'] && s.additionalProperties !== true)
      out.push(`${path}: field not declared in schema`);
  }
}

/**
 * What structured-merge-diff says of a custom resource's applied configuration typed by its structural
 * schema: values of the wrong JSON type, and fields the schema does not declare (where it keeps no unknown
 * fields). Integers and numbers are one numeric type to it.
 */
export function customTypedErrors(schema: JSONSchemaProps, config: unknown, view: TypeView): string[] {
  const out: string[] = [];
  if (isObject(config)) schemaWalk(schema, config, { path: '', view, root: true }, out);
  return out;
}

/**
 * An applied configuration that structured-merge-diff cannot type (a built-in by its Go type, a custom
 * resource by its schema): every value of the wrong type and every field the kind does not declare (whatever fieldValidation says: the typed conversion refuses them), in its
 * words. The API server returns this error unwrapped, so the client sees a 500 with no reason.
 */
export function refuseUntypedApply(
  t: Kind & { schema?: JSONSchemaProps },
  config: unknown,
  view: TypeView,
  where: { namespace: string | undefined; name: string },
): void {
  const errors: string[] = [];
  if (t.schema) {
    errors.push(...customTypedErrors(t.schema, config, view));
  } else {
    const undeclared: string[] = [];
    for (const m of typeMismatches(t, config, { view, limit: 50, undeclared })) {
      const e = typedError(m);
      if (e !== undefined) errors.push(e);
    }
    for (const p of undeclared) errors.push(`${p}: field not declared in schema`);
  }
  if (!errors.length) return;
  const text = errors.length === 1 ? errors[0] : `errors:\n  ${errors.join('\n  ')}`;
  const gvk = `${t.group}/${t.version}, Kind=${t.kind}`;
  throw new ApiError(
    500,
    '',
    `failed to create typed patch object (${where.namespace ?? ''}/${where.name}; ${gvk}): ${text}`,
  );
}
