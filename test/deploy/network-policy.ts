// NetworkPolicy semantics (networking.k8s.io/v1) for the tests of the rendered manifests: is a connection
// from one endpoint to another on a port allowed by the policies of the namespaces involved? Policies
// select pods by label; a pod no policy selects for a direction is unrestricted in that direction; the
// allowed connections of the policies that select it add up. An ipBlock peer (IPv4) matches an address
// outside the pod network by its CIDR, less its `except` blocks; pods are not matched by ipBlocks here
// (k8s/ names pods by their labels).
import type { K8sObject } from './manifests.ts';

type Labels = Record<string, string>;

interface Requirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}
export interface LabelSelector {
  matchLabels?: Labels;
  matchExpressions?: Requirement[];
}
interface Peer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface PolicyPort {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}
interface PolicyRule {
  from?: Peer[];
  to?: Peer[];
  ports?: PolicyPort[];
}
export interface NetworkPolicy extends K8sObject {
  spec: {
    podSelector: LabelSelector;
    policyTypes?: ('Ingress' | 'Egress')[];
    ingress?: PolicyRule[];
    egress?: PolicyRule[];
  };
}

/** A pod (labels, namespace and its labels) or an address outside the pod network (the API server, a DNS). */
export type Endpoint =
  | { kind: 'pod'; namespace: string; namespaceLabels?: Labels; labels: Labels }
  | { kind: 'external'; ip?: string };

/** An IPv4 address as a 32-bit number. */
function ipv4(ip: string): number {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((n) => !Number.isInteger(n) || n < 0 || n > 255))
    throw new Error(`not an IPv4 address: ${ip}`);
  return parts.reduce((a, n) => a * 256 + n, 0);
}

/** Whether an IPv4 address is inside a CIDR block. */
export function inCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/') as [string, string | undefined];
  const size = 2 ** (32 - Number(bits ?? 32));
  const start = Math.floor(ipv4(base) / size) * size;
  const at = ipv4(ip);
  return at >= start && at < start + size;
}

export function selects(sel: LabelSelector, labels: Labels): boolean {
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const r of sel.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, r.key);
    const value = labels[r.key];
    if (r.operator === 'In' && !(has && (r.values ?? []).includes(value as string))) return false;
    if (r.operator === 'NotIn' && has && (r.values ?? []).includes(value as string)) return false;
    if (r.operator === 'Exists' && !has) return false;
    if (r.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

function typesOf(p: NetworkPolicy): ('Ingress' | 'Egress')[] {
  // Without policyTypes, Ingress always and Egress when the policy has egress rules (as the API defaults).
  return p.spec.policyTypes ?? ['Ingress', ...(p.spec.egress ? (['Egress'] as const) : [])];
}

function peerMatches(peer: Peer, policyNs: string, other: Endpoint): boolean {
  if (peer.ipBlock !== undefined) {
    const block = peer.ipBlock;
    return (
      other.kind === 'external' &&
      other.ip !== undefined &&
      inCidr(other.ip, block.cidr) &&
      !(block.except ?? []).some((e) => inCidr(other.ip as string, e))
    );
  }
  if (other.kind === 'external') return false;
  if (peer.namespaceSelector === undefined) {
    return other.namespace === policyNs && selects(peer.podSelector ?? {}, other.labels);
  }
  const nsLabels = { 'kubernetes.io/metadata.name': other.namespace, ...other.namespaceLabels };
  return selects(peer.namespaceSelector, nsLabels) && selects(peer.podSelector ?? {}, other.labels);
}

function portMatches(ports: PolicyPort[] | undefined, port: number, protocol: string): boolean {
  if (ports === undefined || ports.length === 0) return true;
  return ports.some(
    (p) =>
      (p.protocol ?? 'TCP') === protocol &&
      (p.port === undefined ||
        p.port === port ||
        (typeof p.port === 'number' && p.endPort !== undefined && port >= p.port && port <= p.endPort)),
  );
}

function ruleAllows(
  rule: PolicyRule,
  peers: Peer[] | undefined,
  ns: string,
  other: Endpoint,
  port: number,
  protocol: string,
): boolean {
  if (!portMatches(rule.ports, port, protocol)) return false;
  if (peers === undefined || peers.length === 0) return true; // any peer
  return peers.some((p) => peerMatches(p, ns, other));
}

/** Is the one side's direction allowed by the policies selecting `pod`? */
function sideAllows(
  policies: NetworkPolicy[],
  direction: 'Ingress' | 'Egress',
  pod: Extract<Endpoint, { kind: 'pod' }>,
  other: Endpoint,
  port: number,
  protocol: string,
): boolean {
  const selecting = policies.filter(
    (p) =>
      (p.metadata.namespace ?? '') === pod.namespace &&
      typesOf(p).includes(direction) &&
      selects(p.spec.podSelector, pod.labels),
  );
  if (selecting.length === 0) return true;
  return selecting.some((p) =>
    (direction === 'Ingress' ? (p.spec.ingress ?? []) : (p.spec.egress ?? [])).some((r) =>
      ruleAllows(r, direction === 'Ingress' ? r.from : r.to, pod.namespace, other, port, protocol),
    ),
  );
}

/** A connection from `from` to `to`'s port: the sender's egress and the receiver's ingress must both allow it. */
export function allowed(
  policies: NetworkPolicy[],
  from: Endpoint,
  to: Endpoint,
  port: number,
  protocol = 'TCP',
): boolean {
  const out = from.kind === 'external' || sideAllows(policies, 'Egress', from, to, port, protocol);
  const into = to.kind === 'external' || sideAllows(policies, 'Ingress', to, from, port, protocol);
  return out && into;
}
