// The scale subresource (autoscaling/v1 Scale) of workloads and of custom resources with a scale
// subresource: get, update and patch (not apply, as the API server). The other verbs on a scale path act on
// the object, as ../handlers/ serves them.
import { patchResource } from '../handlers/patch.ts';
import { replace } from '../handlers/update.ts';
import type { RequestScope } from '../request/request-scope.ts';
import { sendJson } from '../request/response.ts';
import type { Handlers } from './handler.ts';

export const scale: Handlers = {
  get(s: RequestScope): void {
    sendJson(s.res, 200, s.deps.api.getScale(s.t, s.namespace, s.name as string));
  },
  update(s: RequestScope): Promise<void> {
    const { api } = s.deps;
    return replace(s, (name, body, opts) =>
      JSON.stringify(api.updateScale(s.t, s.namespace, name, body, opts)),
    );
  },
  patch: (s: RequestScope) => patchResource(s, 'scale'),
};
