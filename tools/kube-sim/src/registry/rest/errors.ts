// The errors the registry answers with, worded as kube-apiserver's (clients and tests match on the text),
// and metav1.Time as the registry stamps it.
import { ApiError, type FieldCause, type ResourceType } from '../../apimachinery/types.ts';
import { resourceId } from './resources.ts';

export { tooLargeResourceVersion } from '../../storage/errors.ts';

export const MODIFIED_MSG =
  'the object has been modified; please apply your changes to the latest version and try again';

let lastSecond = -1;
let lastStamp = '';
/** RFC 3339 with second precision, as metav1.Time. */
export function timestamp(ms: number): string {
  const sec = Math.floor(ms / 1000);
  if (sec !== lastSecond) {
    lastSecond = sec;
    lastStamp = new Date(sec * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return lastStamp;
}

/** `Pod`, `Deployment.apps`: how error messages name a kind. */
export function qualifiedKind(t: ResourceType): string {
  return t.group ? `${t.kind}.${t.group}` : t.kind;
}

export function notFound(t: { group: string; plural: string }, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${resourceId(t)} "${name}" not found`, {
    details: { name, group: t.group, kind: t.plural },
  });
}

export function invalid(t: ResourceType, name: string, causes: FieldCause[]): ApiError {
  const parts = causes.map((c) => `${c.field}: ${c.message}`);
  const text = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${qualifiedKind(t)} "${name}" is invalid: ${text}`, {
    causes,
    details: { name, group: t.group, kind: t.kind },
  });
}

/** 504 as kube-apiserver answers a resourceVersion it has not reached (e.g. one from another server). */
export function conflict(t: ResourceType, name: string, why: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${resourceId(t)} "${name}": ${why}`,
    {
      details: { name, group: t.group, kind: t.plural },
    },
  );
}

/** The 409 of a write whose uid precondition names another object. */
export function uidConflict(t: ResourceType, name: string, want: string, have: string | undefined): ApiError {
  return conflict(t, name, `Precondition failed: UID in precondition: ${want}, UID in object meta: ${have}`);
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}
