// /openapi/v2: the group-version documents rendered as one swagger 2.0 JSON document, for tools that want
// it, and the protobuf form kubectl asks for when OpenAPI v3 lacks a kind.
import type { Json, JsonObject } from '../apimachinery/types.ts';
import { BEARER_TOKEN, KUBE_VERSION, REF_V3 } from './names.ts';

/** Rewrites v3 into v2 shapes: `#/components/schemas/` → `#/definitions/`. */
function toV2Refs(v: Json): Json {
  if (Array.isArray(v)) return v.map(toV2Refs);
  if (v !== null && typeof v === 'object') {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') out[k] = x.replace(REF_V3, '#/definitions/');
      else out[k] = toV2Refs(x);
    }
    return out;
  }
  return v;
}

/** A v3 parameter (its type in `schema`) as a v2 one (its type inline). */
function v2Parameter(p: JsonObject): JsonObject {
  const schema = (p.schema as JsonObject | undefined) ?? {};
  return {
    name: p.name ?? '',
    in: p.in ?? 'query',
    description: p.description ?? '',
    type: schema.type ?? 'string',
    uniqueItems: true,
    ...(p.required ? { required: true } : {}),
  };
}

function v2Operation(o: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === 'requestBody' || k === 'responses' || k === 'parameters') continue;
    out[k] = v;
  }
  const params: JsonObject[] = ((o.parameters as JsonObject[] | undefined) ?? []).map(v2Parameter);
  const body = o.requestBody as JsonObject | undefined;
  if (body) {
    const c = (body.content as JsonObject | undefined) ?? {};
    const first = Object.values(c)[0] as JsonObject | undefined;
    params.push({
      name: 'body',
      in: 'body',
      required: body.required === true,
      schema: toV2Refs(first?.schema ?? {}),
    });
    out.consumes = Object.keys(c);
  }
  if (params.length) out.parameters = params;
  const responses: JsonObject = {};
  for (const [code, r] of Object.entries((o.responses as JsonObject | undefined) ?? {})) {
    const rr = r as JsonObject;
    const c = (rr.content as JsonObject | undefined) ?? {};
    const first = Object.values(c)[0] as JsonObject | undefined;
    responses[code] = {
      description: rr.description ?? '',
      ...(first?.schema ? { schema: toV2Refs(first.schema) } : {}),
    };
  }
  out.responses = responses;
  out.produces = ['application/json', 'application/yaml'];
  out.schemes = ['https'];
  return out;
}

/** The swagger 2.0 document of the given OpenAPI v3 group-version documents. */
export function v2Document(v3Documents: JsonObject[]): JsonObject {
  const paths: JsonObject = {};
  const definitions: JsonObject = {};
  for (const doc of v3Documents) {
    const schemas = ((doc.components as JsonObject).schemas as JsonObject) ?? {};
    for (const [name, sch] of Object.entries(schemas)) definitions[name] = toV2Refs(sch);
    for (const [path, item] of Object.entries(doc.paths as JsonObject)) {
      const pi: JsonObject = {};
      for (const [k, v] of Object.entries(item as JsonObject)) {
        if (k === 'parameters') pi.parameters = (v as JsonObject[]).map(v2Parameter);
        else pi[k] = v2Operation(v as JsonObject);
      }
      paths[path] = pi;
    }
  }
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: KUBE_VERSION },
    paths,
    definitions,
    securityDefinitions: BEARER_TOKEN,
    security: [{ BearerToken: [] }],
  };
}

/**
 * kubectl asks /openapi/v2 in gnostic's protobuf form (and only that) when OpenAPI v3 lacks a kind. It asks
 * with the deprecated `@` spelling; the API server answers with the `.` one (a valid media type).
 */
export const OPENAPI_V2_PROTOBUF_ASKED =
  /application\/com\.github\.proto-openapi\.spec\.v2[@.]v1\.0\+protobuf/;
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/**
 * The protobuf /openapi/v2 document kube-sim serves: an openapi_v2.Document with `swagger: "2.0"` (field
 * 1) and `info` {title, version} (field 2) and no definitions. kubectl reads OpenAPI v3 for every kind
 * kube-sim serves; it falls back to v2 only for a kind no server knows (a CRD not installed), and with
 * no schema there it goes on to the API's own answer: "no matches for kind … ensure CRDs are installed
 * first", as against a cluster.
 */
export const OPENAPI_V2_PROTOBUF_DOCUMENT: Buffer = (() => {
  const field = (n: number, bytes: Buffer): Buffer =>
    Buffer.concat([Buffer.from([(n << 3) | 2, bytes.length]), bytes]);
  const info = Buffer.concat([field(1, Buffer.from('Kubernetes')), field(2, Buffer.from(KUBE_VERSION))]);
  return Buffer.concat([field(1, Buffer.from('2.0')), field(2, info)]);
})();
