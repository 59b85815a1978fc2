// What "converged" means for one PodSet, computed independently of the operator's own code from the
// objects in the cluster, by the PodSet API's rules (docs/architecture.md): each function returns the problems it sees,
// worded as "expected … , saw …", so that a timed-out wait can say exactly what was wrong.
import type { KubeObject } from '@podset/kube-sim';

export const NAME_LABEL = 'podset.io/name';
export const PODSETS = 'podsets.podset.io';
export const PODS = 'pods';
export const LEASES = 'leases.coordination.k8s.io';

interface PodSetView {
  spec?: { replicas?: number };
  status?: {
    replicas?: number;
    readyReplicas?: number;
    podNames?: string[];
    observedGeneration?: number;
    selector?: string;
  };
}

interface PodView {
  status?: { phase?: string; conditions?: { type?: string; status?: string }[] };
}

export function specReplicas(ps: KubeObject): number | undefined {
  return (ps as unknown as PodSetView).spec?.replicas;
}

export function statusOf(ps: KubeObject): NonNullable<PodSetView['status']> {
  return (ps as unknown as PodSetView).status ?? {};
}

/** The pod's controller ownerReference points at this UID. */
export function controlledBy(pod: KubeObject, uid: string | undefined): boolean {
  return (
    uid !== undefined &&
    (pod.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === uid)
  );
}

/** Not terminating, not Succeeded/Failed. */
export function isActive(pod: KubeObject): boolean {
  const phase = (pod as unknown as PodView).status?.phase;
  return pod.metadata.deletionTimestamp === undefined && phase !== 'Succeeded' && phase !== 'Failed';
}

export function isReady(pod: KubeObject): boolean {
  return ((pod as unknown as PodView).status?.conditions ?? []).some(
    (c) => c.type === 'Ready' && c.status === 'True',
  );
}

/** The active pods a PodSet controls (owner UID), sorted by name. */
export function activePodsOf(ps: KubeObject, pods: readonly KubeObject[]): KubeObject[] {
  return pods
    .filter((p) => controlledBy(p, ps.metadata.uid) && isActive(p))
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}

/**
 * Problems that keep `ps` from being converged: spec.replicas active pods it controls, all ready;
 * status.replicas == status.readyReplicas == spec.replicas; status.podNames == the active pods' names,
 * sorted; status.observedGeneration == metadata.generation; status.selector names the pods' label.
 */
export function podSetProblems(
  ps: KubeObject | undefined,
  pods: readonly KubeObject[],
  label = 'podset',
): string[] {
  if (ps === undefined) return [`${label}: expected to exist, saw no such PodSet`];
  const name = ps.metadata.name ?? '?';
  const want = specReplicas(ps);
  const st = statusOf(ps);
  const active = activePodsOf(ps, pods);
  const names = active.map((p) => p.metadata.name ?? '');
  const ready = active.filter(isReady).length;
  const problems: string[] = [];
  const say = (what: string, expected: unknown, saw: unknown) =>
    problems.push(`${name}: ${what}: expected ${JSON.stringify(expected)}, saw ${JSON.stringify(saw)}`);
  if (typeof want !== 'number') say('spec.replicas', 'a number', want);
  if (active.length !== want) say('active pods it controls', want, active.length);
  if (ready !== want) say('ready active pods', want, ready);
  if (st.replicas !== want) say('status.replicas', want, st.replicas);
  if (st.readyReplicas !== want) say('status.readyReplicas', want, st.readyReplicas);
  const podNames = st.podNames ?? [];
  if (JSON.stringify(podNames) !== JSON.stringify(names)) say('status.podNames', names, st.podNames);
  if (st.observedGeneration !== ps.metadata.generation) {
    say('status.observedGeneration', ps.metadata.generation, st.observedGeneration);
  }
  if (st.selector !== `${NAME_LABEL}=${name}`) say('status.selector', `${NAME_LABEL}=${name}`, st.selector);
  return problems;
}

/** Parses `kubectl get` table output into rows keyed by the (upper-case) column headers. */
export function parseTable(text: string): Record<string, string>[] {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const header = lines[0];
  if (header === undefined) return [];
  // Columns start where a header word starts; cells are cut at those offsets (kubectl left-aligns).
  const starts: { name: string; at: number }[] = [];
  for (const m of header.matchAll(/\S+/g)) starts.push({ name: m[0], at: m.index });
  return lines.slice(1).map((line) => {
    const row: Record<string, string> = {};
    starts.forEach((col, i) => {
      const end = starts[i + 1]?.at ?? line.length;
      row[col.name] = line.slice(col.at, end).trim();
    });
    return row;
  });
}
