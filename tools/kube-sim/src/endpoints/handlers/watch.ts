// A watch (GET with watch=true, or a /watch/ path): the stream is served by the watch hub; its audit entry is
// recorded when the stream starts.
import { boolParam, intParam } from '../request/query.ts';
import type { RequestScope } from '../request/request-scope.ts';
import { includeObjectParam } from '../request/table.ts';
import { watchEncoder } from './watch-encoder.ts';

export function watch(s: RequestScope): void {
  const { api, hub } = s.deps;
  const q = s.query;
  let fieldSelector = q.get('fieldSelector') ?? undefined;
  if (s.name !== undefined)
    fieldSelector = [`metadata.name=${s.name}`, fieldSelector].filter(Boolean).join(',');
  const filter = api.filterFor(s.t, q.get('labelSelector') ?? undefined, fieldSelector);
  hub.serve(
    {
      t: s.t,
      namespace: s.namespace,
      resourceVersion: q.get('resourceVersion') ?? undefined,
      resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
      sendInitialEvents: boolParam(q.get('sendInitialEvents')),
      allowBookmarks: boolParam(q.get('allowWatchBookmarks')) === true,
      timeoutSeconds: intParam(q, 'timeoutSeconds'),
      filter,
      encoder: watchEncoder({
        t: s.t,
        present: (t, obj) => api.present(t, obj),
        table: s.as === 'Table' ? { includeObject: includeObjectParam(q.get('includeObject')) } : undefined,
        partial: s.as === 'PartialObjectMetadata',
        protobuf: s.as === 'protobuf',
      }),
    },
    s.res,
  );
  s.audit.record();
}
