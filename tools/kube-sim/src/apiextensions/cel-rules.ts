// x-kubernetes-validations: the CEL rules of CRD schemas, checked as kube-apiserver's apiextensions does
// (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel), with @marcbachmann/cel-js as the evaluator.
// A rule runs at the schema node that declares it, with `self` bound to the value there (after defaulting)
// and only when that value is present and not null. Rules that use `oldSelf` (transition rules) run only on
// updates, where the old object has a value at the same place (objects correlate by key, lists only when
// they are map lists). A rule that is false becomes a field error worded as the API server words it:
// `spec.strategy: Invalid value: "object": <message>`, the value shown being the node's schema type.
// On updates, a failing rule whose value is unchanged is ratcheted: a warning instead of an error.
// Compilation is in cel-compile.ts, values in cel-values.ts, fieldPath in cel-field-path.ts, and the checks
// of the rules themselves when a CRD is written in cel-rule-definitions.ts.
import { Optional } from '@marcbachmann/cel-js';
import { duplicate, forbidden, invalid, required } from '../apimachinery/field-errors.ts';
import { compile, type CelError } from './cel-compile.ts';
import { resolveFieldPath } from './cel-field-path.ts';
import { additional, embedded, toCel } from './cel-values.ts';
import { childPath, propOf } from './structural.ts';
import { deepEqual, isObject } from '../apimachinery/json.ts';
import type { FieldCause, Json, JSONSchemaProps, ValidationRule } from '../apimachinery/types.ts';

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
