// pods/exec, pods/attach, pods/portforward go through the API server to the pod's kubelet, which kube-sim
// does not run. So it answers as an API server does when it cannot reach one: the same checks first (the
// pod, the container, a node assigned, an upgrade request), then the dial error, a 500 whose message kubectl
// prints as "Error from server: error dialing backend: …".
import { ApiError, type ResourceType } from '../../apimachinery/types.ts';
import type { RequestScope } from '../request/request-scope.ts';
import type { Handlers } from './handler.ts';

const KUBELET_PORT = 10250;

function kubeletUnreachable(s: RequestScope): never {
  const { api } = s.deps;
  const name = s.info.name ?? '';
  const pod = api.get(api.registry.lookup('', 'v1', 'pods') as ResourceType, s.info.namespace ?? '', name);
  const spec = (pod.spec ?? {}) as {
    nodeName?: string;
    containers?: { name?: string }[];
    initContainers?: { name?: string }[];
  };
  const container = s.query.get('container');
  const names = [...(spec.containers ?? []), ...(spec.initContainers ?? [])].map((c) => c.name);
  if (s.info.subresource !== 'portforward' && container !== null && !names.includes(container)) {
    throw new ApiError(400, 'BadRequest', `container ${container} is not valid for pod ${name}`);
  }
  if (!spec.nodeName) throw new ApiError(400, 'BadRequest', `pod ${name} does not have a host assigned`);
  if (!/upgrade/i.test(String(s.req.headers.connection ?? ''))) {
    throw new ApiError(400, 'BadRequest', 'Upgrade request required');
  }
  const hostIP = (pod.status as { hostIP?: string } | undefined)?.hostIP ?? spec.nodeName;
  throw new ApiError(
    500,
    '',
    `error dialing backend: dial tcp ${hostIP}:${KUBELET_PORT}: connect: connection refused`,
  );
}

/** Served by GET (WebSocket) and POST (SPDY), as the API server connects them. */
export const kubelet: Handlers = { get: kubeletUnreachable, create: kubeletUnreachable };
