// OpenAPI documents, as kubectl 1.32 reads them:
// - `/openapi/v3` (index) and `/openapi/v3/<api/v1 | apis/g/v>`: kubectl apply's field-validation check
//   (cli-runtime's QueryParamVerifierV3) looks, in the group-version document, for the PATCH operation tagged with
//   the object's x-kubernetes-group-version-kind and a `fieldValidation` query parameter; when found, kubectl
//   leaves validation to the server instead of downloading /openapi/v2 as protobuf. `kubectl explain` finds the
//   schema in components.schemas by its x-kubernetes-group-version-kind.
// - CRD kinds carry their openAPIV3Schema (metadata as a $ref to ObjectMeta), as kube-apiserver publishes them.
// - Built-in kinds carry a short, honest schema: the top-level fields, each open below (we don't describe all of
//   Kubernetes). Their PATCH operations deliberately do not list application/strategic-merge-patch+json: with it,
//   kubectl apply would compute strategic merge patches from these schemas (which have no merge keys) and warn;
//   without it, kubectl computes them from its compiled-in types, which is what it does against a real cluster.
//   The server still accepts strategic merge patches.
// - `/openapi/v2`: a swagger 2.0 JSON rendering of the same, for tools that want it (v2.ts).
// This file serves the documents; the schema data they are built from is in meta-schemas.ts,
// builtin-schemas.ts and parameters.ts, the paths in paths.ts, the kinds' schemas in kind-schemas.ts.
import { createHash } from 'node:crypto';
import type { Json, JsonObject, ResourceType } from '../apimachinery/types.ts';
import { builtinKindSchema, customKindSchema, listSchema } from './kind-schemas.ts';
import { META_SCHEMAS, SCALE, SCALE_SCHEMA } from './meta-schemas.ts';
import { BEARER_TOKEN, definitionName, groupVersionPath, isBuiltinType, KUBE_VERSION } from './names.ts';
import { addResourcePaths } from './paths.ts';
import { v2Document } from './v2.ts';

export { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_ASKED, OPENAPI_V2_PROTOBUF_DOCUMENT } from './v2.ts';

function typesOf(types: ResourceType[], group: string, version: string): ResourceType[] {
  return types
    .filter((t) => t.group === group && t.version === version)
    .sort((a, b) => (a.plural < b.plural ? -1 : a.plural > b.plural ? 1 : 0));
}

function buildGroupVersion(types: ResourceType[], group: string, version: string): JsonObject | undefined {
  const rts = typesOf(types, group, version);
  if (rts.length === 0) return undefined;
  const prefix = groupVersionPath(group, version);
  const paths: JsonObject = {};
  const schemas: Record<string, Json> = { ...META_SCHEMAS };
  for (const rt of rts) {
    const kindName = definitionName(rt);
    const listName = definitionName({ ...rt, kind: rt.listKind });
    schemas[kindName] = isBuiltinType(rt) ? builtinKindSchema(rt) : customKindSchema(rt);
    schemas[listName] = listSchema(rt, kindName);
    if (rt.subresources.scale) schemas[SCALE] = SCALE_SCHEMA;
    addResourcePaths(paths, rt, prefix, { kind: kindName, list: listName });
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBE_VERSION },
    paths,
    components: {
      schemas: schemas as JsonObject,
      securitySchemes: BEARER_TOKEN,
    },
    security: [{ BearerToken: [] }],
  };
}

function groupVersions(types: ResourceType[]): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const t of types)
    seen.set(groupVersionPath(t.group, t.version), { group: t.group, version: t.version });
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, gv]) => gv);
}

/** Hex SHA-512 of a document, as kube-apiserver puts it in `serverRelativeURL` (`?hash=`) and the ETag. */
export function documentHash(doc: JsonObject): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
}

// Documents are cached per types array: the registry hands out the same array until a type changes, and
// kubectl asks for the index several times per command. Callers must not modify the returned documents.
const docCache = new WeakMap<ResourceType[], Map<string, { doc: JsonObject; hash: string } | null>>();

function cachedGroupVersion(
  types: ResourceType[],
  group: string,
  version: string,
): { doc: JsonObject; hash: string } | undefined {
  let byPath = docCache.get(types);
  if (!byPath) docCache.set(types, (byPath = new Map()));
  const key = groupVersionPath(group, version);
  let entry = byPath.get(key);
  if (entry === undefined) {
    const doc = buildGroupVersion(types, group, version);
    entry = doc ? { doc, hash: documentHash(doc) } : null;
    byPath.set(key, entry);
  }
  return entry ?? undefined;
}

/** GET /openapi/v3: `{ paths: { "api/v1": { serverRelativeURL }, "apis/podset.io/v1": {...} } }`. */
export function openapiV3Index(types: ResourceType[]): JsonObject {
  const paths: JsonObject = {};
  for (const { group, version } of groupVersions(types)) {
    const entry = cachedGroupVersion(types, group, version);
    if (!entry) continue;
    const p = groupVersionPath(group, version);
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${entry.hash}` };
  }
  return { paths };
}

/**
 * The document for `api/v1` / `apis/<g>/<v>` and its hash (as in the index's `?hash=`; usable as an ETag),
 * or undefined when that group-version is not served.
 */
export function openapiV3Document(
  types: ResourceType[],
  groupVersionPath: string,
): { doc: JsonObject; hash: string } | undefined {
  const p = groupVersionPath
    .replace(/^\/+/, '')
    .replace(/^openapi\/v3\//, '')
    .replace(/\?.*$/, '')
    .replace(/\/+$/, '');
  const parts = p.split('/');
  if (parts[0] === 'api' && parts.length === 2) return cachedGroupVersion(types, '', parts[1] ?? '');
  if (parts[0] === 'apis' && parts.length === 3)
    return cachedGroupVersion(types, parts[1] ?? '', parts[2] ?? '');
  return undefined;
}

/** GET /openapi/v3/<groupVersionPath> (`api/v1`, `apis/podset.io/v1`); undefined when not served. */
export function openapiV3GroupVersion(
  types: ResourceType[],
  groupVersionPath: string,
): JsonObject | undefined {
  return openapiV3Document(types, groupVersionPath)?.doc;
}

/** GET /openapi/v2 as JSON (swagger 2.0). */
export function openapiV2(types: ResourceType[]): JsonObject {
  const docs = groupVersions(types).flatMap(({ group, version }) => {
    const doc = cachedGroupVersion(types, group, version)?.doc;
    return doc ? [doc] : [];
  });
  return v2Document(docs);
}
