// What a resource request asks for, read from its method, path and query as the API server's
// RequestInfoFactory reads it: the verb, the API group and version, the resource, namespace, name and
// subresource. Resolving never fails; what the server cannot serve is refused by `servedType`, in the order
// kube-apiserver answers it (405 for an unknown method before 404 for an unknown resource).
import { ApiError, type ResourceType } from '../../apimachinery/types.ts';
import type { Registry } from '../../registry/rest/resources.ts';
import { boolParam } from './query.ts';

export interface ResourcePath {
  group: string;
  version: string;
  namespace: string | undefined;
  /** undefined: the group version's resource list; NO_RESOURCE: a path too deep to name one. */
  plural: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
  /** The path had the deprecated `/watch/` prefix. */
  watchPrefix: boolean;
}

/** The resource of a path with more segments than `<resource>/<name>/<subresource>`: none is served. */
export const NO_RESOURCE = '\u0000';

/** Parses `/api/v1/...` and `/apis/<g>/<v>/...`; undefined for anything else. */
export function parseResourcePath(path: string): ResourcePath | undefined {
  const segs = path
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 2) {
    group = '';
    version = segs[1] as string;
    rest = segs.slice(2);
  } else if (segs[0] === 'apis' && segs.length >= 3) {
    group = segs[1] as string;
    version = segs[2] as string;
    rest = segs.slice(3);
  } else {
    return undefined;
  }
  let watchPrefix = false;
  if (rest[0] === 'watch') {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (
    rest[0] === 'namespaces' &&
    rest.length >= 3 &&
    !(rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))
  ) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length > 3)
    return {
      group,
      version,
      namespace,
      plural: NO_RESOURCE,
      name: undefined,
      subresource: undefined,
      watchPrefix,
    };
  return { group, version, namespace, plural: rest[0], name: rest[1], subresource: rest[2], watchPrefix };
}

/** A resource request, resolved: the path's parts and the verb ('' when the method has none). */
export interface RequestInfo extends ResourcePath {
  plural: string;
  verb: string;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** The verb of a method on a resource path, as kube-apiserver names it ('' for a method it does not serve). */
export function verbOf(method: string, rp: ResourcePath, query: URLSearchParams): string {
  // `/watch/<resource>/<name>` watches that object whatever the method.
  if (rp.watchPrefix && rp.name !== undefined) return METHODS.has(method) ? 'watch' : '';
  const isWatch = rp.watchPrefix || boolParam(query.get('watch')) === true;
  if (method === 'GET') return rp.name !== undefined ? 'get' : isWatch ? 'watch' : 'list';
  if (method === 'POST') return 'create';
  if (method === 'PUT') return 'update';
  if (method === 'PATCH') return 'patch';
  if (method === 'DELETE') return rp.name !== undefined ? 'delete' : 'deletecollection';
  return '';
}

/** The request info of a resource path that names a resource (plural set). */
export function requestInfo(
  method: string,
  rp: ResourcePath & { plural: string },
  query: URLSearchParams,
): RequestInfo {
  return { ...rp, verb: verbOf(method, rp, query) };
}

const notFound = (): ApiError =>
  new ApiError(404, 'NotFound', 'the server could not find the requested resource');

/** What the API server answers for a verb a resource does not serve. */
export function methodNotAllowed(): ApiError {
  return new ApiError(
    405,
    'MethodNotAllowed',
    'the server does not allow this method on the requested resource',
  );
}

/**
 * The type a resolved request is served by; throws what kube-apiserver answers otherwise: 405 for a
 * method no verb has, 404 for a resource it does not serve or a namespace on a cluster-scoped one.
 */
export function servedType(info: RequestInfo, registry: Registry): ResourceType {
  if (info.plural === NO_RESOURCE) throw notFound();
  if (info.verb === '') throw methodNotAllowed();
  const t = registry.lookup(info.group, info.version, info.plural);
  if (!t) throw notFound();
  if (t.namespaced === false && info.namespace !== undefined) throw notFound();
  return t;
}
