// The Nodes the agent registers and the Leases that are their heartbeats, as a kubelet writes them: pure
// builders of the objects, so what a node says can be read and tested without a cluster.

import { healthyNodeConditions } from '@podset/kube-sim/node-conditions';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** Every node the agent registers carries this label (value: the node prefix), so they are easy to find. */
export const AGENT_LABEL = 'node-agent.podset.io/agent';
export const KUBELET_VERSION = 'v1.32.0';

export interface NodeShape {
  name: string;
  /** 1-based index of the node among the agent's: its addresses and pod CIDR derive from it. */
  index: number;
  maxPods: number;
  prefix: string;
}

export interface NodeObject {
  apiVersion: 'v1';
  kind: 'Node';
  metadata: {
    name: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
    uid?: string;
  };
  spec: { podCIDR: string; podCIDRs: string[]; providerID: string };
  status?: Record<string, unknown>;
}

/** The node's InternalIP: 172.30.<hi>.<lo>, one per index. */
export function hostIPOf(index: number): string {
  return `172.30.${(index >> 8) & 255}.${index & 255}`;
}

/** The node's pod range: 10.244.<index>.0/24 (indexes up to 1000 spill into the next octet pair). */
function podSubnet(index: number): [number, number] {
  return [244 + (index >> 8), index & 255];
}

/** The `n`th pod IP (n from 0) on node `index`: .1 … .254 of its /24, then round again. */
export function podIPOf(index: number, n: number): string {
  const [b, c] = podSubnet(index);
  return `10.${b}.${c}.${(n % 254) + 1}`;
}

export function nodeObject(shape: NodeShape): NodeObject {
  const [b, c] = podSubnet(shape.index);
  const cidr = `10.${b}.${c}.0/24`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: shape.name,
      labels: {
        'kubernetes.io/hostname': shape.name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'node.kubernetes.io/instance-type': 'node-agent',
        [AGENT_LABEL]: shape.prefix.replace(/-+$/, '') || 'agent',
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: { podCIDR: cidr, podCIDRs: [cidr], providerID: `node-agent://${shape.name}` },
  };
}

/** status of a healthy node: Ready, no pressure, its capacity, addresses and what runs it. */
export function nodeStatus(shape: NodeShape, now: string): Record<string, unknown> {
  const resources = {
    cpu: '8',
    memory: '32Gi',
    pods: String(shape.maxPods),
    'ephemeral-storage': '100Gi',
  };
  return {
    capacity: resources,
    allocatable: resources,
    phase: 'Running',
    conditions: healthyNodeConditions(now),
    addresses: [
      { type: 'InternalIP', address: hostIPOf(shape.index) },
      { type: 'Hostname', address: shape.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: shape.name,
      systemUUID: shape.name,
      bootID: shape.name,
      kernelVersion: 'node-agent',
      osImage: 'node-agent (no containers run)',
      containerRuntimeVersion: 'node-agent://0.1.0',
      kubeletVersion: KUBELET_VERSION,
      kubeProxyVersion: KUBELET_VERSION,
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
  };
}

/**
 * The conditions again with a fresh lastHeartbeatTime (lastTransitionTime kept): the periodic node status
 * report, as a merge patch of status.
 */
export function heartbeatPatch(shape: NodeShape, current: unknown, now: string): Record<string, unknown> {
  const fresh = nodeStatus(shape, now);
  const old = Array.isArray(current)
    ? (current as { type?: string; status?: string; lastTransitionTime?: string }[])
    : [];
  const conditions = (fresh.conditions as { type: string; status: string; lastTransitionTime: string }[]).map(
    (c) => {
      const was = old.find((o) => o.type === c.type);
      return was?.status === c.status && was.lastTransitionTime
        ? { ...c, lastTransitionTime: was.lastTransitionTime }
        : c;
    },
  );
  return { status: { conditions } };
}

/** The node's Lease in kube-node-lease, owned by the Node (so it goes with it), renewed at `now`. */
export function leaseObject(
  node: { name: string; uid?: string | undefined },
  leaseSeconds: number,
  now: string,
): Record<string, unknown> {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: node.name,
      namespace: NODE_LEASE_NAMESPACE,
      ...(node.uid !== undefined
        ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: node.uid }] }
        : {}),
    },
    spec: { holderIdentity: node.name, leaseDurationSeconds: leaseSeconds, renewTime: now },
  };
}

/** RFC 3339 with microseconds, as a Lease's renewTime (MicroTime) is written. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** RFC 3339 to the second, as Kubernetes writes Time fields. */
export function secondTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
