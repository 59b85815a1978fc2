// POST to a collection: the object is created (admission, defaults, validation in the registry); the audit
// entry names what a generateName produced.
import { methodNotAllowed } from '../request/request-info.ts';
import { bodyOf, readBody } from '../request/request-body.ts';
import { type RequestScope, writeScope } from '../request/request-scope.ts';
import { send, warningHeaders } from '../request/response.ts';

export async function create(s: RequestScope): Promise<void> {
  if (s.name !== undefined) throw methodNotAllowed();
  const { api } = s.deps;
  const opts = writeScope(s);
  const body = bodyOf(await readBody(s.req), s.req.headers['content-type'], opts);
  const obj = api.create(s.t, s.namespace, body, opts);
  s.audit.setName(obj.metadata.name ?? '');
  send(s.res, 201, api.jsonFor(s.t, obj), warningHeaders(opts));
}
