// The request-info filter of resource requests: what the router resolved of the method and path (verb,
// resource, namespace, name, subresource) goes into the audit entry, and the type that serves it is looked
// up. A method no verb has is a 405 and a resource the server does not serve a 404, before authorization,
// as kube-sim has always answered (an unknown resource is a 404 to every user).
import { NO_RESOURCE, servedType } from '../../endpoints/request/request-info.ts';
import type { Registry } from '../../registry/rest/resources.ts';
import type { Filter } from './chain.ts';

export function withRequestInfo(registry: Registry): Filter {
  return async (ctx, next) => {
    const info = ctx.info;
    if (!info) throw new Error(`not a resource request: ${ctx.path}`);
    if (info.plural !== NO_RESOURCE) {
      const a = ctx.attributes;
      a.resource = info.plural;
      a.namespace = info.namespace ?? '';
      a.name = info.name ?? '';
      a.subresource = info.subresource ?? '';
      a.verb = info.verb;
    }
    ctx.type = servedType(info, registry);
    await next();
  };
}
