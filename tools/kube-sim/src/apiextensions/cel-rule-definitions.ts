// The checks of x-kubernetes-validations rules themselves, made when a CRD is written: each rule is well
// formed and compiles, as kube-apiserver's apiextensions validation words it.
import { goQuote, invalid, notSupported, required } from '../apimachinery/field-errors.ts';
import type { FieldCause, Json, JsonObject, JSONSchemaProps } from '../apimachinery/types.ts';
import { compile } from './cel-compile.ts';
import { resolveFieldPath } from './cel-field-path.ts';
import { isObject } from '../apimachinery/json.ts';

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
    const schemaErrors = ruleFieldErrors(raw, s, ip);
    out.push(...schemaErrors);
    if (schemaErrors.length === 0) out.push(...compileErrors(raw, ip, uncorrelatable));
  });
  return out;
}

/** A rule's string field, '' when absent or not a string. */
const text = (raw: JsonObject, k: string): string => (typeof raw[k] === 'string' ? raw[k] : '');

/** The rule's fields: rule given, message and messageExpression well formed, reason known, fieldPath valid. */
function ruleFieldErrors(raw: JsonObject, s: JSONSchemaProps, ip: string): FieldCause[] {
  const rule = text(raw, 'rule');
  const message = text(raw, 'message');
  const messageExpression = text(raw, 'messageExpression');
  const fieldPath = text(raw, 'fieldPath');
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
  schemaErrors.push(...fieldPathErrors(fieldPath, s, ip));
  return schemaErrors;
}

function fieldPathErrors(fieldPath: string, s: JSONSchemaProps, ip: string): FieldCause[] {
  const out: FieldCause[] = [];
  if (fieldPath.length > 0 && !fieldPath.trim()) {
    out.push(invalid(`${ip}.fieldPath`, fieldPath, 'fieldPath must be non-empty if specified'));
  }
  if (NEWLINES.test(fieldPath)) {
    out.push(invalid(`${ip}.fieldPath`, fieldPath, 'fieldPath must not contain line breaks'));
  }
  if (fieldPath.length > 0) {
    const resolved = resolveFieldPath(fieldPath, s);
    if ('error' in resolved) {
      out.push(invalid(`${ip}.fieldPath`, fieldPath, `fieldPath must be a valid path: ${resolved.error}`));
    }
  }
  return out;
}

/** The rule compiles to a bool, its messageExpression to a string, and it uses oldSelf only where it can. */
function compileErrors(raw: JsonObject, ip: string, uncorrelatable: string | undefined): FieldCause[] {
  const out: FieldCause[] = [];
  const rule = text(raw, 'rule');
  const messageExpression = text(raw, 'messageExpression');
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
  return out;
}
