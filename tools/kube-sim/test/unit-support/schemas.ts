// What the unit tests of CRD schemas share (src/apiextensions: schema, defaulting, pruning, crd, cel-*): the
// PodSet CRD and its schema, a PodSet to validate, the causes as text, a schema exercising each keyword, a CEL
// rule, and fast-check arbitraries for values that fit a schema and for random structural schemas. Apart from
// test/support, whose helpers use @podset/testkit: the unit tests in src/ must not reach a package that
// imports kube-sim back.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { parse } from 'yaml';
import { crdResourceTypes, validateAgainstSchema } from '../../src/apiextensions/schema.ts';
import type {
  FieldCause,
  Json,
  JsonObject,
  JSONSchemaProps,
  KubeObject,
} from '../../src/apimachinery/types.ts';

const crdPath = fileURLToPath(new URL('../../../../crds/podset.yaml', import.meta.url));
export const podsetCrd = parse(readFileSync(crdPath, 'utf8')) as KubeObject;
export const podsetSchema = crdResourceTypes(podsetCrd)[0]?.schema as JSONSchemaProps;

export function podset(spec: Json): Json {
  return {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name: 'web', namespace: 'default' },
    spec,
  };
}
export const validSpec = {
  replicas: 3,
  template: { spec: { containers: [{ name: 'app', image: 'nginx' }] } },
};

export function causesOf(value: Json, schema = podsetSchema): FieldCause[] {
  return validateAgainstSchema(value, schema);
}
export function msgs(causes: FieldCause[]): string[] {
  return causes.map((c) => `${c.field}: ${c.message}`);
}
/** What a real server adds after a blocking cause when the schema has CEL rules (the PodSet CRD may have some). */
const RULES_NOT_CHECKED =
  '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
/** The schema's own causes, without that note: the wording tests are about kube-openapi's messages. */
export function structuralMsgs(value: Json): string[] {
  return msgs(causesOf(value)).filter((m) => m !== RULES_NOT_CHECKED);
}

/** One property per keyword the validation, defaulting and pruning tests try. */
export const misc: JSONSchemaProps = {
  type: 'object',
  required: ['a'],
  properties: {
    a: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1.5, exclusiveMaximum: true },
    n: { type: 'string', nullable: true },
    ios: { 'x-kubernetes-int-or-string': true },
    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    map: { type: 'object', additionalProperties: { type: 'integer' }, maxProperties: 2 },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2, 'x-kubernetes-list-type': 'set' },
    e: { type: 'integer', enum: [1, 2] },
    big: { type: 'number', maximum: 1e6 },
    emb: {
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } },
    },
  },
};

export function crdWith(patch: (spec: JsonObject) => void): KubeObject {
  const crd = structuredClone(podsetCrd);
  patch(crd.spec as JsonObject);
  return crd;
}
export function version0(spec: JsonObject): JsonObject {
  return (spec.versions as JsonObject[])[0] as JsonObject;
}
export function schemaOf(spec: JsonObject): JsonObject {
  return (version0(spec).schema as JsonObject).openAPIV3Schema as JsonObject;
}

// Values generated to fit a schema, for the property tests: they validate cleanly; pruning and defaulting are
// idempotent on them.
export function arbFor(s: JSONSchemaProps, depth = 0): fc.Arbitrary<Json> {
  if (s.nullable) return fc.oneof(fc.constant(null), arbFor({ ...s, nullable: false }, depth));
  if (s['x-kubernetes-int-or-string']) {
    // minimum applies to the int, pattern to the string (as the API server applies them)
    return fc.oneof(
      fc.integer({ min: s.minimum ?? -1000, max: 1000 }),
      s.pattern ? fc.stringMatching(new RegExp(s.pattern)) : fc.string(),
    );
  }
  if (s.enum) return fc.constantFrom(...s.enum);
  switch (s.type) {
    case 'integer': {
      const max = s.maximum ?? (s.format === 'int32' ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER);
      const min = s.minimum ?? (s.format === 'int32' ? -(2 ** 31) : Number.MIN_SAFE_INTEGER);
      return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
    }
    case 'number':
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        min: s.minimum ?? -1e9,
        max: s.maximum ?? 1e9,
      });
    case 'boolean':
      return fc.boolean();
    case 'string': {
      if (s.format === 'date-time') return fc.constant('2026-01-02T03:04:05Z');
      if (s.pattern) {
        const max = s.maxLength ?? 63;
        const min = s.minLength ?? 0;
        return fc.stringMatching(new RegExp(s.pattern)).filter((x) => x.length <= max && x.length >= min);
      }
      return fc.string({ minLength: s.minLength ?? 0, maxLength: s.maxLength ?? 20 });
    }
    case 'array': {
      const items = s.items ? arbFor(s.items, depth + 1) : fc.constant(null);
      const arr = fc.array(items, { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 3, 3) });
      if (s['x-kubernetes-list-type'] === 'map') {
        const keys = s['x-kubernetes-list-map-keys'] ?? [];
        return arr
          .map((xs) => {
            const seen = new Set<string>();
            return xs.filter((x) => {
              const k = JSON.stringify(keys.map((key) => (x as JsonObject)[key] ?? null));
              if (seen.has(k)) return false;
              seen.add(k);
              return true;
            });
          })
          .filter((xs) => xs.length >= (s.minItems ?? 0));
      }
      return arr;
    }
    default: {
      if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        return fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), arbFor(s.additionalProperties, depth + 1), {
          maxKeys: 3,
        }) as fc.Arbitrary<Json>;
      }
      const props = s.properties ?? {};
      const req = new Set(s.required ?? []);
      const record: Record<string, fc.Arbitrary<Json>> = {};
      for (const [k, p] of Object.entries(props)) {
        // Deep down, only the required keys (a value without one would not fit the schema).
        if (k === 'metadata' || (depth > 6 && !req.has(k))) continue;
        record[k] = arbFor(p, depth + 1);
      }
      const requiredKeys = Object.keys(record).filter((k) => req.has(k));
      return fc.record(record, { requiredKeys }) as fc.Arbitrary<Json>;
    }
  }
}

