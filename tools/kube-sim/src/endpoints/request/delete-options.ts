// DeleteOptions, from a DELETE's body (JSON, or the protobuf client-go sends) and its query, as the API
// server reads them: the query wins, an unknown propagationPolicy is a 422, dryRun may come in the body.
import type { WriteOptions } from '../../registry/api.ts';
import { ApiError, type DeleteOptions, type Json } from '../../apimachinery/types.ts';
import { decodeKubeProtobuf } from '../../apimachinery/protobuf.ts';
import { boolParam, intParam } from './query.ts';
import { mediaType } from './request-body.ts';

export type DeleteRequest = DeleteOptions & { orphanDependents?: boolean };

function decode(buf: Buffer, text: string, contentType: string | undefined): Record<string, Json> {
  try {
    const protobuf = mediaType(contentType) === 'application/vnd.kubernetes.protobuf';
    return (protobuf ? decodeKubeProtobuf(buf) : (JSON.parse(text) as unknown)) as Record<string, Json>;
  } catch {
    throw new ApiError(400, 'BadRequest', 'error decoding DeleteOptions');
  }
}

function fromBody(body: Record<string, Json>, out: DeleteRequest, opts: WriteOptions): void {
  if (typeof body.gracePeriodSeconds === 'number') out.gracePeriodSeconds = body.gracePeriodSeconds;
  if (typeof body.propagationPolicy === 'string')
    out.propagationPolicy = body.propagationPolicy as DeleteOptions['propagationPolicy'];
  if (typeof body.orphanDependents === 'boolean') out.orphanDependents = body.orphanDependents;
  const pre = body.preconditions;
  if (pre && typeof pre === 'object' && !Array.isArray(pre)) {
    out.preconditions = {
      ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
      ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}),
    };
  }
  if (Array.isArray(body.dryRun) && body.dryRun.includes('All')) opts.dryRun = true;
}

export function deleteOptions(
  q: URLSearchParams,
  buf: Buffer,
  contentType: string | undefined,
  opts: WriteOptions,
): DeleteRequest {
  const out: DeleteRequest = {};
  const text = buf.toString('utf8').trim();
  if (text) fromBody(decode(buf, text, contentType), out, opts);
  const g = intParam(q, 'gracePeriodSeconds');
  if (g !== undefined) out.gracePeriodSeconds = g;
  const pp = q.get('propagationPolicy');
  if (pp) out.propagationPolicy = pp as DeleteOptions['propagationPolicy'];
  const od = boolParam(q.get('orphanDependents'));
  if (od !== undefined) out.orphanDependents = od;
  if (out.propagationPolicy && !['Background', 'Foreground', 'Orphan'].includes(out.propagationPolicy)) {
    throw new ApiError(
      422,
      'Invalid',
      `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${out.propagationPolicy}"`,
      {
        causes: [
          {
            reason: 'FieldValueNotSupported',
            field: 'propagationPolicy',
            message: `Unsupported value: "${out.propagationPolicy}"`,
          },
        ],
      },
    );
  }
  return out;
}
