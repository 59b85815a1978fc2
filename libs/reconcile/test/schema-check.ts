// Test helper: a small structural-schema validator and defaulter for the subset of JSONSchemaProps the
// PodSet schema uses, with the API server's semantics (defaults applied top-down, recursing into
// defaulted values; list-type map keys unique). Used to check examples and typed fixtures at runtime.
import type { JSONSchemaProps } from '../src/schema-types.ts';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every violation as `path: message`, paths like `spec.template.spec.containers[0].name`. */
export function validate(value: unknown, schema: JSONSchemaProps, path = ''): string[] {
  const at = path === '' ? '<root>' : path;
  const errors: string[] = [];
  if (value === null || value === undefined) {
    return schema.nullable ? [] : [`${at}: must not be null`];
  }
  switch (schema.type) {
    case 'object': {
      if (!isObject(value)) return [`${at}: must be an object`];
      for (const key of schema.required ?? []) {
        if (!(key in value)) errors.push(`${path === '' ? key : `${path}.${key}`}: Required value`);
      }
      for (const [key, v] of Object.entries(value)) {
        const child = path === '' ? key : `${path}.${key}`;
        const prop = schema.properties?.[key];
        if (prop) errors.push(...validate(v, prop, child));
        else if (isObject(schema.additionalProperties))
          errors.push(...validate(v, schema.additionalProperties, child));
        else if (
          !schema['x-kubernetes-preserve-unknown-fields'] &&
          schema.properties &&
          path !== '' &&
          path !== 'metadata'
        )
          errors.push(`${child}: unknown field`);
      }
      break;
    }
    case 'array': {
      if (!Array.isArray(value)) return [`${at}: must be an array`];
      if (schema.minItems !== undefined && value.length < schema.minItems)
        errors.push(`${at}: must have at least ${schema.minItems} items`);
      if (schema.maxItems !== undefined && value.length > schema.maxItems)
        errors.push(`${at}: must have at most ${schema.maxItems} items`);
      value.forEach((item, i) => {
        if (schema.items) errors.push(...validate(item, schema.items, `${path}[${i}]`));
      });
      if (schema['x-kubernetes-list-type'] === 'map') {
        const keys = schema['x-kubernetes-list-map-keys'] ?? [];
        const seen = new Set<string>();
        value.forEach((item, i) => {
          if (!isObject(item)) return;
          const k = JSON.stringify(keys.map((key) => item[key]));
          if (seen.has(k)) errors.push(`${path}[${i}]: Duplicate value`);
          seen.add(k);
        });
      }
      break;
    }
    case 'string': {
      if (typeof value !== 'string') return [`${at}: must be a string`];
      if (schema.minLength !== undefined && value.length < schema.minLength)
        errors.push(`${at}: must be at least ${schema.minLength} characters`);
      if (schema.maxLength !== undefined && value.length > schema.maxLength)
        errors.push(`${at}: Too long: may not be longer than ${schema.maxLength}`);
      if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value))
        errors.push(`${at}: must match ${schema.pattern}`);
      if (schema.format === 'date-time' && Number.isNaN(Date.parse(value)))
        errors.push(`${at}: must be a date-time`);
      break;
    }
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || (schema.type === 'integer' && !Number.isInteger(value)))
        return [`${at}: must be of type ${schema.type}`];
      if (schema.minimum !== undefined && value < schema.minimum)
        errors.push(`${at}: should be greater than or equal to ${schema.minimum}`);
      if (schema.maximum !== undefined && value > schema.maximum)
        errors.push(`${at}: should be less than or equal to ${schema.maximum}`);
      break;
    }
    case 'boolean':
      if (typeof value !== 'boolean') return [`${at}: must be a boolean`];
      break;
    default:
      break;
  }
  if (schema.enum && !schema.enum.includes(value as string | number | boolean))
    errors.push(`${at}: Unsupported value: ${JSON.stringify(value)}`);
  return errors;
}

/** A copy with defaults applied as the API server does. */
export function applyDefaults(value: unknown, schema: JSONSchemaProps): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    return items ? value.map((v) => applyDefaults(v, items)) : structuredClone(value);
  }
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const prop = schema.properties?.[k];
    const add = schema.additionalProperties;
    out[k] = prop ? applyDefaults(v, prop) : isObject(add) ? applyDefaults(v, add) : structuredClone(v);
  }
  for (const [k, prop] of Object.entries(schema.properties ?? {})) {
    if (!(k in out) && prop.default !== undefined)
      out[k] = applyDefaults(structuredClone(prop.default), prop);
  }
  return out;
}
