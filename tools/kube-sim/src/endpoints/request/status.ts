// metav1.Status bodies for errors and successes.
import { ApiError, type JsonObject } from '../../apimachinery/types.ts';

export function statusBody(e: ApiError): JsonObject {
  const details: JsonObject = {};
  if (e.details?.name !== undefined) details.name = e.details.name;
  if (e.details?.group) details.group = e.details.group;
  if (e.details?.kind) details.kind = e.details.kind;
  if (e.causes.length)
    details.causes = e.causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field }));
  if (e.retryAfterSeconds !== undefined) details.retryAfterSeconds = e.retryAfterSeconds;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: e.message,
    // An error the server did not classify has no reason (omitted, as metav1.Status omits an empty one).
    ...(e.reason ? { reason: e.reason } : {}),
    ...(Object.keys(details).length ? { details } : {}),
    code: e.code,
  };
}

export function successStatus(details?: JsonObject): JsonObject {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    ...(details ? { details } : {}),
  };
}

/** Any thrown value as an ApiError (unexpected ones become 500). */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof URIError) return new ApiError(400, 'BadRequest', `malformed URL: ${e.message}`);
  const msg = e instanceof Error ? e.message : String(e);
  return new ApiError(500, 'InternalError', `Internal error occurred: ${msg}`);
}
