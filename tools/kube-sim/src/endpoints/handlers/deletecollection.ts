// DELETE of a collection: every object the list query selects, each as a delete.
import { deleteOptions } from '../request/delete-options.ts';
import { readBody } from '../request/request-body.ts';
import { listQuery, type RequestScope, writeOptions } from '../request/request-scope.ts';
import { sendJson } from '../request/response.ts';
import { successStatus } from '../request/status.ts';

export async function deleteCollection(s: RequestScope): Promise<void> {
  const opts = writeOptions(s.query);
  const buf = await readBody(s.req);
  const dopts = deleteOptions(s.query, buf, s.req.headers['content-type'], opts);
  s.deps.api.deleteCollection(s.t, s.namespace, listQuery(s.query), dopts, opts);
  sendJson(s.res, 200, successStatus());
}
