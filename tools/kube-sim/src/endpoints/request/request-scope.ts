// A resource request's scope, as the API server's handlers get theirs: the resolved request, the type that
// serves it, the representation asked for, and the options its query carries (dryRun, fieldValidation,
// fieldManager, list and watch parameters), converted and refused as kube-apiserver converts and refuses
// them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Api, FieldValidation, ListQuery, WriteOptions } from '../../registry/api.ts';
import type { Registry } from '../../registry/rest/resources.ts';
import type { WatchHub } from '../../storage/watch.ts';
import { ApiError, type ResourceType } from '../../apimachinery/types.ts';
import { managerFromUserAgent } from '../../fieldmanager/managed-fields.ts';
import type { Representation } from './negotiate.ts';
import type { RequestInfo } from './request-info.ts';
import { intParam } from './query.ts';

/** What the endpoints serve from: the API (registry and storage), the watch hub, token issuing, admission. */
export interface EndpointDeps {
  api: Api;
  registry: Registry;
  hub: WatchHub;
  /** A bearer token for a service account (serviceaccounts/token). */
  issueServiceAccountToken(namespace: string, name: string): string;
  /** Who writes, for the admission chain's plugins that judge the writer. */
  admission(user: string): Pick<WriteOptions, 'requester'>;
}

export interface RequestScope {
  deps: EndpointDeps;
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  info: RequestInfo;
  t: ResourceType;
  /** The request's namespace if the resource is namespaced (a cluster-scoped one has none). */
  namespace: string | undefined;
  name: string | undefined;
  /** The representation a get, list or watch is answered in ('object' for the other verbs). */
  as: Representation;
  user: string;
  /** The audit entry of this request: a create names what it generated; a watch is recorded as it starts. */
  audit: { setName(name: string): void; record(): void };
}

/** dryRun and fieldValidation; with the request, its field manager (the parameter, else the User-Agent). */
export function writeOptions(q: URLSearchParams, req?: IncomingMessage): WriteOptions {
  const dry = q.getAll('dryRun');
  for (const d of dry)
    if (d !== 'All')
      throw new ApiError(400, 'BadRequest', `Invalid dryRun value "${d}": only "All" is supported`);
  const fv = q.get('fieldValidation');
  if (fv !== null && fv !== 'Strict' && fv !== 'Warn' && fv !== 'Ignore') {
    throw new ApiError(
      400,
      'BadRequest',
      `fieldValidation parameter unsupported: "${fv}". Supported values: Ignore, Warn, Strict`,
    );
  }
  const fieldManager =
    q.get('fieldManager') || (req ? managerFromUserAgent(String(req.headers['user-agent'] ?? '')) : '');
  return {
    dryRun: dry.length > 0,
    ...(fv ? { fieldValidation: fv as FieldValidation } : {}),
    ...(req ? { fieldManager } : {}),
    warnings: [],
  };
}

/** The options of a create, update or patch: the query's, and the admission plugins of its writer. */
export function writeScope(s: RequestScope): WriteOptions {
  return { ...writeOptions(s.query, s.req), ...s.deps.admission(s.user) };
}

export function listQuery(q: URLSearchParams): ListQuery {
  return {
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
    limit: intParam(q, 'limit'),
    continue: q.get('continue') ?? undefined,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
  };
}
