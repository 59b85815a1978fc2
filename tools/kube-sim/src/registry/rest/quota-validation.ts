// A ResourceQuota's spec.hard as the API server takes it: each value must decode as a quantity (else the
// body cannot be decoded at all: 400), must not be negative (422), and is stored in canonical form
// ("1000m" becomes "1"), as every Quantity the server serializes is.
import { canonicalQuantity, parseQuantity, QuantityError } from '../../apimachinery/quantity.ts';
import {
  ApiError,
  type FieldCause,
  type JsonObject,
  type KubeObject,
  type ResourceType,
} from '../../apimachinery/types.ts';

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** For a ResourceQuota about to be stored: its spec.hard checked and canonical; other kinds pass through. */
export function prepareResourceQuota(t: ResourceType, obj: KubeObject, name: string): KubeObject {
  if (t.group !== '' || t.plural !== 'resourcequotas') return obj;
  const spec = isObject(obj.spec) ? obj.spec : undefined;
  if (!spec || !isObject(spec.hard)) return obj;
  const hard: JsonObject = {};
  const causes: FieldCause[] = [];
  for (const [k, v] of Object.entries(spec.hard)) {
    // The JSON text a Quantity decodes: a string's contents, a number as written; null is zero.
    const raw =
      v === null ? '0' : typeof v === 'string' || typeof v === 'number' ? String(v) : JSON.stringify(v);
    let text: string;
    try {
      text = canonicalQuantity(raw.trim());
    } catch (err) {
      throw new ApiError(
        400,
        'BadRequest',
        `ResourceQuota in version "v1" cannot be handled as a ResourceQuota: ${
          err instanceof QuantityError ? err.message : String(err)
        }`,
      );
    }
    if (parseQuantity(text).nanos < 0n) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: `spec.hard[${k}]`,
        message: `Invalid value: "${text}": must be greater than or equal to 0`,
      });
    }
    hard[k] = text;
  }
  if (causes.length) {
    const parts = causes.map((c) => `${c.field}: ${c.message}`);
    const text = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
    throw new ApiError(422, 'Invalid', `ResourceQuota "${name}" is invalid: ${text}`, {
      causes,
      details: { name, group: '', kind: 'ResourceQuota' },
    });
  }
  return { ...obj, spec: { ...spec, hard } };
}
