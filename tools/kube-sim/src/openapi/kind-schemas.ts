// The schema of each kind in a group-version document: a built-in kind's top-level fields, a CRD's own
// openAPIV3Schema (metadata as a $ref to ObjectMeta, as kube-apiserver publishes it), and its list kind.
import type { JsonObject, JSONSchemaProps, ResourceType } from '../apimachinery/types.ts';
import { BUILTIN_FIELDS } from './builtin-schemas.ts';
import { gvk, META, REF_V3 } from './names.ts';
import { API_VERSION_DESC, KIND_DESC, METADATA_DESC, openObject, ref, s } from './schema-parts.ts';

export function builtinKindSchema(rt: ResourceType): JsonObject {
  const props: JsonObject = {
    apiVersion: s('string', API_VERSION_DESC),
    kind: s('string', KIND_DESC),
    metadata: { ...ref(`${META}.ObjectMeta`, METADATA_DESC), default: {} },
  };
  const special = BUILTIN_FIELDS[rt.kind];
  const isEvent = rt.kind === 'Event';
  if (special && !isEvent) Object.assign(props, special);
  else if (!isEvent) {
    props.spec = openObject(
      `Spec defines the desired state of the ${rt.kind}. (kube-sim describes only the top level.)`,
    );
    if (rt.subresources.status || rt.kind === 'Namespace') {
      props.status = openObject(
        `Status is the most recently observed state of the ${rt.kind}. Populated by the system.`,
      );
    }
  }
  const schema: JsonObject = {
    type: 'object',
    description: `${rt.kind} (${rt.group === '' ? 'core' : rt.group}/${rt.version}). kube-sim publishes the top-level fields; the server keeps every field it is given.`,
    properties: props,
    'x-kubernetes-group-version-kind': [gvk(rt.group, rt.version, rt.kind)],
  };
  // Kinds whose top-level fields we don't all list (events have many) stay open.
  if (isEvent || !special) schema['x-kubernetes-preserve-unknown-fields'] = true;
  return schema;
}

export function customKindSchema(rt: ResourceType): JsonObject {
  const base = structuredClone(
    (rt.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }) as JSONSchemaProps,
  ) as unknown as JsonObject;
  const props: JsonObject = { ...((base.properties as JsonObject | undefined) ?? {}) };
  props.apiVersion = {
    ...s('string', API_VERSION_DESC),
    ...((props.apiVersion as JsonObject | undefined) ?? {}),
  };
  props.kind = { ...s('string', KIND_DESC), ...((props.kind as JsonObject | undefined) ?? {}) };
  props.metadata = ref(`${META}.ObjectMeta`, METADATA_DESC);
  return {
    ...base,
    type: 'object',
    properties: props,
    'x-kubernetes-group-version-kind': [gvk(rt.group, rt.version, rt.kind)],
  };
}

export function listSchema(rt: ResourceType, itemName: string): JsonObject {
  return {
    type: 'object',
    description: `${rt.listKind} is a list of ${rt.kind}`,
    required: ['items'],
    properties: {
      apiVersion: s('string', API_VERSION_DESC),
      kind: s('string', KIND_DESC),
      items: {
        type: 'array',
        description: `List of ${rt.plural}.`,
        items: { $ref: REF_V3 + itemName },
      },
      metadata: ref(`${META}.ListMeta`, 'Standard list metadata.'),
    },
    'x-kubernetes-group-version-kind': [gvk(rt.group, rt.version, rt.listKind)],
  };
}
