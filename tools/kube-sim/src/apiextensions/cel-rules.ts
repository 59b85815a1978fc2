// x-kubernetes-validations: the CEL rules of CRD schemas, checked as kube-apiserver's apiextensions does
// (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel), with @marcbachmann/cel-js as the evaluator.
// A rule runs at the schema node that declares it, with `self` bound to the value there (after defaulting)
// and only when that value is present and not null. Rules that use `oldSelf` (transition rules) run only on
// updates, where the old object has a value at the same place (objects correlate by key, lists only when
// they are map lists). A rule that is false becomes a field error worded as the API server words it:
// `spec.strategy: Invalid value: "object": <message>`, the value shown being the node's schema type.
// On updates, a failing rule whose value is unchanged is ratcheted: a warning instead of an error.
import { Environment, Optional, parse, type ParseResult } from '@marcbachmann/cel-js';
import {
  childPath,
  deepEqual,
  duplicate,
  forbidden,
  goQuote,
  invalid,
  isObject,
  notSupported,
  propOf,
  required,
} from './structural.ts';
import type { FieldCause, Json, JsonObject, JSONSchemaProps, ValidationRule } from '../apimachinery/types.ts';

// ---------------------------------------------------------------------------------------------
// The CEL environment: `self` and `oldSelf` (dynamically typed: kube-apiserver types them from the schema),
// optional types (`self.?x.orValue(y)`, `oldSelf.hasValue()`), and a few functions of Kubernetes' CEL
// libraries that cel-js lacks.

type Ordered = bigint | number | string | boolean | Date;

/** The least (`min`) or greatest (`max`) element, as the Kubernetes list library's min() and max(). */
function extreme(list: Ordered[], which: 'min' | 'max'): Ordered {
  if (list.length === 0) throw new Error(`${which} called on empty list`);
  return list.reduce((a, b) => ((which === 'min' ? b < a : b > a) ? b : a));
}

const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false })
  .registerVariable('self', 'dyn')
  .registerVariable('oldSelf', 'dyn')
  .registerFunction('list.isSorted(): bool', (l: Ordered[]) => l.every((x, i) => i === 0 || l[i - 1]! <= x))
  .registerFunction('list.sum(): dyn', (l: (bigint | number)[]) =>
    l.every((x) => typeof x === 'bigint')
      ? l.reduce<bigint>((a, b) => a + (b as bigint), 0n)
      : l.reduce<number>((a, b) => a + Number(b), 0),
  )
  .registerFunction('list.min(): dyn', (l: Ordered[]) => extreme(l, 'min'))
  .registerFunction('list.max(): dyn', (l: Ordered[]) => extreme(l, 'max'))
  .registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) =>
    s.split(a).join(b),
  )
  .registerFunction(
    'string.replace(string, string, int): string',
    (s: string, a: string, b: string, n: bigint) => {
      if (n < 0n) return s.split(a).join(b);
      const parts = s.split(a);
      const k = Number(n);
      return parts.slice(0, k + 1).join(b) + (parts.length > k + 1 ? a + parts.slice(k + 1).join(a) : '');
    },
  );

// ---------------------------------------------------------------------------------------------
// Compilation (cached by expression text)

interface Compiled {
  program?: ParseResult;
  /** Why it does not compile, as cel-go words it after `compilation failed: `. */
  error?: string;
  /** The result type cel-js infers (`bool`, `string`, `dyn`, ...), when it could check the expression. */
  type?: string;
  usesOldSelf: boolean;
}

const compiledCache = new Map<string, Compiled>();

function compile(expr: string): Compiled {
  let c = compiledCache.get(expr);
  if (c) return c;
  c = compileUncached(expr);
  if (compiledCache.size >= 5000) compiledCache.clear();
  compiledCache.set(expr, c);
  return c;
}

interface CelError {
  code?: string;
  summary?: string;
  message?: string;
  range?: { start: number };
}

