// GET of a collection: a consistent snapshot (label and field selectors, limit/continue, resourceVersion),
// as a list, a Table or a PartialObjectMetadataList; a big list is streamed in chunks.
import type { ServerResponse } from 'node:http';
import type { ListResult } from '../../registry/api.ts';
import type { Rec } from '../../storage/store.ts';
import { apiResourceId, apiVersionOf } from '../../registry/rest/resources.ts';
import { partialObjectMetadata } from '../request/negotiate.ts';
import { listQuery, type RequestScope } from '../request/request-scope.ts';
import { send, sendJson } from '../request/response.ts';
import { includeObjectParam, table } from '../request/table.ts';

const LIST_CHUNK = 2000;

/** The list metadata a paged list carries besides its resourceVersion. */
function paging(r: ListResult): { continue?: string; remainingItemCount?: number } {
  return {
    ...(r.continue ? { continue: r.continue } : {}),
    ...(r.remainingItemCount !== undefined ? { remainingItemCount: r.remainingItemCount } : {}),
  };
}

export async function list(s: RequestScope): Promise<void> {
  const { api } = s.deps;
  const { t, res } = s;
  const r = api.list(t, s.namespace, listQuery(s.query));
  if (s.as === 'Table') {
    sendJson(
      res,
      200,
      table(
        t,
        apiResourceId(t),
        r.items.map((x) => api.present(t, x.obj)),
        {
          includeObject: includeObjectParam(s.query.get('includeObject')),
          withColumns: true,
          now: Date.now(),
          resourceVersion: String(r.resourceVersion),
          ...paging(r),
        },
      ),
    );
    return;
  }
  if (s.as === 'PartialObjectMetadataList') {
    sendJson(res, 200, {
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: String(r.resourceVersion), ...paging(r) },
      items: r.items.map((x) => partialObjectMetadata(api.present(t, x.obj))),
    });
    return;
  }
  let meta = `"resourceVersion":"${r.resourceVersion}"`;
  if (r.continue) meta += `,"continue":${JSON.stringify(r.continue)}`;
  if (r.remainingItemCount !== undefined) meta += `,"remainingItemCount":${r.remainingItemCount}`;
  const head = `{"kind":"${t.listKind}","apiVersion":"${apiVersionOf(t)}","metadata":{${meta}},"items":[`;
  const json = (x: Rec): string => api.jsonOf(t, x);
  if (r.items.length <= LIST_CHUNK) {
    send(res, 200, `${head}${r.items.map(json).join(',')}]}`);
    return;
  }
  await stream(res, head, r.items, json);
}

/**
 * Big lists are streamed in chunks (no Content-Length): no single huge string is built. The items are a
 * consistent snapshot (stored objects never change), so waiting for the client to drain between chunks is
 * safe and bounds the memory a big list holds.
 */
async function stream(
  res: ServerResponse,
  head: string,
  items: readonly Rec[],
  json: (x: Rec) => string,
): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.write(head);
  for (let i = 0; i < items.length; i += LIST_CHUNK) {
    const part = items.slice(i, i + LIST_CHUNK).map(json);
    if (!res.write((i > 0 ? ',' : '') + part.join(','))) {
      await drained(res);
      if (res.destroyed) return;
    }
  }
  res.end(']}\n');
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
