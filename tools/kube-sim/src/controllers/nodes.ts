// Simulated nodes: on start, make sure `count` Ready nodes named `<prefix>1..count` exist.
import { healthyNodeConditions } from './node-conditions.ts';
import type { ClusterAccess, KubeObject } from '../apimachinery/types.ts';
import { isApiError, mutate, nowIso } from './util.ts';

export interface NodeOptions {
  /** How many nodes to create. */
  count: number;
  /** Node names are `${namePrefix}${i}`, i from 1. */
  namePrefix: string;
  /** Reported status.nodeInfo.kubeletVersion (and kubeProxyVersion). */
  kubeletVersion: string;
}

export function nodeName(options: Pick<NodeOptions, 'namePrefix'>, i: number): string {
  return `${options.namePrefix}${i}`;
}

/** The Node object (metadata + spec) for simulated node number `i` (1-based). */
export function simulatedNode(options: NodeOptions, i: number): KubeObject {
  const name = nodeName(options, i);
  const zone = `sim-zone-${String.fromCharCode(97 + ((i - 1) % 3))}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'beta.kubernetes.io/arch': 'amd64',
        'node.kubernetes.io/instance-type': 'kube-sim',
        'topology.kubernetes.io/zone': zone,
        'kube-sim.podset.io/simulated': 'true',
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: { providerID: `kube-sim://${name}` },
  };
}

export function simulatedNodeStatus(options: NodeOptions, i: number, now = nowIso()): KubeObject['status'] {
  const name = nodeName(options, i);
  const id = (i + 0x1000).toString(16).padStart(8, '0');
  return {
    capacity: { cpu: '4', memory: '16393216Ki', pods: '110', 'ephemeral-storage': '102400000Ki' },
    allocatable: { cpu: '4', memory: '16290816Ki', pods: '110', 'ephemeral-storage': '94371840Ki' },
    conditions: healthyNodeConditions(now),
    addresses: [
      { type: 'InternalIP', address: `192.168.49.${1 + i}` },
      { type: 'Hostname', address: name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: `${id}${'0'.repeat(24)}`,
      systemUUID: `${id}-0000-4000-8000-000000000000`,
      bootID: `${id}-0000-4000-8000-00000000b007`,
      kernelVersion: '6.1.0-kube-sim',
      osImage: 'kube-sim simulated node',
      containerRuntimeVersion: 'containerd://1.7.24',
      kubeletVersion: options.kubeletVersion,
      kubeProxyVersion: options.kubeletVersion,
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
    images: [],
  };
}

/** Creates the missing simulated nodes (existing ones are left as they are). Returns their names. */
export function ensureNodes(cluster: ClusterAccess, options: NodeOptions): string[] {
  const names: string[] = [];
  for (let i = 1; i <= options.count; i++) {
    const name = nodeName(options, i);
    names.push(name);
    if (cluster.get('nodes', undefined, name)) continue;
    let created: KubeObject;
    try {
      created = cluster.create('nodes', simulatedNode(options, i));
    } catch (err) {
      if (isApiError(err, 409)) continue; // created meanwhile
      throw err;
    }
    mutate(cluster, 'updateStatus', 'nodes', undefined, name, created.metadata.uid, (node) => {
      node.status = simulatedNodeStatus(options, i);
      return node;
    });
  }
  return names;
}
