// A POST to a pod's subresource that writes the pod (binding, eviction): its body handed to `write`, then
// a Success Status, as the API server answers both.
import type { Api, WriteOptions } from '../../registry/api.ts';
import { requestBody } from '../request/request-body.ts';
import { type RequestScope, writeOptions } from '../request/request-scope.ts';
import { sendJson } from '../request/response.ts';
import { successStatus } from '../request/status.ts';
import type { Handlers } from './handler.ts';

type PodWrite = (api: Api, ns: string, name: string, body: unknown, opts: WriteOptions) => void;

export function podWrite(write: PodWrite): Handlers {
  return {
    async create(s: RequestScope): Promise<void> {
      const opts = writeOptions(s.query);
      const body = await requestBody(s.req);
      write(s.deps.api, s.info.namespace ?? '', s.info.name ?? '', body, opts);
      sendJson(s.res, 201, successStatus());
    },
  };
}
