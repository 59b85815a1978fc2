// What a resource request's Accept header asks for, as the API server negotiates it: the object itself
// (JSON, or protobuf for a watch of a built-in kind), a Table (kubectl get), or only metadata
// (PartialObjectMetadata for a get or a watch event, PartialObjectMetadataList for a list: what
// metadata-only informers use). Other than those protobuf watches kube-sim serves JSON only, so an Accept it
// cannot serve in any of its alternatives is a 406, never a 200 with another form.
import { PROTOBUF } from '../../apimachinery/protobuf-encode.ts';
import { ApiError, type JsonObject, type KubeObject } from '../../apimachinery/types.ts';

/** 'protobuf' is the object itself in Kubernetes protobuf; the others are JSON. */
export type Representation =
  'object' | 'protobuf' | 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

/** The media types kube-sim can answer a resource request with (as the 406 message lists them). */
const SERVED = [
  'application/json',
  'application/json;as=Table;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
];

interface MediaRange {
  type: string;
  params: Map<string, string>;
  q: number;
}

function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(',')) {
    const [type = '', ...rest] = part.split(';').map((s) => s.trim());
    if (type === '') continue;
    const params = new Map<string, string>();
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim());
    }
    const q = Number(params.get('q') ?? '1');
    params.delete('q');
    ranges.push({ type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 1 });
  }
  // Highest q first; among equals, the order given (a stable sort).
  return ranges.filter((r) => r.q > 0).sort((a, b) => b.q - a.q);
}

/** What one media range would be served as, if kube-sim can serve it. */
function servedAs(r: MediaRange, protobuf: boolean): Representation | undefined {
  // Protobuf only as the object itself (a Table or metadata in protobuf falls to the next alternative, as
  // for a custom resource any protobuf does: kube-apiserver has no protobuf for those either).
  if (r.type === PROTOBUF) return protobuf && !r.params.has('as') ? 'protobuf' : undefined;
  if (r.type !== 'application/json' && r.type !== 'application/*' && r.type !== '*/*') return undefined;
  const as = r.params.get('as');
  if (as === undefined) return 'object';
  const group = r.params.get('g');
  const version = r.params.get('v');
  if (group !== 'meta.k8s.io' || (version !== 'v1' && version !== 'v1beta1')) return undefined;
  return as === 'Table' || as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList'
    ? as
    : undefined;
}

/**
 * The representation to answer `verb` with: the first alternative of the Accept header (by q, then order)
 * that kube-sim serves and that fits the verb — a list is served as Table or PartialObjectMetadataList, a
 * get or a watch event as Table or PartialObjectMetadata, and a watch of a kind with a protobuf message
 * (`protobuf`: a built-in one) in protobuf. None: 406 NotAcceptable, worded as the API server.
 */
export function negotiate(
  accept: string | undefined,
  verb: 'get' | 'list' | 'watch',
  protobuf = false,
): Representation {
  if (accept === undefined || accept.trim() === '') return 'object';
  const protobufWatch = protobuf && verb === 'watch';
  for (const r of parseAccept(accept)) {
    const as = servedAs(r, protobufWatch);
    if (as === undefined) continue;
    if (as === 'PartialObjectMetadataList' && verb !== 'list') continue;
    if (as === 'PartialObjectMetadata' && verb === 'list') continue;
    return as;
  }
  throw new ApiError(
    406,
    'NotAcceptable',
    `only the following media types are accepted: ${(protobufWatch ? [...SERVED, PROTOBUF] : SERVED).join(', ')}`,
  );
}

/** An object as PartialObjectMetadata: its metadata only. */
export function partialObjectMetadata(obj: KubeObject): JsonObject {
  return {
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: obj.metadata as unknown as JsonObject,
  };
}
