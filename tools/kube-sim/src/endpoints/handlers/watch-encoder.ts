// How a watch's events read: the representation the request negotiated (the stored JSON, a Table for
// `kubectl get -w`, or PartialObjectMetadata), one encoder per watch; storage's watch hub decides what is
// sent and when.
import { apiResourceId, apiVersionOf } from '../../apimachinery/resource-ids.ts';
import type { ApiError, KubeObject, ResourceType } from '../../apimachinery/types.ts';
import { recJson, type Rec } from '../../storage/store.ts';
import type { WatchEncoder } from '../../storage/watch.ts';
import { partialObjectMetadata } from '../request/negotiate.ts';
import { statusBody } from '../request/status.ts';
import { type IncludeObject, table } from '../request/table.ts';

export interface WatchEncoding {
  t: ResourceType;
  /** The object as the watched API version shows it (a stored object of another version is converted). */
  present: (t: ResourceType, obj: KubeObject) => KubeObject;
  /** Table output (kubectl get -w). */
  table: { includeObject: IncludeObject } | undefined;
  /** Events carry PartialObjectMetadata (Accept `as=PartialObjectMetadata`): a metadata-only watch. */
  partial: boolean;
}

const line = (type: string, objectJson: string) => `{"type":"${type}","object":${objectJson}}\n`;

export function watchEncoder(e: WatchEncoding): WatchEncoder {
  const version = apiVersionOf(e.t);
  let tableHeaderSent = false;
  const event = (type: string, rec: Rec, shared: (() => string) | undefined): string => {
    if (e.table) {
      const tbl = table(e.t, apiResourceId(e.t), [e.present(e.t, rec.obj)], {
        includeObject: e.table.includeObject,
        withColumns: !tableHeaderSent,
        now: Date.now(),
      });
      tableHeaderSent = true;
      return line(type, JSON.stringify(tbl));
    }
    if (e.partial) return line(type, JSON.stringify(partialObjectMetadata(e.present(e.t, rec.obj))));
    if (rec.obj.apiVersion !== version) return line(type, JSON.stringify(e.present(e.t, rec.obj)));
    return shared ? shared() : line(type, recJson(rec));
  };
  const bookmark = (resourceVersion: string, annotations: Record<string, string> | undefined): string => {
    const metadata = annotations ? { resourceVersion, annotations } : { resourceVersion };
    const head = e.partial
      ? { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' }
      : { kind: e.t.kind, apiVersion: version };
    return line('BOOKMARK', JSON.stringify({ ...head, metadata }));
  };
  const error = (err: ApiError): string => line('ERROR', JSON.stringify(statusBody(err)));
  return { event, bookmark, error };
}
