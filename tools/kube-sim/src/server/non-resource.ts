// The paths that are not resources: health checks and /version (served before authentication), discovery
// (/api, /apis, group and group-version documents, aggregated discovery v2) and OpenAPI v2 and v3.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../apimachinery/types.ts';
import {
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  versionInfo,
} from '../endpoints/discovery.ts';
import type { ResourcePath } from '../endpoints/request/request-info.ts';
import { cachedJson, send, sendBytes, sendJson } from '../endpoints/request/response.ts';
import {
  OPENAPI_V2_PROTOBUF,
  OPENAPI_V2_PROTOBUF_ASKED,
  OPENAPI_V2_PROTOBUF_DOCUMENT,
  openapiV2,
  openapiV3Document,
  openapiV3Index,
} from '../openapi/openapi.ts';
import type { Registry } from '../registry/rest/resources.ts';

const notFound = (): ApiError =>
  new ApiError(404, 'NotFound', 'the server could not find the requested resource');

/** /healthz, /readyz, /livez (and their checks) and /version; false for any other path. */
export function servePublic(path: string, res: ServerResponse): boolean {
  if (
    path === '/healthz' ||
    path === '/readyz' ||
    path === '/livez' ||
    /^\/(healthz|readyz|livez)\//.test(path)
  ) {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('ok');
    return true;
  }
  if (path === '/version') {
    sendJson(res, 200, versionInfo());
    return true;
  }
  return false;
}

/** /api and /apis: the legacy documents, or aggregated discovery v2 when asked (and enabled). */
export function serveRootDiscovery(
  req: IncomingMessage,
  res: ServerResponse,
  path: '/api' | '/apis',
  registry: Registry,
  aggregated: boolean,
): void {
  const accept = String(req.headers.accept ?? '');
  if (aggregated && /as=APIGroupDiscoveryList/.test(accept) && /v=v2(;|,|$)/.test(accept)) {
    send(res, 200, JSON.stringify(aggregatedDiscovery(registry, path === '/api')), {
      'Content-Type': 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    return;
  }
  sendJson(
    res,
    200,
    path === '/api'
      ? apiVersions(`${req.socket.localAddress}:${req.socket.localPort}`)
      : apiGroupList(registry),
  );
}

/** /apis/<group>: its APIGroup document. */
export function serveGroup(res: ServerResponse, group: string, registry: Registry): void {
  const doc = apiGroup(registry, group);
  if (!doc) throw notFound();
  sendJson(res, 200, doc);
}

/** /api/v1, /apis/<group>/<version>: its APIResourceList (any other path the router has not served: 404). */
export function serveGroupVersion(
  res: ServerResponse,
  rp: ResourcePath | undefined,
  registry: Registry,
): void {
  if (!rp) throw notFound();
  const doc = apiResourceList(registry, rp.group, rp.version);
  if (!doc) throw notFound();
  sendJson(res, 200, doc);
}

/** /openapi/v2 (JSON, or the protobuf document kubectl asks for), /openapi/v3 and its group versions. */
export function serveOpenApi(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  q: URLSearchParams,
  registry: Registry,
): void {
  const accept = String(req.headers.accept ?? '');
  const types = registry.all();
  if (path === '/openapi/v2') {
    if (OPENAPI_V2_PROTOBUF_ASKED.test(accept) && !/json|\*\/\*/.test(accept)) {
      res.writeHead(200, {
        'Content-Type': OPENAPI_V2_PROTOBUF,
        'Content-Length': OPENAPI_V2_PROTOBUF_DOCUMENT.length,
      });
      res.end(OPENAPI_V2_PROTOBUF_DOCUMENT);
      return;
    }
    if (accept && !/json|\*\/\*/.test(accept)) {
      throw new ApiError(406, 'NotAcceptable', 'only application/json is served for /openapi/v2');
    }
    sendBytes(res, 200, cachedJson(openapiV2(types)));
    return;
  }
  if (path === '/openapi/v3') {
    sendBytes(res, 200, cachedJson(openapiV3Index(types)));
    return;
  }
  const entry = openapiV3Document(types, path.slice('/openapi/v3/'.length));
  if (!entry) throw notFound();
  sendBytes(res, 200, cachedJson(entry.doc), {
    ETag: `"${entry.hash}"`,
    'Cache-Control': q.get('hash') === entry.hash ? 'public, immutable' : 'no-cache, private',
  });
}
