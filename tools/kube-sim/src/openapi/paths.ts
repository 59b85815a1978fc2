// The paths of a group-version document: for each resource, its collection, its items, the list across
// namespaces and its status and scale subresources, with one operation per verb it serves. kubectl apply
// looks here for the PATCH operation tagged with the kind and a `fieldValidation` parameter.
import type { JsonObject, ResourceType } from '../apimachinery/types.ts';
import { SCALE } from './meta-schemas.ts';
import { gvk, META, REF_V3 } from './names.ts';
import { DELETE_PARAMS, DELETECOLLECTION_PARAMS, LIST_PARAMS, P, WRITE_PARAMS } from './parameters.ts';

function content(schemaName: string, types = ['application/json', 'application/yaml']): JsonObject {
  const out: JsonObject = {};
  for (const t of types) out[t] = { schema: { $ref: REF_V3 + schemaName } };
  return out;
}
function ok(schemaName: string, code = '200', description = 'OK'): JsonObject {
  return { [code]: { description, content: content(schemaName) } };
}
const UNAUTHORIZED = { '401': { description: 'Unauthorized' } };

function camel(s: string): string {
  return s.replace(/[-.](\w)/g, (_m, c: string) => c.toUpperCase()).replace(/^\w/, (c) => c.toUpperCase());
}

interface OpContext {
  tag: string;
  idSuffix: string; // e.g. CoreV1NamespacedPod
  gvk: JsonObject;
  kindName: string;
  listName: string;
}

function op(
  ctx: OpContext,
  action: string,
  verbWord: string,
  description: string,
  parameters: JsonObject[],
  responses: JsonObject,
  extra: JsonObject = {},
): JsonObject {
  return {
    tags: [ctx.tag],
    description,
    operationId: `${verbWord}${ctx.idSuffix}`,
    ...(parameters.length ? { parameters } : {}),
    ...extra,
    responses: { ...responses, ...UNAUTHORIZED },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': ctx.gvk,
  };
}

/**
 * Never application/strategic-merge-patch+json, for built-ins either: see the header comment. No
 * application/apply-patch+yaml: the server does not do server-side apply.
 */
function patchBody(): JsonObject {
  const types = ['application/json-patch+json', 'application/merge-patch+json'];
  const c: JsonObject = {};
  for (const t of types) c[t] = { schema: { $ref: `${REF_V3}${META}.Patch` } };
  return { content: c, required: true };
}

/** What the operations of one resource share: its names, its paths and the parameters of its path items. */
interface Resource {
  rt: ResourceType;
  names: { kind: string; list: string };
  base: OpContext;
  /** `Core`, `Apps`, `PodsetIo`: the group in operation ids. */
  groupPart: string;
  collection: string;
  item: string;
  commonParams: JsonObject[];
  itemParams: JsonObject[];
}

function resource(rt: ResourceType, prefix: string, names: { kind: string; list: string }): Resource {
  const groupPart = rt.group === '' ? 'Core' : camel(rt.group);
  const tag = `${rt.group === '' ? 'core' : camel(rt.group).replace(/^\w/, (c) => c.toLowerCase())}_${rt.version}`;
  const scope = rt.namespaced ? 'Namespaced' : '';
  const base: OpContext = {
    tag,
    idSuffix: `${groupPart}${camel(rt.version)}${scope}${rt.kind}`,
    gvk: gvk(rt.group, rt.version, rt.kind),
    kindName: names.kind,
    listName: names.list,
  };
  const nsPart = rt.namespaced ? '/namespaces/{namespace}' : '';
  const collection = `${prefix}${nsPart}/${rt.plural}`;
  const commonParams = rt.namespaced ? [P.namespace, P.pretty] : [P.pretty];
  return {
    rt,
    names,
    base,
    groupPart,
    collection,
    item: `${collection}/{name}`,
    commonParams,
    itemParams: [P.name(rt.kind), ...commonParams],
  };
}

const body = (name: string): JsonObject => ({
  requestBody: { content: content(name, ['*/*']), required: true },
});
const deleteBody = (): JsonObject => ({
  requestBody: { content: content(`${META}.DeleteOptions`, ['*/*']) },
});

