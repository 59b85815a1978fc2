// PATCH of one object or of its status or scale: merge, JSON and strategic merge patches (not strategic
// for custom resources), and server-side apply (./apply.ts; not on scale, as the API server).
import type { KubeObject } from '../../apimachinery/types.ts';
import { ApiError } from '../../apimachinery/types.ts';
import { boolParam } from '../request/query.ts';
import { methodNotAllowed } from '../request/request-info.ts';
import { bodyOf, readBody } from '../request/request-body.ts';
import { type RequestScope, writeScope } from '../request/request-scope.ts';
import { send, warningHeaders } from '../request/response.ts';
import { apply } from './apply.ts';

export type PatchTarget = '' | 'status' | 'scale';

const APPLY = 'application/apply-patch+yaml';
const PATCH_TYPES = [
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/strategic-merge-patch+json',
];

/** `force` belongs to apply patches only. */
function forceNotAllowed(): ApiError {
  return new ApiError(
    422,
    'Invalid',
    'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    {
      causes: [
        {
          reason: 'FieldValueForbidden',
          field: 'force',
          message: 'Forbidden: may not be specified for non-apply patch',
        },
      ],
    },
  );
}

/** The 415 of a patch type the resource does not take. */
function unsupportedPatch(custom: boolean): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json${custom ? '' : ', application/strategic-merge-patch+json'}`,
  );
}

export async function patchResource(s: RequestScope, target: PatchTarget): Promise<void> {
  if (s.name === undefined) throw methodNotAllowed();
  const { api, registry } = s.deps;
  const { t } = s;
  const opts = writeScope(s);
  const ct =
    String(s.req.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim()
      .toLowerCase() ?? '';
  if (ct !== APPLY && boolParam(s.query.get('force')) === true) throw forceNotAllowed();
  if (ct === APPLY && target !== 'scale') {
    await apply(s, s.name, target === 'status', opts);
    return;
  }
  if (!PATCH_TYPES.includes(ct)) throw unsupportedPatch(registry.isCrdType(t));
  const body = bodyOf(await readBody(s.req), 'application/json', opts);
  const out = api.patch(t, s.namespace, s.name, ct, body, target, opts);
  // A Scale is answered as is, an object of the resource in its served form.
  const json = target === 'scale' ? JSON.stringify(out) : api.jsonFor(t, out as KubeObject);
  send(s.res, 200, json, warningHeaders(opts));
}

export function patch(s: RequestScope): Promise<void> {
  return patchResource(s, '');
}
