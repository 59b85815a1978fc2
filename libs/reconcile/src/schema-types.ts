// Type-level derivation of TypeScript types from a CRD OpenAPI v3 schema (JSONSchemaProps shape) written
// `as const`. This is what makes the PodSet type and the CRD's openAPIV3Schema one source: the type is
// computed from the very object the CRD YAML is generated from.

/** The subset of apiextensions.k8s.io/v1 JSONSchemaProps the PodSet schema uses. */
export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Readonly<Record<string, JSONSchemaProps>>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: readonly string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  enum?: readonly (string | number | boolean)[];
  default?: unknown;
  nullable?: boolean;
  anyOf?: readonly JSONSchemaProps[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: readonly string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-validations'?: readonly { rule: string; message?: string; fieldPath?: string }[];
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type RequiredKeys<S> = S extends { required: readonly (infer R)[] } ? R : never;

type PropsOf<S> = S extends { properties: infer P }
  ? { -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromSchema<P[K]> } & {
      -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: FromSchema<P[K]>;
    }
  : unknown;

type AdditionalOf<S> = S extends { additionalProperties: infer A }
  ? A extends JSONSchemaProps
    ? { [key: string]: FromSchema<A> }
    : unknown
  : unknown;

type PreservedOf<S> = S extends { 'x-kubernetes-preserve-unknown-fields': true }
  ? { [key: string]: unknown }
  : unknown;

type ObjectOf<S> = Simplify<PropsOf<S> & AdditionalOf<S> & PreservedOf<S>>;

/**
 * The TypeScript type of values valid under schema S. Properties are optional unless listed in
 * `required` (a defaulted field may be absent in what a caller passes; the planner applies the same
 * defaults, read from the schema at runtime). `x-kubernetes-preserve-unknown-fields` adds an index
 * signature of `unknown`.
 */
export type FromSchema<S> = S extends { enum: readonly (infer E)[] }
  ? E
  : S extends { 'x-kubernetes-int-or-string': true }
    ? number | string
    : S extends { type: 'object' }
      ? ObjectOf<S>
      : S extends { type: 'array'; items: infer I }
        ? FromSchema<I>[]
        : S extends { type: 'string' }
          ? string
          : S extends { type: 'integer' | 'number' }
            ? number
            : S extends { type: 'boolean' }
              ? boolean
              : unknown;