/** The collection's path item: list, create, deletecollection (only `parameters` when it serves none). */
function collectionOperations({ rt, base, names, commonParams }: Resource, verbs: Set<string>): JsonObject {
  const col: JsonObject = { parameters: commonParams };
  if (verbs.has('list')) {
    col.get = op(
      base,
      'list',
      'list',
      `list or watch objects of kind ${rt.kind}`,
      LIST_PARAMS,
      ok(names.list),
    );
  }
  if (verbs.has('create')) {
    col.post = op(
      base,
      'post',
      'create',
      `create a ${rt.kind}`,
      WRITE_PARAMS,
      { ...ok(names.kind), ...ok(names.kind, '201', 'Created'), ...ok(names.kind, '202', 'Accepted') },
      body(names.kind),
    );
  }
  if (verbs.has('deletecollection')) {
    col.delete = op(
      base,
      'deletecollection',
      'deletecollection',
      `delete collection of ${rt.kind}`,
      DELETECOLLECTION_PARAMS,
      ok(`${META}.Status`),
      deleteBody(),
    );
  }
  return col;
}

/** A namespaced resource's list across all namespaces (`/api/v1/pods`). */
function allNamespacesList({ rt, base, groupPart, names }: Resource): JsonObject {
  const allCtx = { ...base, idSuffix: `${groupPart}${camel(rt.version)}${rt.kind}ForAllNamespaces` };
  return {
    parameters: [P.pretty],
    get: op(allCtx, 'list', 'list', `list or watch objects of kind ${rt.kind}`, LIST_PARAMS, ok(names.list)),
  };
}

/** The item's path item: get, update, patch, delete (only `parameters` when it serves none). */
function itemOperations({ rt, base, names, itemParams }: Resource, verbs: Set<string>): JsonObject {
  const it: JsonObject = { parameters: itemParams };
  if (verbs.has('get')) it.get = op(base, 'get', 'read', `read the specified ${rt.kind}`, [], ok(names.kind));
  if (verbs.has('update')) {
    it.put = op(
      base,
      'put',
      'replace',
      `replace the specified ${rt.kind}`,
      WRITE_PARAMS,
      { ...ok(names.kind), ...ok(names.kind, '201', 'Created') },
      body(names.kind),
    );
  }
  if (verbs.has('patch')) {
    it.patch = op(
      base,
      'patch',
      'patch',
      `partially update the specified ${rt.kind}`,
      [...WRITE_PARAMS, P.force],
      { ...ok(names.kind), ...ok(names.kind, '201', 'Created') },
      { requestBody: patchBody() },
    );
  }
  if (verbs.has('delete')) {
    it.delete = op(
      base,
      'delete',
      'delete',
      `delete a ${rt.kind}`,
      DELETE_PARAMS,
      { ...ok(`${META}.Status`), ...ok(`${META}.Status`, '202', 'Accepted') },
      deleteBody(),
    );
  }
  return it;
}

/** A subresource's path item (status, scale): get, put and patch of `what`, whose schema is `schemaName`. */
function subresourceOperations(
  { rt, itemParams }: Resource,
  ctx: OpContext,
  schemaName: string,
  what: string,
): JsonObject {
  const pi: JsonObject = { parameters: itemParams };
  pi.get = op(ctx, 'get', 'read', `read ${what} of the specified ${rt.kind}`, [], ok(schemaName));
  pi.put = op(
    ctx,
    'put',
    'replace',
    `replace ${what} of the specified ${rt.kind}`,
    WRITE_PARAMS,
    { ...ok(schemaName), ...ok(schemaName, '201', 'Created') },
    body(schemaName),
  );
  pi.patch = op(
    ctx,
    'patch',
    'patch',
    `partially update ${what} of the specified ${rt.kind}`,
    [...WRITE_PARAMS, P.force],
    { ...ok(schemaName), ...ok(schemaName, '201', 'Created') },
    { requestBody: patchBody() },
  );
  return pi;
}

/** Adds the path items of one resource of `prefix` (`api/v1`, `apis/<g>/<v>`) to `paths`. */
export function addResourcePaths(
  paths: JsonObject,
  rt: ResourceType,
  prefix: string,
  names: { kind: string; list: string },
): void {
  const verbs = new Set(rt.verbs);
  const r = resource(rt, prefix, names);
  const col = collectionOperations(r, verbs);
  if (Object.keys(col).length > 1) paths[`/${r.collection}`] = col;
  if (rt.namespaced && verbs.has('list')) paths[`/${prefix}/${rt.plural}`] = allNamespacesList(r);
  const it = itemOperations(r, verbs);
  if (Object.keys(it).length > 1) paths[`/${r.item}`] = it;
  const { base } = r;
  if (rt.subresources.status) {
    const ctx = { ...base, idSuffix: `${base.idSuffix}Status` };
    paths[`/${r.item}/status`] = subresourceOperations(r, ctx, names.kind, 'status');
  }
  if (rt.subresources.scale) {
    const ctx = { ...base, idSuffix: `${base.idSuffix}Scale`, gvk: gvk('autoscaling', 'v1', 'Scale') };
    paths[`/${r.item}/scale`] = subresourceOperations(r, ctx, SCALE, 'scale');
  }
}