/**
 * The PodSet's CEL rules (x-kubernetes-validations), written out: progressDeadlineSeconds (default 600) is
 * above minReadySeconds (default 0), a strategy of type Recreate has no rollingUpdate, and maxSurge and
 * maxUnavailable are not both zero. (The rule against the operator's own template labels needs no twin:
 * generated label keys are never theirs.)
 */
export function keepsPodSetRules(v: Json): boolean {
  const spec = isObj(v) ? v.spec : undefined;
  const num = (x: Json | undefined, d: number) => (typeof x === 'number' ? x : d);
  if (isObj(spec) && num(spec.progressDeadlineSeconds, 600) <= num(spec.minReadySeconds, 0)) return false;
  const strategy = isObj(spec) ? spec.strategy : undefined;
  if (!isObj(strategy)) return true;
  if (strategy.type === 'Recreate' && strategy.rollingUpdate !== undefined) return false;
  const ru = strategy.rollingUpdate;
  const zero = (x: Json | undefined) => x === 0 || x === '0%';
  return !(isObj(ru) && zero(ru.maxSurge) && zero(ru.maxUnavailable));
}
/** Values that fit the PodSet schema, rules included. */
export const podsetValue = () => arbFor(podsetSchema).filter(keepsPodSetRules);

export function isObj(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Random structural schemas: the CRD validator accepts them, values generated for them validate, pruning keeps them.
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
function defined(o: Record<string, unknown>): JSONSchemaProps {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as JSONSchemaProps;
}
const leafSchema: fc.Arbitrary<JSONSchemaProps> = fc.oneof(
  fc
    .record({
      min: opt(fc.integer({ min: -100, max: 0 })),
      max: opt(fc.integer({ min: 0, max: 100 })),
      format: opt(fc.constantFrom('int32', 'int64')),
      nullable: opt(fc.boolean()),
    })
    .map((r) =>
      defined({ type: 'integer', minimum: r.min, maximum: r.max, format: r.format, nullable: r.nullable }),
    ),
  fc
    .record({
      min: opt(fc.double({ min: -10, max: 0, noNaN: true })),
      max: opt(fc.double({ min: 0, max: 10, noNaN: true })),
    })
    .map((r) => defined({ type: 'number', minimum: r.min, maximum: r.max })),
  fc
    .record({
      min: opt(fc.integer({ min: 0, max: 3 })),
      max: opt(fc.integer({ min: 3, max: 10 })),
      nullable: opt(fc.boolean()),
    })
    .map((r) => defined({ type: 'string', minLength: r.min, maxLength: r.max, nullable: r.nullable })),
  fc
    .uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 })
    .map((e) => ({ type: 'string', enum: e }) as JSONSchemaProps),
  fc.constant({ type: 'boolean' } as JSONSchemaProps),
  fc.constant({ 'x-kubernetes-int-or-string': true } as JSONSchemaProps),
);
const { node: schemaArb } = fc.letrec<{
  node: JSONSchemaProps;
  obj: JSONSchemaProps;
  arr: JSONSchemaProps;
  map: JSONSchemaProps;
}>((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leafSchema, tie('obj'), tie('arr'), tie('map')),
  obj: fc
    .dictionary(fc.stringMatching(/^[a-z]{1,6}$/), tie('node'), { maxKeys: 4 })
    .chain((props) =>
      fc
        .subarray(Object.keys(props))
        .map((required) => defined({ type: 'object', properties: props, required })),
    ),
  arr: fc
    .record({
      items: tie('node'),
      min: opt(fc.integer({ min: 0, max: 2 })),
      max: opt(fc.integer({ min: 2, max: 4 })),
    })
    .map((r) => defined({ type: 'array', items: r.items, minItems: r.min, maxItems: r.max })),
  map: tie('node').map((n) => ({ type: 'object', additionalProperties: n }) as JSONSchemaProps),
}));
export const rootSchemaArb = fc
  .dictionary(
    fc.stringMatching(/^[a-z]{1,6}$/).filter((k) => k !== 'metadata' && k !== 'kind'),
    schemaArb,
    {
      maxKeys: 4,
    },
  )
  .map((properties) => ({ type: 'object', properties }) as JSONSchemaProps);

/** A CEL rule as a Deployment-like schema has it: maxSurge and maxUnavailable may not both be 0 (int or "0%"). */
export const BOTH_ZERO =
  "!((type(self.maxSurge) == int ? self.maxSurge == 0 : self.maxSurge == '0%') && " +
  "(type(self.maxUnavailable) == int ? self.maxUnavailable == 0 : self.maxUnavailable == '0%'))";
