// Services: defaults, a cluster IP from 10.96.0.0/16 and node ports from 30000-32767 allocated on create,
// as the API server's allocators would; the allocated cluster IPs are immutable.
import type { JsonObject, KubeObject } from '../../apimachinery/types.ts';
import { isObject } from '../../apimachinery/json.ts';
import { genericStrategy, type Strategy } from '../rest/strategy.ts';

/** Hands out cluster IPs and node ports in turn (each API has its own). */
class ServiceAllocator {
  private nextClusterIp = 1;
  private nextNodePort = 0;

  nodePort(): number {
    return 30000 + (this.nextNodePort++ % 2768);
  }

  clusterIp(): string {
    const n = this.nextClusterIp++;
    return `10.96.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
  }
}

function prepareService(obj: KubeObject, alloc: ServiceAllocator): KubeObject {
  const spec: JsonObject = isObject(obj.spec) ? { ...obj.spec } : {};
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  const nodePorts = spec.type === 'NodePort' || spec.type === 'LoadBalancer';
  if (Array.isArray(spec.ports)) {
    spec.ports = spec.ports.map((p) =>
      isObject(p)
        ? {
            ...p,
            protocol: p.protocol ?? 'TCP',
            targetPort: p.targetPort ?? p.port ?? null,
            ...(nodePorts && p.nodePort === undefined ? { nodePort: alloc.nodePort() } : {}),
          }
        : p,
    );
  }
  if (spec.type !== 'ExternalName' && spec.clusterIP === undefined) {
    const ip = alloc.clusterIp();
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
    spec.ipFamilies ??= ['IPv4'];
    spec.ipFamilyPolicy ??= 'SingleStack';
  }
  const { status: _s, ...rest } = obj;
  return { ...rest, spec, status: { loadBalancer: {} } } as KubeObject;
}

/** A PUT without the allocated cluster IPs keeps them. */
function keepClusterIps(next: KubeObject, current: KubeObject): KubeObject {
  if (!isObject(next.spec) || !isObject(current.spec)) return next;
  const cs = current.spec;
  return {
    ...next,
    spec: {
      ...next.spec,
      ...(next.spec.clusterIP === undefined && cs.clusterIP !== undefined ? { clusterIP: cs.clusterIP } : {}),
      ...(next.spec.clusterIPs === undefined && cs.clusterIPs !== undefined
        ? { clusterIPs: cs.clusterIPs }
        : {}),
    },
  };
}

export function serviceStrategy(): Strategy {
  const alloc = new ServiceAllocator();
  return {
    ...genericStrategy('services'),
    prepareForCreate: (_t, obj) => prepareService(obj, alloc),
    prepareForUpdate: (_t, next, current) => keepClusterIps(next, current),
  };
}
