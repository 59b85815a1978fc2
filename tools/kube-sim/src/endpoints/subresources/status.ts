// The status subresource: get, update and patch of an object's status (its spec is kept). The other verbs on
// a status path act on the object, as ../handlers/ serves them.
import { patchResource } from '../handlers/patch.ts';
import { replace } from '../handlers/update.ts';
import type { RequestScope } from '../request/request-scope.ts';
import { send } from '../request/response.ts';
import type { Handlers } from './handler.ts';

export const status: Handlers = {
  /** The object as JSON, whatever the Accept header asked (it is still negotiated: a 406 stays a 406). */
  get(s: RequestScope): void {
    const { api } = s.deps;
    const name = s.name as string;
    api.get(s.t, s.namespace, name);
    send(s.res, 200, api.jsonOf(s.t, api.getRec(s.t, s.namespace, name)));
  },
  update(s: RequestScope): Promise<void> {
    const { api } = s.deps;
    return replace(s, (name, body, opts) =>
      api.jsonFor(s.t, api.updateStatus(s.t, s.namespace, name, body, opts)),
    );
  },
  patch: (s: RequestScope) => patchResource(s, 'status'),
};