/** cel-go's rendering of a compile error: `ERROR: <input>:1:9: Syntax error: ...` (1-based line and column). */
function compileErrorText(e: unknown, expr: string): string {
  const err = (typeof e === 'object' && e !== null ? e : {}) as CelError;
  let text = err.summary ?? String(err.message ?? e).split('\n')[0] ?? '';
  const unknown = /^Unknown variable: (.+)$/.exec(text);
  if (unknown) text = `undeclared reference to '${unknown[1]}' (in container '')`;
  else if (err.code !== 'unknown_variable') text = `Syntax error: ${text}`;
  const pos = typeof err.range?.start === 'number' ? err.range.start : 0;
  const before = expr.slice(0, pos).split('\n');
  return `ERROR: <input>:${before.length}:${(before[before.length - 1] ?? '').length + 1}: ${text}`;
}

function compileUncached(expr: string): Compiled {
  let program: ParseResult;
  try {
    program = env.parse(expr);
  } catch (e) {
    return { error: compileErrorText(e, expr), usesOldSelf: /\boldSelf\b/.test(expr) };
  }
  const usesOldSelf = referencesOldSelf(program.ast);
  let checked: ReturnType<ParseResult['check']>;
  try {
    checked = program.check();
  } catch {
    return { program, usesOldSelf };
  }
  if (checked.valid) return { program, ...(checked.type ? { type: checked.type } : {}), usesOldSelf };
  // Only an undeclared name is a compile error here. Other type errors are left to evaluation: self is `dyn`,
  // and the check fails on functions of Kubernetes' CEL libraries that a real server compiles.
  if ((checked.error as CelError | undefined)?.code === 'unknown_variable') {
    return { error: compileErrorText(checked.error, expr), usesOldSelf };
  }
  return { program, usesOldSelf };
}

/** Whether an expression refers to `oldSelf` (which makes a rule a transition rule). */
function referencesOldSelf(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(referencesOldSelf);
  if (typeof node !== 'object' || node === null || !('op' in node)) return false;
  const n = node as { op: string; args: unknown };
  if (n.op === 'id') return n.args === 'oldSelf';
  if (n.op === 'value') return false;
  return referencesOldSelf(n.args);
}

// ---------------------------------------------------------------------------------------------
// Values as CEL sees them

const CEL_RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/**
 * The name under which a property is visible in CEL, as the API server escapes it: `namespace` →
 * `__namespace__`, `foo-bar` → `foo__dash__bar`, `a.b` → `a__dot__b`, `a/b` → `a__slash__b`, `__` →
 * `__underscores__`. Undefined when it cannot be escaped (it starts with a digit or has other characters):
 * such a property is not visible to rules.
 */
export function celEscape(name: string): string | undefined {
  if (name === '' || /^[0-9]/.test(name)) return undefined;
  if (CEL_RESERVED.has(name)) return `__${name}__`;
  let ok = true;
  const escaped = name.replace(/__|[-./]|[^a-zA-Z0-9_]/g, (m) => {
    switch (m) {
      case '__':
        return '__underscores__';
      case '.':
        return '__dot__';
      case '-':
        return '__dash__';
      case '/':
        return '__slash__';
      default:
        ok = false;
        return '';
    }
  });
  return ok ? escaped : undefined;
}

const durationOf = parse('duration(s)');

/** A string of a `format` CEL gives a type of its own: date-time and date → timestamp, duration, byte → bytes. */
function formatted(v: string, format: string): unknown {
  switch (format) {
    case 'date-time': {
      const ms = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/.test(v) ? Date.parse(v.replace(' ', 'T')) : NaN;
      return Number.isNaN(ms) ? v : new Date(ms);
    }
    case 'date': {
      const ms = /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : NaN;
      return Number.isNaN(ms) ? v : new Date(ms);
    }
    case 'duration':
      try {
        return durationOf({ s: v }) as unknown;
      } catch {
        return v;
      }
    case 'byte':
      return new Uint8Array(Buffer.from(v, 'base64'));
    default:
      return v;
  }
}

function embedded(s: JSONSchemaProps | undefined): boolean {
  return s?.['x-kubernetes-embedded-resource'] === true;
}

function additional(s: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  return s && isObject(s.additionalProperties as Json)
    ? (s.additionalProperties as JSONSchemaProps)
    : undefined;
}

/**
 * A JSON value converted for CEL by its schema: under `type: integer` (and an integer of an int-or-string)
 * a BigInt (CEL int), under `type: number` a JS number (CEL double) even when integral, formatted strings as
 * above. Objects with properties show those properties only (escaped names); maps all their keys; a
 * resource root (the object, or an embedded resource) also its apiVersion, kind and metadata.name and
 * generateName. Where there is no schema, integral numbers are ints (as Go decodes JSON) and objects are maps.
 */
