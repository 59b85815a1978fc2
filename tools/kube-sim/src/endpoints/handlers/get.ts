// GET of one object: as JSON, as a Table (kubectl get) or as PartialObjectMetadata.
import { apiResourceId } from '../../registry/rest/resources.ts';
import { partialObjectMetadata } from '../request/negotiate.ts';
import type { RequestScope } from '../request/request-scope.ts';
import { send, sendJson } from '../request/response.ts';
import { includeObjectParam, table } from '../request/table.ts';

export function get(s: RequestScope): void {
  const { api } = s.deps;
  const { t, namespace: ns, res } = s;
  const name = s.name as string;
  const obj = api.get(t, ns, name);
  if (s.as === 'Table') {
    sendJson(
      res,
      200,
      table(t, apiResourceId(t), [obj], {
        includeObject: includeObjectParam(s.query.get('includeObject')),
        withColumns: true,
        now: Date.now(),
        resourceVersion: obj.metadata.resourceVersion as string,
      }),
    );
    return;
  }
  if (s.as === 'PartialObjectMetadata') {
    sendJson(res, 200, partialObjectMetadata(obj));
    return;
  }
  send(res, 200, api.jsonOf(t, api.getRec(t, ns, name)));
}
