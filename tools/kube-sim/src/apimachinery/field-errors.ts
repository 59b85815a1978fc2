// Field errors as apimachinery's field package renders them (field.Invalid, field.Required, …): the
// reason, the field path and the message, with the bad value printed the way Go's fmt prints it.
import type { FieldCause, Json } from './types.ts';

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
export function tooLong(field: string, max: number): FieldCause {
  return { reason: 'FieldValueTooLong', field, message: `Too long: may not be longer than ${max}` };
}
export function tooMany(field: string, actual: number, max: number): FieldCause {
  // FieldValueTooMany is not in the shared reason union; kube-apiserver sends it as a reason string.
  return {
    reason: 'FieldValueTooMany' as FieldCause['reason'],
    field,
    message: `Too many: ${actual}: must have at most ${max} items`,
  };
}
