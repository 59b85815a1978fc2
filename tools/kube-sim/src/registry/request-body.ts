// The checks of a write's body before any semantics: it decodes as the resource's Go type, it is an object
// of the resource's kind and version, and the name and namespace it gives agree with the URL's.
import type { ApiError, KubeObject, ResourceType } from '../apimachinery/types.ts';
import { refuseUndecodable } from '../apimachinery/type-check.ts';
import { badRequest } from './rest/errors.ts';
import { isObject } from '../apimachinery/json.ts';
import { apiVersionOf } from './rest/resources.ts';

/** A built-in's body its Go type cannot decode is refused first, as the API server's decoder does. */
export function refuseUndecodableBuiltin(t: ResourceType, isCrd: boolean, body: unknown): void {
  if (!isCrd) refuseUndecodable(t, body);
}

/** The body as an object of `t`: apiVersion and kind filled in, metadata an object (copied). */
export function checkBody(t: ResourceType, body: unknown): KubeObject {
  if (!isObject(body)) throw badRequest('the body of the request is not a JSON object');
  const av = body.apiVersion;
  const kind = body.kind;
  if (kind !== undefined && kind !== t.kind) {
    throw badRequest(`the kind in the body (${String(kind)}) does not match the expected kind (${t.kind})`);
  }
  if (av !== undefined && av !== apiVersionOf(t)) {
    throw badRequest(
      `the API version in the data (${String(av)}) does not match the expected API version (${apiVersionOf(t)})`,
    );
  }
  const metadata = body.metadata;
  if (metadata !== undefined && !isObject(metadata)) throw badRequest('metadata must be an object');
  return {
    ...body,
    apiVersion: apiVersionOf(t),
    kind: t.kind,
    metadata: { ...(metadata ?? {}) },
  } as KubeObject;
}

export function namespaceMismatch(): ApiError {
  return badRequest('the namespace of the provided object does not match the namespace sent on the request');
}

export function nameMismatch(given: string | undefined, name: string): ApiError {
  return badRequest(`the name of the object (${String(given)}) does not match the name on the URL (${name})`);
}

/** An update's body names the object of the URL, or no object. */
export function checkNameMatches(
  obj: KubeObject,
  name: string,
  ns: string | undefined,
  t: ResourceType,
): void {
  if (obj.metadata.name !== undefined && obj.metadata.name !== name)
    throw nameMismatch(obj.metadata.name, name);
  if (t.namespaced && obj.metadata.namespace && ns && obj.metadata.namespace !== ns)
    throw namespaceMismatch();
}
