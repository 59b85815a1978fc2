// DELETE of one object: grace periods, preconditions, propagation through finalizers.
import { deleteOptions } from '../request/delete-options.ts';
import { readBody } from '../request/request-body.ts';
import type { RequestScope } from '../request/request-scope.ts';
import { writeOptions } from '../request/request-scope.ts';
import { sendJson, warningHeaders } from '../request/response.ts';

export async function deleteResource(s: RequestScope): Promise<void> {
  const opts = writeOptions(s.query);
  const buf = await readBody(s.req);
  const dopts = deleteOptions(s.query, buf, s.req.headers['content-type'], opts);
  const r = s.deps.api.delete(s.t, s.namespace, s.name as string, dopts, opts);
  // As kube-apiserver: 202 only when deletion is pending and orphanDependents=false was asked for.
  const code = !r.removed && dopts.orphanDependents === false ? 202 : 200;
  sendJson(s.res, code, r.object, warningHeaders(opts));
}