export function toCel(v: Json, s: JSONSchemaProps | undefined, resourceRoot = false): unknown {
  if (v === null || typeof v === 'boolean') return v;
  if (typeof v === 'number') return s?.type === 'number' || !Number.isInteger(v) ? v : BigInt(v);
  if (typeof v === 'string') return s?.type === 'string' && s.format ? formatted(v, s.format) : v;
  if (Array.isArray(v)) return v.map((x) => toCel(x, s?.items, embedded(s?.items)));
  const out = Object.create(null) as Record<string, unknown>;
  const rootField = (k: string) => resourceRoot && (k === 'apiVersion' || k === 'kind' || k === 'metadata');
  if (resourceRoot) {
    if (typeof v.apiVersion === 'string') out.apiVersion = v.apiVersion;
    if (typeof v.kind === 'string') out.kind = v.kind;
    const meta = v.metadata;
    if (isObject(meta)) {
      const m = Object.create(null) as Record<string, unknown>;
      for (const k of ['name', 'generateName']) if (typeof meta[k] === 'string') m[k] = meta[k];
      out.metadata = m;
    }
  }
  const addl = additional(s);
  for (const [k, x] of Object.entries(v)) {
    if (rootField(k)) continue;
    if (s?.properties) {
      const prop = propOf(s, k);
      const name = celEscape(k);
      if (prop && name !== undefined) out[name] = toCel(x, prop, embedded(prop));
    } else if (addl) {
      out[k] = toCel(x, addl, embedded(addl));
    } else {
      out[k] = toCel(x, undefined);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// fieldPath (`.a.b`, `['a.b']`): resolved against the node's schema as the API server does

const FIELD_PATH_DELIMS = new Set(['.', '[', ']']);

/** The field path a rule's `fieldPath` names under its node (`maxSurge`, `a.b`, `labels[x]`), or why it is invalid. */
export function resolveFieldPath(
  fieldPath: string,
  schema: JSONSchemaProps,
): { path: string; schema: JSONSchemaProps } | { error: string } {
  let s = schema;
  let out = '';
  let i = 0;
  const token = (): string | undefined => {
    if (i >= fieldPath.length) return undefined;
    const c = fieldPath[i] as string;
    if (FIELD_PATH_DELIMS.has(c)) {
      i++;
      return c;
    }
    if (c === "'") {
      let j = i + 1;
      while (j < fieldPath.length && !(fieldPath[j] === "'" && fieldPath[j - 1] !== '\\')) j++;
      const t = fieldPath.slice(i, j + 1);
      i = j + 1;
      return t;
    }
    let j = i;
    while (j < fieldPath.length && !FIELD_PATH_DELIMS.has(fieldPath[j] as string)) j++;
    const t = fieldPath.slice(i, j);
    i = j;
    return t;
  };
  const step = (name: string): string | undefined => {
    if (s.properties) {
      const p = propOf(s, name);
      if (!p) return 'does not refer to a valid field';
      out = out === '' ? name : `${out}.${name}`;
      s = p;
      return undefined;
    }
    const addl = additional(s);
    if (!addl) return 'does not refer to a valid field';
    out = `${out}[${name}]`;
    s = addl;
    return undefined;
  };
  for (let tok = token(); tok !== undefined; tok = token()) {
    let err: string | undefined;
    if (tok === '.') {
      const name = token();
      if (name === undefined) return { error: 'unexpected end of JSON path' };
      err = step(name);
    } else if (tok === '[') {
      const quoted = token();
      if (quoted === undefined) return { error: 'unexpected end of JSON path' };
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) {
        return { error: `expected single quoted string but got ${quoted}` };
      }
      const name = unescapeSingleQuoted(quoted.slice(1, -1));
      if (name === undefined) return { error: 'invalid string literal' };
      err = step(name);
      const close = token();
      if (close === undefined) return { error: 'unexpected end of JSON path' };
      if (close !== ']') return { error: `expected ] but got ${close}` };
    } else {
      return { error: `expected [ or . but got: ${tok}` };
    }
    if (err) return { error: err };
  }
  return { path: out, schema: s };
}

const SINGLE_QUOTE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  "'": "'",
  '\\': '\\',
};

function unescapeSingleQuoted(s: string): string | undefined {
  let ok = true;
  const out = s.replace(/\\./g, (m) => {
    const r = SINGLE_QUOTE_ESCAPES[m[1] as string];
    if (r === undefined) ok = false;
    return r ?? '';
  });
  return ok ? out : undefined;
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/** Keywords of the schema the shared type leaves out: allOf branches may declare rules too. */
type WithAllOf = JSONSchemaProps & { allOf?: JSONSchemaProps[] };

function allOfOf(s: JSONSchemaProps): JSONSchemaProps[] {
  const all = (s as WithAllOf).allOf;
  return Array.isArray(all) ? all.filter((b) => isObject(b as unknown as Json)) : [];
}

function rulesAt(s: JSONSchemaProps): unknown[] {
  const list = s['x-kubernetes-validations'] as unknown;
  return Array.isArray(list) ? list : [];
}

const hasRulesMemo = new WeakMap<JSONSchemaProps, boolean>();

/** Whether a schema declares x-kubernetes-validations anywhere (memoized per schema object). */
export function hasValidationRules(s: JSONSchemaProps | undefined): boolean {
  if (!s || !isObject(s as unknown as Json)) return false;
  const memo = hasRulesMemo.get(s);
  if (memo !== undefined) return memo;
  hasRulesMemo.set(s, false);
  const found =
    rulesAt(s).length > 0 ||
    Object.values(s.properties ?? {}).some(hasValidationRules) ||
    hasValidationRules(additional(s)) ||
    hasValidationRules(s.items) ||
    allOfOf(s).some(hasValidationRules);
  hasRulesMemo.set(s, found);
  return found;
}

/** Causes the API server treats as blocking: with one of them, no rule is evaluated. */
const BLOCKING = new Set<string>([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

/** Whether schema causes stop the rules from running (a wrong type, a missing field, an enum, too long/many). */
export function blocksRules(causes: FieldCause[]): boolean {
  return causes.some((c) => BLOCKING.has(c.reason));
}

/** The cause the API server adds when schema errors kept it from evaluating the rules. */
export function rulesNotChecked(): FieldCause {
  return invalid(
    '<nil>',
    'null',
    'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  );
}

export interface RuleOptions {
  /** On update: the object before the write (defaulted, in the same version). Absent on create. */
  oldValue?: Json | undefined;
  /** The value is a whole object (a CR): its apiVersion, kind and metadata.name/generateName are visible. Default true. */
  root?: boolean;
  /** Path of the value (default '': the object, which the API server names `<nil>` in its causes). */
  path?: string;
  /** Receives `field: message` for failures ratcheted away (the value is unchanged by the update). */
  warnings?: string[] | undefined;
}

/**
 * Ratcheting as kube-apiserver does it on update: `cur` is whether the node equals its correlated old value
 * (undefined when it has none), `parent` the same for the nearest correlated ancestor. A failing rule that
 * doesn't use oldSelf is only a warning when `cur ?? parent`.
 */
interface Ratchet {
  cur: boolean | undefined;
  parent: boolean;
}

interface Walk {
  out: FieldCause[];
  warnings: string[] | undefined;
}

/** A value in the object being validated, and what is known of it there. */
interface Site {
  v: Json;
  /** The value's schema (types, correlation). */
  node: JSONSchemaProps;
  path: string;
  /** The correlated old value (updates), if any. */
  old: Json | undefined;
  ratchet: Ratchet;
  /** The value is a resource root (the object, or an embedded resource): only some metadata is visible. */
  resourceRoot: boolean;
}

/** The site of a child value, correlated with `old` (its old value). */
function child(at: Site, v: Json, node: JSONSchemaProps, path: string, old: Json | undefined): Site {
  return { v, node, path, old, ratchet: descend(at.ratchet, old, v), resourceRoot: embedded(node) };
}

/** Every x-kubernetes-validations rule of `schema` that `value` fails, as field causes. */
export function validateRules(value: Json, schema: JSONSchemaProps, options: RuleOptions = {}): FieldCause[] {
  const out: FieldCause[] = [];
  if (!hasValidationRules(schema)) return out;
  const old = options.oldValue ?? undefined;
  const ratchet: Ratchet = { cur: old === undefined ? undefined : deepEqual(old, value), parent: false };
  const at: Site = {
    v: value,
    node: schema,
    path: options.path ?? '',
    old,
    ratchet,
    resourceRoot: options.root ?? true,
  };
  walk(at, schema, { out, warnings: options.warnings });
  return out;
}

function descend(r: Ratchet, old: Json | undefined, v: Json): Ratchet {
  if (r.cur === undefined) return r;
  return { cur: old === undefined ? undefined : deepEqual(old, v), parent: r.cur };
}

/** The old item each new item of a list correlates with: by key in a map list, none in other lists. */
function oldItems(s: JSONSchemaProps, old: Json | undefined): (item: Json) => Json | undefined {
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  if (s['x-kubernetes-list-type'] !== 'map' || !keys.length || !Array.isArray(old)) return () => undefined;
  const idOf = (x: Json) => (isObject(x) ? JSON.stringify(keys.map((k) => x[k] ?? null)) : undefined);
  const byId = new Map<string, Json>();
  for (const x of old) {
    const id = idOf(x);
    if (id !== undefined && !byId.has(id)) byId.set(id, x);
  }
  return (item) => {
    const id = idOf(item);
    return id === undefined ? undefined : byId.get(id);
  };
}

/** `rules` is the schema whose rules apply at `at`: its node's, or an allOf branch of it. */
function walk(at: Site, rules: JSONSchemaProps, w: Walk): void {
  const { v, node, path, old } = at;
  if (v === null) return;
  const list = rulesAt(rules);
  if (list.length) evaluateAt(at, list, w);
  for (const branch of allOfOf(rules)) {
    if (hasValidationRules(branch))
      walk({ ...at, ratchet: { cur: undefined, parent: at.ratchet.parent } }, branch, w);
  }
  if (Array.isArray(v)) {
    const items = node.items;
    const itemRules = rules.items;
    if (!items || !hasValidationRules(itemRules)) return;
    const oldOf = oldItems(node, old);
    v.forEach((item, i) =>
      walk(child(at, item, items, `${path}[${i}]`, oldOf(item)), itemRules as JSONSchemaProps, w),
    );
    return;
  }
  if (!isObject(v)) return;
  const oldMap = isObject(old) && node['x-kubernetes-map-type'] !== 'atomic' ? old : undefined;
  const oldAt = (k: string): Json | undefined => {
    const o = oldMap && Object.hasOwn(oldMap, k) ? oldMap[k] : undefined;
    return o === null ? undefined : o;
  };
  const addlNode = additional(node);
  const addlRules = additional(rules);
  if (addlNode && addlRules && hasValidationRules(addlRules)) {
    for (const [k, x] of Object.entries(v))
      walk(child(at, x, addlNode, `${path}[${k}]`, oldAt(k)), addlRules, w);
  }
  if (rules.properties) {
    for (const [k, x] of Object.entries(v)) {
      if (at.resourceRoot && k === 'metadata') continue;
      const propRules = propOf(rules, k);
      const propNode = propOf(node, k);
      if (!propNode || !propRules || !hasValidationRules(propRules)) continue;
      walk(child(at, x, propNode, childPath(path, k), oldAt(k)), propRules, w);
    }
  }
}

function ruleErrorString(rule: ValidationRule): string {
  const msg = typeof rule.message === 'string' ? rule.message.trim() : '';
  return msg || rule.rule.trim();
}

function ruleMessageOrDefault(rule: ValidationRule): string {
  const msg = typeof rule.message === 'string' ? rule.message.trim() : '';
  return msg || `failed rule: ${ruleErrorString(rule)}`;
}

/** cel-js's error, in cel-go's lower-case wording (`no such key: x`). */
function evalErrorText(e: unknown): string {
  const err = (typeof e === 'object' && e !== null ? e : {}) as CelError;
  const text = err.summary ?? String(err.message ?? e).split('\n')[0] ?? String(e);
  return /^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}

function evalFailure(e: unknown, rule: ValidationRule): string {
  const text = evalErrorText(e);
  if (text.startsWith('no such overload')) {
    return `'${text}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`;
  }
  return `${text} evaluating rule: ${ruleErrorString(rule)}`;
}

const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;

/** The message a messageExpression evaluates to, or undefined to fall back to `message` (as the server does). */
function messageOf(rule: ValidationRule, vars: Record<string, unknown>): string | undefined {
  const expr = rule.messageExpression;
  if (typeof expr !== 'string' || expr.trim() === '') return undefined;
  const c = compile(expr);
  if (!c.program) return undefined;
  try {
    const m: unknown = c.program(vars);
    if (typeof m !== 'string') return undefined;
    const t = m.trim();
    if (!t || t.includes('\n') || Buffer.byteLength(t) > MAX_MESSAGE_EXPRESSION_BYTES) return undefined;
    return t;
  } catch {
    return undefined;
  }
}

function causeFor(reason: unknown, field: string, type: string, detail: string): FieldCause {
  switch (reason) {
    case 'FieldValueForbidden':
      return forbidden(field, detail);
    case 'FieldValueRequired':
      return required(field, detail);
    case 'FieldValueDuplicate':
      return duplicate(field, type);
    default:
      return invalid(field, type, detail);
  }
}

function evaluateAt(site: Site, list: unknown[], w: Walk): void {
  const { v, node, path, old, ratchet, resourceRoot } = site;
  const type = node.type ?? '';
  const at = path === '' ? '<nil>' : path;
  let vars: { self: unknown; oldSelf?: unknown } | undefined;
  for (const raw of list) {
    if (!isObject(raw as Json)) continue;
    const rule = raw as unknown as ValidationRule;
    if (typeof rule.rule !== 'string' || rule.rule.trim() === '') continue;
    const c = compile(rule.rule);
    if (!c.program) {
      w.out.push(invalid(at, type, `rule compile error: compilation failed: ${c.error ?? ''}`));
      continue;
    }
    const optionalOld = rule.optionalOldSelf === true;
    if (c.usesOldSelf && old === undefined && !optionalOld) continue;
    vars ??= {
      self: toCel(v, node, resourceRoot),
      ...(old !== undefined ? { oldSelf: toCel(old, node, resourceRoot) } : {}),
    };
    const activation = optionalOld
      ? { self: vars.self, oldSelf: old === undefined ? Optional.none() : Optional.of(vars.oldSelf) }
      : vars;
    let result: unknown;
    try {
      result = c.program(activation);
    } catch (e) {
      w.out.push(invalid(at, type, evalFailure(e, rule)));
      continue;
    }
    if (result === true) continue;
    let field = at;
    if (typeof rule.fieldPath === 'string' && rule.fieldPath !== '') {
      const resolved = resolveFieldPath(rule.fieldPath, node);
      if ('path' in resolved && resolved.path)
        field = path === '' ? resolved.path : `${path}.${resolved.path}`;
    }
    const detail = messageOf(rule, vars) ?? ruleMessageOrDefault(rule);
    const cause = causeFor(rule.reason, field, type, detail);
    if (!c.usesOldSelf && (ratchet.cur ?? ratchet.parent))
      w.warnings?.push(`${cause.field}: ${cause.message}`);
    else w.out.push(cause);
  }
}

// ---------------------------------------------------------------------------------------------
// The rules themselves, checked when a CRD is written

const REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const NEWLINES = /[\n\r]/;

/** Go's `%#v` of an apiextensions.ValidationRule, the bad value the API server shows for a rule that doesn't compile. */
function goRuleStruct(item: JsonObject): string {
  const s = (k: string) => goQuote(typeof item[k] === 'string' ? item[k] : '');
  const ptr = (k: string, type: string) => `(*${type})(${item[k] === undefined ? 'nil' : '0xc000010000'})`;
  return (
    `apiextensions.ValidationRule{Rule:${s('rule')}, Message:${s('message')}, ` +
    `MessageExpression:${s('messageExpression')}, ` +
    `Reason:${ptr('reason', 'apiextensions.FieldValueErrorReason')}, FieldPath:${s('fieldPath')}, ` +
    `OptionalOldSelf:${ptr('optionalOldSelf', 'bool')}}`
  );
}

function invalidRule(field: string, item: JsonObject, detail: string): FieldCause {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${goRuleStruct(item)}: ${detail}` };
}

/**
 * The checks kube-apiserver makes of a schema node's x-kubernetes-validations when a CRD is written: a rule is
 * given and compiles (syntax, undeclared names, a bool result), message and messageExpression are well formed,
 * reason is one of the four, fieldPath names a field of the node, and a transition rule is not inside a list
 * that is not a map list (`uncorrelatable`: the path of that list's schema). `path` is the node's schema path.
 */
export function validateRuleDefinitions(
  s: JSONSchemaProps,
  path: string,
  uncorrelatable?: string,
): FieldCause[] {
  const list = s['x-kubernetes-validations'] as unknown;
  if (list === undefined) return [];
  const p = `${path}.x-kubernetes-validations`;
  if (!Array.isArray(list)) return [invalid(p, list as Json, 'must be a list')];
  const out: FieldCause[] = [];
  list.forEach((raw: Json, i) => {
    const ip = `${p}[${i}]`;
    if (!isObject(raw)) {
      out.push(invalid(ip, raw, 'must be an object'));
      return;
    }
    const text = (k: string) => (typeof raw[k] === 'string' ? raw[k] : '');
    const rule = text('rule');
    const message = text('message');
    const messageExpression = text('messageExpression');
    const fieldPath = text('fieldPath');
    const schemaErrors: FieldCause[] = [];
    if (!rule.trim()) schemaErrors.push(required(`${ip}.rule`, 'rule is not specified'));
    else if (message.length > 0 && !message.trim()) {
      schemaErrors.push(invalid(`${ip}.message`, message, 'message must be non-empty if specified'));
    } else if (message.length > 2048) {
      schemaErrors.push(
        invalid(
          `${ip}.message`,
          `${message.slice(0, 10)}...`,
          'message must have a maximum length of 2048 characters',
        ),
      );
    } else if (NEWLINES.test(message.trim())) {
      schemaErrors.push(invalid(`${ip}.message`, message, 'message must not contain line breaks'));
    } else if (NEWLINES.test(rule.trim()) && !message.trim()) {
      schemaErrors.push(required(`${ip}.message`, 'message must be specified if rule contains line breaks'));
    }
    if (messageExpression.length > 0 && !messageExpression.trim()) {
      schemaErrors.push(
        required(`${ip}.messageExpression`, 'messageExpression must be non-empty if specified'),
      );
    }
    if (raw.reason !== undefined && (typeof raw.reason !== 'string' || !REASONS.includes(raw.reason))) {
      schemaErrors.push(notSupported(`${ip}.reason`, raw.reason, REASONS));
    }
    if (fieldPath.length > 0 && !fieldPath.trim()) {
      schemaErrors.push(invalid(`${ip}.fieldPath`, fieldPath, 'fieldPath must be non-empty if specified'));
    }
    if (NEWLINES.test(fieldPath)) {
      schemaErrors.push(invalid(`${ip}.fieldPath`, fieldPath, 'fieldPath must not contain line breaks'));
    }
    if (fieldPath.length > 0) {
      const resolved = resolveFieldPath(fieldPath, s);
      if ('error' in resolved) {
        schemaErrors.push(
          invalid(`${ip}.fieldPath`, fieldPath, `fieldPath must be a valid path: ${resolved.error}`),
        );
      }
    }
    out.push(...schemaErrors);
    if (schemaErrors.length) return;
    const c = compile(rule);
    if (c.error) out.push(invalidRule(`${ip}.rule`, raw, `compilation failed: ${c.error}`));
    else if (c.type !== undefined && c.type !== 'bool' && c.type !== 'dyn') {
      out.push(invalidRule(`${ip}.rule`, raw, 'cel expression must evaluate to a bool'));
    }
    if (messageExpression.trim()) {
      const m = compile(messageExpression);
      if (m.error) {
        out.push(
          invalidRule(`${ip}.messageExpression`, raw, `messageExpression compilation failed: ${m.error}`),
        );
      } else if (m.type !== undefined && m.type !== 'string' && m.type !== 'dyn') {
        out.push(invalidRule(`${ip}.messageExpression`, raw, 'messageExpression must evaluate to a string'));
      }
    }
    if (c.usesOldSelf && uncorrelatable !== undefined) {
      out.push(
        invalid(
          `${ip}.rule`,
          rule,
          `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`,
        ),
      );
    }
  });
  return out;
}
