// PUT of one object (its status and scale subresources have their own, in ../subresources/).
import { methodNotAllowed } from '../request/request-info.ts';
import { bodyOf, readBody } from '../request/request-body.ts';
import { type RequestScope, writeScope } from '../request/request-scope.ts';
import { send, warningHeaders } from '../request/response.ts';
import type { WriteOptions } from '../../registry/api.ts';

/** Reads the body of a PUT and answers with what `write` returns (as JSON text). */
export async function replace(
  s: RequestScope,
  write: (name: string, body: unknown, opts: WriteOptions) => string,
): Promise<void> {
  if (s.name === undefined) throw methodNotAllowed();
  const opts = writeScope(s);
  const body = bodyOf(await readBody(s.req), s.req.headers['content-type'], opts);
  const json = write(s.name, body, opts);
  send(s.res, 200, json, warningHeaders(opts));
}

export function update(s: RequestScope): Promise<void> {
  const { api } = s.deps;
  return replace(s, (name, body, opts) => api.jsonFor(s.t, api.update(s.t, s.namespace, name, body, opts)));
}
