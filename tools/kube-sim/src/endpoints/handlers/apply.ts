// Server-side apply (PATCH with application/apply-patch+yaml): the configuration merged in with field
// ownership and conflicts (./server-side-apply.ts).
import type { WriteOptions } from '../../registry/api.ts';
import { ApiError, type JsonObject } from '../../apimachinery/types.ts';
import { serverSideApply } from './server-side-apply.ts';
import { typeViewOf } from '../../fieldmanager/field-types.ts';
import { refuseUntypedApply } from '../../apimachinery/type-check.ts';
import { boolParam } from '../request/query.ts';
import { parseBody, readBody } from '../request/request-body.ts';
import type { RequestScope } from '../request/request-scope.ts';
import { send, warningHeaders } from '../request/response.ts';

function fieldManagerRequired(): ApiError {
  return new ApiError(
    422,
    'Invalid',
    'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    {
      causes: [
        {
          reason: 'FieldValueRequired',
          field: 'fieldManager',
          message: 'Required value: is required for apply patch',
        },
      ],
    },
  );
}

/** The apply configuration of the body: an object whose name, if it has one, is the URL's. */
function configuration(body: unknown, name: string): JsonObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError(400, 'BadRequest', 'the apply configuration must be an object');
  }
  const config = body as JsonObject;
  const meta = (config.metadata ?? {}) as Record<string, unknown>;
  if (meta.name !== undefined && meta.name !== name) {
    throw new ApiError(
      400,
      'BadRequest',
      `the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`,
    );
  }
  return config;
}

export async function apply(
  s: RequestScope,
  name: string,
  status: boolean,
  opts: WriteOptions,
): Promise<void> {
  const { api } = s.deps;
  const { t, namespace: ns } = s;
  const manager = s.query.get('fieldManager');
  if (!manager) throw fieldManagerRequired();
  const config = configuration(parseBody(await readBody(s.req), 'application/apply-patch+yaml'), name);
  refuseUntypedApply(t, config, typeViewOf(t, api.registry.isCrdType(t)), { namespace: ns, name });
  const force = boolParam(s.query.get('force')) === true;
  const r = serverSideApply(api, { t, namespace: ns, name, config, manager, force, status }, opts);
  send(s.res, r.created ? 201 : 200, api.jsonFor(t, r.object), warningHeaders(opts));
}
