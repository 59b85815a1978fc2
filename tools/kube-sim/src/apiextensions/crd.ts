// CustomResourceDefinition (apiextensions.k8s.io/v1): validation of the CRD object itself (names, versions,
// structural schemas, subresources, printer columns) and its registration as ResourceTypes.
// Paths and messages follow kube-apiserver's (`spec.versions[0].schema.openAPIV3Schema.properties[spec].type`).
import type {
  FieldCause,
  Json,
  JsonObject,
  JSONSchemaProps,
  KubeObject,
  PrinterColumn,
  ResourceType,
} from '../apimachinery/types.ts';
import { duplicate, forbidden, invalid, notSupported, required } from '../apimachinery/field-errors.ts';
import { childPath, validateValue } from './structural.ts';
import { deepFreeze, isObject } from '../apimachinery/json.ts';
import { pruneValue } from './pruning.ts';
import { validateRuleDefinitions } from './cel-rule-definitions.ts';

const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

export const CRD_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const PRINTER_COLUMN_TYPES = ['integer', 'number', 'string', 'boolean', 'date'];

interface CrdNames {
  plural?: Json;
  singular?: Json;
  kind?: Json;
  listKind?: Json;
  shortNames?: Json;
  categories?: Json;
}

function str(v: Json | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
function obj(v: Json | undefined): JsonObject | undefined {
  return isObject(v) ? v : undefined;
}
function strList(v: Json | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function specOf(crd: KubeObject): JsonObject {
  return obj(crd.spec as Json) ?? {};
}

/**
 * Returns a copy of the CRD with the defaults the API server fills in: names.singular (lower-case kind),
 * names.listKind (kind + "List"), conversion.strategy None, and status (acceptedNames, stored versions) left alone.
 */
export function applyCrdDefaults(crd: KubeObject): KubeObject {
  const copy = structuredClone(crd);
  const spec = obj(copy.spec as Json);
  if (!spec) return copy;
  const names = obj(spec.names);
  if (names) {
    const kind = str(names.kind);
    if (kind && !str(names.singular)) names.singular = kind.toLowerCase();
    if (kind && !str(names.listKind)) names.listKind = `${kind}List`;
  }
  if (!obj(spec.conversion)) spec.conversion = { strategy: 'None' };
  return copy;
}

/** Validates a CustomResourceDefinition object itself (names, versions, exactly one storage version, structural schemas). */
export function validateCrd(crd: KubeObject): FieldCause[] {
  const out: FieldCause[] = [];
  const spec = obj(crd.spec as Json);
  if (!spec) {
    out.push(required('spec'));
    return out;
  }
  const group = str(spec.group);
  const names: CrdNames = obj(spec.names) ?? {};
  const plural = str(names.plural);

  // metadata.name
  if (group && plural && crd.metadata?.name !== `${plural}.${group}`) {
    out.push(invalid('metadata.name', crd.metadata?.name ?? '', 'must be spec.names.plural+"."+spec.group'));
  }

  // group
  if (!group) out.push(required('spec.group'));
  else if (group.length > 253 || !DNS1123_SUBDOMAIN.test(group))
    out.push(invalid('spec.group', group, DNS1123_SUBDOMAIN_MSG));
  else if (!group.includes('.'))
    out.push(invalid('spec.group', group, 'should be a domain with at least one dot'));

  // scope
  const scope = spec.scope;
  if (scope === undefined || scope === '') out.push(required('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') {
    out.push(notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));
  }

  validateNames(names, out);
  validateVersions(spec, out);

  if (spec.preserveUnknownFields === true) {
    out.push(
      invalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'),
    );
  }
  return out;
}

function validateNames(names: CrdNames, out: FieldCause[]): void {
  const p = 'spec.names';
  const lowerName = (field: string, v: Json | undefined, requiredField: boolean) => {
    const s = str(v);
    if (s === undefined || s === '') {
      if (requiredField) out.push(required(`${p}.${field}`));
      return;
    }
    if (s.length > 63 || !DNS1123_LABEL.test(s)) out.push(invalid(`${p}.${field}`, s, DNS1123_LABEL_MSG));
  };
  const kindName = (field: string, v: Json | undefined, requiredField: boolean) => {
    const s = str(v);
    if (s === undefined || s === '') {
      if (requiredField) out.push(required(`${p}.${field}`));
      return;
    }
    if (s.length > 63 || !DNS1035.test(s.toLowerCase())) {
      out.push(
        invalid(`${p}.${field}`, s, `may have mixed case, but should otherwise match: ${DNS1035_MSG}`),
      );
    }
  };
  lowerName('plural', names.plural, true);
  lowerName('singular', names.singular, false);
  kindName('kind', names.kind, true);
  kindName('listKind', names.listKind, false);
  if (str(names.kind) && str(names.listKind) === str(names.kind)) {
    out.push(invalid(`${p}.listKind`, str(names.listKind) ?? '', 'kind and listKind cannot be the same'));
  }
  strList(names.shortNames).forEach((s, i) => {
    if (s.length > 63 || !DNS1123_LABEL.test(s))
      out.push(invalid(`${p}.shortNames[${i}]`, s, DNS1123_LABEL_MSG));
  });
  strList(names.categories).forEach((s, i) => {
    if (s.length > 63 || !DNS1123_LABEL.test(s))
      out.push(invalid(`${p}.categories[${i}]`, s, DNS1123_LABEL_MSG));
  });
}

function validateVersions(spec: JsonObject, out: FieldCause[]): void {
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) {
    out.push(required('spec.versions', 'must have exactly one version marked as storage version'));
    return;
  }
  const storageCount = versions.filter((v) => isObject(v) && v.storage === true).length;
  const names = versions.map((v) => (isObject(v) ? (str(v.name) ?? '') : ''));
  if (storageCount !== 1) {
    out.push(invalid('spec.versions', names, 'must have exactly one version marked as storage version'));
  }
  if (!versions.some((v) => isObject(v) && v.served === true)) {
    out.push(invalid('spec.versions', names, 'must have at least one version marked as served'));
  }
  const seen = new Set<string>();
  versions.forEach((raw, i) => {
    const vp = `spec.versions[${i}]`;
    const v = obj(raw);
    if (!v) {
      out.push(invalid(vp, raw, 'must be an object'));
      return;
    }
    const name = str(v.name);
    if (!name) out.push(required(`${vp}.name`));
    else if (name.length > 63 || !DNS1035.test(name)) out.push(invalid(`${vp}.name`, name, DNS1035_MSG));
    else if (seen.has(name)) out.push(duplicate(`${vp}.name`, name));
    if (name) seen.add(name);
    if (typeof v.served !== 'boolean') out.push(required(`${vp}.served`));
    if (typeof v.storage !== 'boolean') out.push(required(`${vp}.storage`));

    const schema = obj(obj(v.schema)?.openAPIV3Schema);
    if (!schema) out.push(required(`${vp}.schema.openAPIV3Schema`, 'schemas are required'));
    else validateStructural(schema as JSONSchemaProps, `${vp}.schema.openAPIV3Schema`, out);

    validateSubresources(obj(v.subresources), `${vp}.subresources`, out);
    validatePrinterColumns(v.additionalPrinterColumns, `${vp}.additionalPrinterColumns`, out);
  });
}

const TYPES = ['object', 'array', 'string', 'integer', 'number', 'boolean'];

/** Structural-schema rules (a type at every level, no additionalProperties with properties, ...) and valid defaults. */
function validateStructural(root: JSONSchemaProps, path: string, out: FieldCause[]): void {
  if (!root.type) out.push(required(`${path}.type`, 'must not be empty at the root'));
  else if (root.type !== 'object') out.push(invalid(`${path}.type`, root.type, 'must be object at the root'));
  const meta = root.properties?.metadata;
  if (meta) {
    const mp = `${path}.properties[metadata]`;
    if (meta.type !== undefined && meta.type !== 'object')
      out.push(invalid(`${mp}.type`, meta.type, 'must be object'));
    const extra = Object.keys(meta).filter((k) => k !== 'type' && k !== 'properties' && k !== 'description');
    const extraProps = Object.keys(meta.properties ?? {}).filter((k) => k !== 'name' && k !== 'generateName');
    if (extra.length > 0 || extraProps.length > 0) {
      out.push(
        forbidden(
          mp,
          'must not specify anything other than name and generateName, but metadata is implicitly specified',
        ),
      );
    }
  }
  for (const key of ['apiVersion', 'kind'] as const) {
    const s = root.properties?.[key];
    if (s?.type !== undefined && s.type !== 'string') {
      out.push(invalid(`${path}.properties[${key}].type`, s.type, 'must be string'));
    }
  }
  walkSchema(root, path, '', true, out);
}

/**
 * The structural-schema rules of one node and its children. `uncorrelatable`: the schema path of the nearest
 * enclosing list that is not a map list (no oldSelf within).
 */
function walkSchema(
  s: JSONSchemaProps,
  path: string,
  dataPath: string,
  isRoot: boolean,
  out: FieldCause[],
  uncorrelatable?: string,
): void {
  if (!isObject(s as unknown as Json)) {
    out.push(invalid(path, s as unknown as Json, 'must be a schema object'));
    return;
  }
  checkNodeType(s, path, isRoot, out);
  checkNodeShape(s, path, out);
  if (s.default !== undefined) checkDefault(s, s.default, path, dataPath, isRoot, out);
  out.push(...validateRuleDefinitions(s, path, uncorrelatable));
  for (const [key, child] of Object.entries(s.properties ?? {})) {
    if (isRoot && key === 'metadata') continue;
    walkSchema(child, `${path}.properties[${key}]`, childPath(dataPath, key), false, out, uncorrelatable);
  }
  if (isObject(s.additionalProperties as Json)) {
    walkSchema(
      s.additionalProperties as JSONSchemaProps,
      `${path}.additionalProperties`,
      childPath(dataPath, '*'),
      false,
      out,
      uncorrelatable,
    );
  }
  if (s.items) {
    const within = s['x-kubernetes-list-type'] === 'map' ? uncorrelatable : (uncorrelatable ?? path);
    walkSchema(s.items, `${path}.items`, `${dataPath}[*]`, false, out, within);
  }
}

/** `type` is set where it must be, and agrees with int-or-string, preserve-unknown-fields and embedded resources. */
function checkNodeType(s: JSONSchemaProps, path: string, isRoot: boolean, out: FieldCause[]): void {
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'];
  if (s.type !== undefined && !TYPES.includes(s.type)) {
    out.push(notSupported(`${path}.type`, s.type, TYPES));
  }
  if (!isRoot && !s.type && !intOrString && preserve !== true) {
    out.push(required(`${path}.type`, 'must not be empty for specified object fields'));
  }
  if (intOrString && s.type) {
    out.push(invalid(`${path}.type`, s.type, 'must be empty if x-kubernetes-int-or-string is true'));
  }
  if (preserve === false) {
    out.push(invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  }
  if (s['x-kubernetes-embedded-resource'] === true) {
    if (s.type !== 'object') {
      out.push(
        invalid(`${path}.type`, s.type ?? '', 'must be object if x-kubernetes-embedded-resource is true'),
      );
    }
    if (!s.properties && preserve !== true) {
      out.push(
        required(
          `${path}.properties`,
          'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
        ),
      );
    }
  }
}

/** items only on arrays, properties only on objects and not with additionalProperties, map lists keyed objects. */
function checkNodeShape(s: JSONSchemaProps, path: string, out: FieldCause[]): void {
  if (s.type === 'array' && !s.items) out.push(required(`${path}.items`, 'must be specified'));
  if (s.items && s.type !== 'array' && s.type !== undefined) {
    out.push(forbidden(`${path}.items`, 'must be empty if type is not array'));
  }
  if (s.properties && s.additionalProperties !== undefined) {
    out.push(
      forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'),
    );
  }
  if (s.additionalProperties === false) {
    out.push(forbidden(`${path}.additionalProperties`, 'additionalProperties cannot be set to false'));
  }
  if (
    (s.properties || isObject(s.additionalProperties as Json)) &&
    s.type !== undefined &&
    s.type !== 'object'
  ) {
    out.push(forbidden(`${path}.properties`, 'must be empty if type is not object'));
  }
  // A pattern JS cannot compile (RE2 and JS differ) is accepted and then not enforced, rather than rejecting a
  // CRD a real API server would take.
  if (s['x-kubernetes-list-type'] === 'map') {
    if (!s['x-kubernetes-list-map-keys']?.length) {
      out.push(
        required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'),
      );
    }
    if (s.items && s.items.type !== 'object') {
      out.push(
        invalid(
          `${path}.items.type`,
          s.items.type ?? '',
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    }
  }
}

/** A default is not at the root, has no field the schema prunes, and validates against its own schema. */
function checkDefault(
  s: JSONSchemaProps,
  value: Json,
  path: string,
  dataPath: string,
  isRoot: boolean,
  out: FieldCause[],
): void {
  if (isRoot) {
    out.push(forbidden(`${path}.default`, 'must not be set at the root'));
    return;
  }
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const unknown = pruneValue(value, s, { root: false }).unknownFields.map((u) =>
    u.startsWith('[') ? `${dataPath}${u}` : childPath(dataPath, u),
  );
  if (unknown.length > 0) {
    out.push(invalid(`${path}.default`, value, `must not have unknown fields, got: [${unknown.join(' ')}]`));
  }
  for (const c of validateValue(value, s, { root: embedded, path: dataPath })) {
    out.push({ ...c, field: `${path}.default` });
  }
}

function validateSubresources(sub: JsonObject | undefined, path: string, out: FieldCause[]): void {
  if (!sub) return;
  const scale = obj(sub.scale);
  if (!scale) return;
  const sp = `${path}.scale`;
  const check = (field: string, under: string[], requiredField: boolean, what: string) => {
    const v = scale[field];
    if (v === undefined || v === '') {
      if (requiredField) out.push(required(`${sp}.${field}`));
      return;
    }
    if (
      typeof v !== 'string' ||
      !under.some((u) => v.startsWith(`${u}.`)) ||
      !/^(\.[A-Za-z0-9_-]+)+$/.test(v)
    ) {
      out.push(invalid(`${sp}.${field}`, v, `should be a json path under ${what}`));
    }
  };
  check('specReplicasPath', ['.spec'], true, '.spec');
  check('statusReplicasPath', ['.status'], true, '.status');
  check('labelSelectorPath', ['.spec', '.status'], false, 'either .spec or .status');
}

function validatePrinterColumns(cols: Json | undefined, path: string, out: FieldCause[]): void {
  if (cols === undefined || cols === null) return;
  if (!Array.isArray(cols)) {
    out.push(invalid(path, cols, 'must be a list'));
    return;
  }
  cols.forEach((raw, i) => {
    const p = `${path}[${i}]`;
    const c = obj(raw);
    if (!c) {
      out.push(invalid(p, raw, 'must be an object'));
      return;
    }
    if (!str(c.name)) out.push(required(`${p}.name`));
    if (c.type === undefined || c.type === '') out.push(required(`${p}.type`));
    else if (!PRINTER_COLUMN_TYPES.includes(String(c.type)))
      out.push(notSupported(`${p}.type`, c.type, PRINTER_COLUMN_TYPES));
    const jp = c.jsonPath;
    if (jp === undefined || jp === '') out.push(required(`${p}.jsonPath`));
    else if (typeof jp !== 'string' || !jp.startsWith('.')) {
      out.push(invalid(`${p}.jsonPath`, jp, 'must be a simple json path starting with .'));
    }
    if (c.priority !== undefined && (typeof c.priority !== 'number' || c.priority < 0)) {
      out.push(invalid(`${p}.priority`, c.priority, 'must be non-negative'));
    }
  });
}

/** One ResourceType per served version of a valid CRD. */
export function crdResourceTypes(crd: KubeObject): ResourceType[] {
  const spec = specOf(applyCrdDefaults(crd));
  const names: CrdNames = obj(spec.names) ?? {};
  const kind = str(names.kind) ?? '';
  const group = str(spec.group) ?? '';
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  const out: ResourceType[] = [];
  for (const raw of versions) {
    const v = obj(raw);
    if (!v || v.served !== true) continue;
    const subresources: ResourceType['subresources'] = {};
    const sub = obj(v.subresources);
    if (sub && obj(sub.status) !== undefined) subresources.status = true;
    const scale = sub ? obj(sub.scale) : undefined;
    if (scale) {
      subresources.scale = {
        specReplicasPath: str(scale.specReplicasPath) ?? '.spec.replicas',
        statusReplicasPath: str(scale.statusReplicasPath) ?? '.status.replicas',
        ...(str(scale.labelSelectorPath)
          ? { labelSelectorPath: str(scale.labelSelectorPath) as string }
          : {}),
      };
    }
    const schema = obj(obj(v.schema)?.openAPIV3Schema) as JSONSchemaProps | undefined;
    const cols = Array.isArray(v.additionalPrinterColumns)
      ? (v.additionalPrinterColumns.filter(isObject) as unknown as PrinterColumn[])
      : undefined;
    const rt: ResourceType = {
      group,
      version: str(v.name) ?? '',
      kind,
      listKind: str(names.listKind) ?? `${kind}List`,
      plural: str(names.plural) ?? '',
      singular: str(names.singular) ?? kind.toLowerCase(),
      namespaced: spec.scope !== 'Cluster',
      shortNames: strList(names.shortNames),
      categories: strList(names.categories),
      verbs: [...CRD_VERBS],
      subresources,
      storage: v.storage === true,
    };
    // Frozen: every write of the resource walks it, and what is worked out from it once can be kept.
    if (schema) rt.schema = deepFreeze(schema);
    if (cols) rt.printerColumns = cols;
    out.push(rt);
  }
  return out;
}
