// The `default/kubernetes` Service, Endpoints and EndpointSlice, as kube-apiserver's kubernetes service
// controller keeps them: port 443 (https) to the server's own address and port, so in-cluster clients and
// charts that look the API server up (`lookup "v1" "Endpoints" "default" "kubernetes"`) find it. Written
// at start (a restored data dir's copies are brought to the current address), and each made again when
// deleted. What differs: a real server also rewrites them every 10 s when someone changed them; kube-sim
// leaves an update alone, so a test may plant other addresses.
import { isIP } from 'node:net';
import { ApiError, type ClusterAccess, type KubeObject } from '../apimachinery/types.ts';

export const ENDPOINT_SLICES = 'endpointslices.discovery.k8s.io';
const NAMESPACE = 'default';
const NAME = 'kubernetes';
/** The first address of kube-sim's service range (10.96.0.0/16), as a real cluster gives this Service. */
const CLUSTER_IP = '10.96.0.1';

export interface KubernetesService {
  stop(): void;
}

/** The address written into the Endpoints: the listen host when it is an IP others can reach, else loopback. */
export function advertisedAddress(host: string | undefined): string {
  if (host === undefined || isIP(host) === 0 || host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host;
}

/** The three objects, for an API server at ip:port. */
export function kubernetesServiceObjects(ip: string, port: number): Record<string, KubeObject> {
  const meta = (labels: Record<string, string>) => ({ name: NAME, namespace: NAMESPACE, labels });
  return {
    services: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta({ component: 'apiserver', provider: 'kubernetes' }),
      spec: {
        type: 'ClusterIP',
        clusterIP: CLUSTER_IP,
        clusterIPs: [CLUSTER_IP],
        ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }],
        sessionAffinity: 'None',
      },
    },
    endpoints: {
      apiVersion: 'v1',
      kind: 'Endpoints',
      // The apiserver writes both itself: the slice mirroring controller must not copy this one.
      metadata: meta({ 'endpointslice.kubernetes.io/skip-mirror': 'true' }),
      subsets: [{ addresses: [{ ip }], ports: [{ name: 'https', port, protocol: 'TCP' }] }],
    },
    [ENDPOINT_SLICES]: {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: meta({ 'kubernetes.io/service-name': NAME }),
      addressType: isIP(ip) === 6 ? 'IPv6' : 'IPv4',
      endpoints: [{ addresses: [ip], conditions: { ready: true, serving: true, terminating: false } }],
      ports: [{ name: 'https', port, protocol: 'TCP' }],
    },
  };
}

/** Writes the objects now and makes each again when it is deleted; `report` gets unexpected errors. */
export function startKubernetesService(
  cluster: ClusterAccess,
  address: { ip: string; port: number },
  report: (err: unknown) => void,
): KubernetesService {
  const wanted = kubernetesServiceObjects(address.ip, address.port);
  const ensure = (resource: string, current: 'create' | 'replace'): void => {
    const object = wanted[resource] as KubeObject;
    try {
      const existing = cluster.get(resource, NAMESPACE, NAME);
      if (existing === undefined) cluster.create(resource, object);
      else if (current === 'replace')
        cluster.update(resource, {
          ...existing,
          ...object,
          metadata: { ...existing.metadata, labels: object.metadata.labels ?? {} },
        });
    } catch (err) {
      // Made by someone else meanwhile (409), or the namespace is going or gone: nothing to do.
      if (!(err instanceof ApiError) || ![403, 404, 409].includes(err.code)) report(err);
    }
  };
  for (const resource of Object.keys(wanted)) ensure(resource, 'replace');
  const unsubscribe = cluster.subscribe((event) => {
    const { namespace, name } = event.object.metadata;
    if (event.type === 'DELETED' && namespace === NAMESPACE && name === NAME && event.resource in wanted)
      ensure(event.resource, 'create');
  });
  return { stop: unsubscribe };
}
