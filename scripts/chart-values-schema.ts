// The chart's values.schema.json: Helm checks every install, upgrade, template and lint against it, so a
// wrong value (a word for a count, an address without its prefix length, an unknown state source, a key
// misspelt) is refused with the value's path before anything is rendered. Made by scripts/gen-chart.ts
// beside values.yaml, from the same defaults (the apps with replicas and resources).

type Schema = Record<string, unknown>;

/** A Kubernetes resource quantity (100m, 1.5, 512Mi, 1Gi, 2e3): a string in that form or a plain number. */
const QUANTITY: Schema = {
  type: ['string', 'number'],
  pattern: '^[+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]+)?$',
  minimum: 0,
};

const RESOURCES: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    requests: { type: 'object', additionalProperties: QUANTITY },
    limits: { type: 'object', additionalProperties: QUANTITY },
    claims: { type: 'array', items: { type: 'object' } },
  },
};

/** An IPv4 address with its prefix length (10.0.0.1/32), or an IPv6 one (fd00::1/128). */
export const CIDR_PATTERN =
  '^((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])/(3[0-2]|[12]?[0-9])$' +
  '|^[0-9a-fA-F]{0,4}(:[0-9a-fA-F]{0,4}){2,7}/(12[0-8]|1[01][0-9]|[1-9]?[0-9])$';

/** A namespace's name (a DNS-1123 label). */
const NAMESPACE: Schema = { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 63 };
/** A Secret's name (a DNS-1123 subdomain). */
const SECRET_NAME: Schema = {
  type: 'string',
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
  maxLength: 253,
};

/** The per-app values: which of them have a replica count (a Deployment's). */
export type AppDefaults = Record<string, { replicas?: number; resources?: unknown }>;

export function valuesSchema(apps: AppDefaults): Schema {
  const appSchemas = Object.fromEntries(
    Object.entries(apps).map(([app, d]) => [
      app,
      {
        type: 'object',
        additionalProperties: false,
        required: [...(d.replicas === undefined ? [] : ['replicas']), 'resources'],
        properties: {
          // A Deployment's spec.replicas is an int32; 0 stops the app.
          ...(d.replicas === undefined
            ? {}
            : { replicas: { type: 'integer', minimum: 0, maximum: 2147483647 } }),
          resources: RESOURCES,
        },
      },
    ]),
  );
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $comment:
      'GENERATED from k8s/ by `npm run gen:chart` (scripts/chart-values-schema.ts). Do not edit by hand.',
    type: 'object',
    additionalProperties: false,
    required: ['image', 'externalRedis', ...Object.keys(apps)],
    properties: {
      // Helm gives every chart `global` when it is a subchart.
      global: { type: 'object' },
      image: {
        type: 'object',
        additionalProperties: false,
        required: ['repository'],
        properties: {
          repository: { type: 'string', minLength: 1 },
          // --set image.tag=123 arrives as a number; a float would lose its form (1.10 → 1.1).
          tag: { type: ['string', 'integer'] },
        },
      },
      watchNamespaces: { type: ['array', 'null'], uniqueItems: true, items: NAMESPACE },
      namespaced: { type: 'boolean' },
      apiServerCIDRs: {
        type: ['array', 'null'],
        uniqueItems: true,
        items: { type: 'string', pattern: CIDR_PATTERN },
      },
      stateSource: { type: 'string', enum: ['', 'projection', 'api'] },
      externalRedis: {
        type: 'object',
        additionalProperties: false,
        properties: {
          enabled: { type: 'boolean' },
          secretName: SECRET_NAME,
          urlKey: { type: 'string', pattern: '^[-._a-zA-Z0-9]+$', maxLength: 253 },
          aclUsers: { type: 'boolean' },
        },
      },
      ...appSchemas,
    },
  };
}
