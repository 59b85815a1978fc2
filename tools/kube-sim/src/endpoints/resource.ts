// A resource request, once authenticated, authorized and past fault injection: its subresource or verb
// handler (./handlers/ one file per verb, ./subresources/), after the checks kube-apiserver makes first
// (a subresource the type lacks is a 404, a verb it does not serve a 405), and the content negotiation of
// reads (406).
import { protobufMessage } from '../apimachinery/protobuf-encode.ts';
import { ApiError } from '../apimachinery/types.ts';
import { create } from './handlers/create.ts';
import { deleteResource } from './handlers/delete.ts';
import { deleteCollection } from './handlers/deletecollection.ts';
import { get } from './handlers/get.ts';
import { list } from './handlers/list.ts';
import { patch } from './handlers/patch.ts';
import { update } from './handlers/update.ts';
import { watch } from './handlers/watch.ts';
import { negotiate, type Representation } from './request/negotiate.ts';
import { methodNotAllowed } from './request/request-info.ts';
import type { RequestScope } from './request/request-scope.ts';
import type { Handler, Handlers } from './subresources/handler.ts';
import { connectSubresource, storageSubresource } from './subresources/index.ts';

const VERBS: Record<string, Handler> = {
  get,
  list,
  watch,
  create,
  update,
  patch,
  delete: deleteResource,
  deletecollection: deleteCollection,
};

const notFound = (): ApiError =>
  new ApiError(404, 'NotFound', 'the server could not find the requested resource');

/** The handlers of the request's status or scale subresource, after the checks of a resource request. */
function checked(s: Omit<RequestScope, 'as'>): Handlers | undefined {
  const { t, info } = s;
  const sub = info.subresource;
  const handlers = sub === undefined ? undefined : storageSubresource(t, sub);
  if (sub !== undefined && !handlers) throw notFound();
  if (!t.verbs.includes(info.verb) && sub === undefined) throw methodNotAllowed();
  if (t.namespaced && info.namespace === undefined && info.name !== undefined && info.verb !== 'watch') {
    throw notFound();
  }
  return handlers;
}

function representation(s: Omit<RequestScope, 'as'>): Representation {
  const verb = s.info.verb;
  if (verb !== 'get' && verb !== 'list' && verb !== 'watch') return 'object';
  return negotiate(String(s.req.headers.accept ?? ''), verb, protobufMessage(s.t) !== undefined);
}

export async function serveResource(r: Omit<RequestScope, 'as'>): Promise<void> {
  const { verb } = r.info;
  const connect = connectSubresource(r.t, r.info.subresource);
  if (connect) {
    const handler = connect[verb];
    if (!handler) throw methodNotAllowed();
    await handler({ ...r, as: 'object' });
    return;
  }
  const sub = checked(r);
  const s: RequestScope = { ...r, as: representation(r) };
  const handler = sub?.[verb] ?? VERBS[verb];
  if (handler) await handler(s);
}
