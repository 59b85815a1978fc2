// How a watch's events read: the representation the request negotiated (the stored JSON, a Table for
// `kubectl get -w`, PartialObjectMetadata, or protobuf frames), one encoder per watch; storage's watch hub
// decides what is sent and when.
import {
  encodeKubeProtobuf,
  PROTOBUF_WATCH,
  protobufMessage,
  watchEventFrame,
} from '../../apimachinery/protobuf-encode.ts';
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
  /** Events are protobuf frames (Accept application/vnd.kubernetes.protobuf, for a built-in kind). */
  protobuf: boolean;
}

const line = (type: string, objectJson: string) => `{"type":"${type}","object":${objectJson}}\n`;

export function watchEncoder(e: WatchEncoding): WatchEncoder {
  const message = e.protobuf ? protobufMessage(e.t) : undefined;
  if (message !== undefined) return protobufWatchEncoder(e, message);
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
  return { contentType: 'application/json', event, bookmark, error };
}

/**
 * A protobuf watch, as kube-apiserver serves one to client-go's typed clients: each event a WatchEvent frame
 * whose object is the protobuf serializer's (`k8s\0`, runtime.Unknown). A stored object's encoding is made
 * once per version and shared by every protobuf watcher (rec.pb), as its JSON is (recJson).
 */
function protobufWatchEncoder(e: WatchEncoding, message: string): WatchEncoder {
  const version = apiVersionOf(e.t);
  const event = (type: string, rec: Rec): Buffer => {
    if (rec.obj.apiVersion !== version)
      return watchEventFrame(type, encodeKubeProtobuf(e.present(e.t, rec.obj), message));
    rec.pb ??= encodeKubeProtobuf(rec.obj, message);
    return watchEventFrame(type, rec.pb);
  };
  // An object of the watched kind with only metadata.resourceVersion (and the initial-events-end annotation).
  const bookmark = (resourceVersion: string, annotations: Record<string, string> | undefined): Buffer => {
    const metadata = annotations ? { resourceVersion, annotations } : { resourceVersion };
    const obj = { kind: e.t.kind, apiVersion: version, metadata };
    return watchEventFrame('BOOKMARK', encodeKubeProtobuf(obj, message));
  };
  const error = (err: ApiError): Buffer =>
    watchEventFrame('ERROR', encodeKubeProtobuf(statusBody(err), 'Status'));
  return { contentType: PROTOBUF_WATCH, event, bookmark, error };
}
