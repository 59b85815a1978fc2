// SelfSubjectAccessReview, answered ahead of authorization, for every authenticated user may ask what it
// may do (system:basic-user): the authorizer asked about the requesting user, its answer (allowed, or the
// reason it would be refused) sent back as the review's status.
import { ApiError } from '../../apimachinery/types.ts';
import { requestBody } from '../../endpoints/request/request-body.ts';
import { sendJson } from '../../endpoints/request/response.ts';
import { resourceId } from '../../registry/rest/resources.ts';
import type { Authorizer } from './authorization.ts';
import type { Filter, RequestContext } from './chain.ts';

const REVIEWS = 'selfsubjectaccessreviews.authorization.k8s.io';

interface ReviewSpec {
  resourceAttributes?: Record<string, string>;
  nonResourceAttributes?: Record<string, string>;
}

/** Whether the user may do what the review's resource attributes say; the 403's message if not. */
function review(authorize: Authorizer, user: string, ra: Record<string, string>): string | undefined {
  try {
    authorize(user, {
      verb: ra.verb ?? '',
      group: ra.group ?? '',
      resource: ra.resource ?? '',
      subresource: ra.subresource ?? '',
      namespace: ra.namespace || undefined,
      name: ra.name || undefined,
    });
    return undefined;
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 403)) throw e;
    return e.message;
  }
}

async function answer(ctx: RequestContext, authorize: Authorizer): Promise<void> {
  const body = (await requestBody(ctx.req)) as { spec?: ReviewSpec };
  const ra = body.spec?.resourceAttributes;
  const refused = ra ? review(authorize, ctx.attributes.user, ra) : undefined;
  sendJson(ctx.res, 201, {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: {},
    spec: body.spec ?? {},
    status: { allowed: refused === undefined, ...(refused ? { reason: refused } : {}) },
  });
}

export function withSelfSubjectAccessReview(authorize: Authorizer): Filter {
  return async (ctx, next) => {
    if (ctx.type && resourceId(ctx.type) === REVIEWS && ctx.info?.verb === 'create') {
      await answer(ctx, authorize);
      return;
    }
    await next();
  };
}
