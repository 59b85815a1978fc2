// Request routing: every request runs the filter chain (audit, errors as Status, authentication, injected
// latency), then goes by its path to the control API, OpenAPI, discovery, or — a resource request — through
// the resource filters (request info, SelfSubjectAccessReview, authorization, injected errors) to its
// handler in ../endpoints/.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseResourcePath, requestInfo } from '../endpoints/request/request-info.ts';
import type { EndpointDeps } from '../endpoints/request/request-scope.ts';
import { serveResource } from '../endpoints/resource.ts';
import type { Registry } from '../registry/rest/resources.ts';
import { type ControlDeps, type Listener, serveControl } from './control.ts';
import { type Audit, withAudit } from './filters/audit.ts';
import { type Auth, withAuthentication } from './filters/authentication.ts';
import { type Authorizer, withAuthorization } from './filters/authorization.ts';
import { chain, type Handle, newContext, type RequestContext } from './filters/chain.ts';
import { type Faults, withInjectedErrors, withLatency } from './filters/faults.ts';
import { withRequestInfo } from './filters/request-info.ts';
import { withStatusErrors } from './filters/status-errors.ts';
import { withSelfSubjectAccessReview } from './filters/subject-access-review.ts';
import {
  serveGroup,
  serveGroupVersion,
  serveOpenApi,
  servePublic,
  serveRootDiscovery,
} from './non-resource.ts';

export interface RouterDeps extends ControlDeps {
  registry: Registry;
  auth: Auth;
  audit: Audit;
  faults: Faults;
  /** Serve apidiscovery.k8s.io/v2 aggregated discovery when asked (default true). */
  aggregatedDiscovery?: boolean;
}

/** A resource request past its filters: the scope its handler gets. */
function resourceHandler(endpoints: EndpointDeps): Handle {
  return (ctx) => {
    const { info, type: t, attributes } = ctx;
    if (!info || !t) throw new Error(`not a resource request: ${ctx.path}`);
    return serveResource({
      deps: endpoints,
      req: ctx.req,
      res: ctx.res,
      query: ctx.url.searchParams,
      info,
      t,
      namespace: t.namespaced ? info.namespace : undefined,
      name: info.name,
      user: attributes.user,
      audit: { setName: (name) => (attributes.name = name), record: ctx.record },
    });
  };
}

/** The authenticated paths, by prefix: control API, OpenAPI, discovery, resources. */
function routes(deps: RouterDeps, listener: Listener, resources: Handle): Handle {
  const { registry } = deps;
  return async (ctx) => {
    const { path, req, res } = ctx;
    if (path.startsWith('/kube-sim/')) return serveControl(ctx, deps, listener);
    if (path.startsWith('/openapi/')) return serveOpenApi(req, res, path, ctx.url.searchParams, registry);
    if (path === '/api' || path === '/apis')
      return serveRootDiscovery(req, res, path, registry, deps.aggregatedDiscovery !== false);
    const groupOnly = /^\/apis\/([^/]+)$/.exec(path);
    if (groupOnly) return serveGroup(res, decodeURIComponent(groupOnly[1] as string), registry);
    const rp = parseResourcePath(path);
    if (!rp || rp.plural === undefined) return serveGroupVersion(res, rp, registry);
    ctx.info = requestInfo(req.method ?? 'GET', { ...rp, plural: rp.plural }, ctx.url.searchParams);
    return resources(ctx);
  };
}

export function createRouter(
  deps: RouterDeps,
  endpoints: EndpointDeps,
  authorize: Authorizer,
  listener: Listener,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const resources = chain(
    [
      withRequestInfo(deps.registry),
      withSelfSubjectAccessReview(authorize),
      withAuthorization(authorize),
      withInjectedErrors(deps.faults),
    ],
    resourceHandler(endpoints),
  );
  const authenticated = chain(
    [withAuthentication(deps.auth), withLatency(deps.faults)],
    routes(deps, listener, resources),
  );
  const handle = chain([withAudit(deps.audit), withStatusErrors], async (ctx: RequestContext) => {
    if (!servePublic(ctx.path, ctx.res)) await authenticated(ctx);
  });
  return (req, res) => handle(newContext(req, res));
}
