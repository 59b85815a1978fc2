// The live PodSet table the demo prints (pure: objects in, text out).

import { failingCondition } from '@podset/reconcile';

export interface PodSetRow {
  namespace: string;
  name: string;
  generation: number;
  desired: number;
  current: number;
  ready: number;
  observedGeneration: number;
  /**
   * ReplicaFailure is True (its reconciles fail, parked after its last attempt, until fixed), or its
   * progress deadline passed (Progressing=False, ProgressDeadlineExceeded: stalled where it is).
   */
  failing: boolean;
}

interface PodSetLike {
  metadata: { name?: string; namespace?: string; generation?: number };
  spec?: { replicas?: number };
  status?: {
    replicas?: number;
    readyReplicas?: number;
    observedGeneration?: number;
    conditions?: { type?: string; status?: string; reason?: string }[];
  };
}

export function toRow(podset: PodSetLike): PodSetRow {
  return {
    namespace: podset.metadata.namespace ?? '',
    name: podset.metadata.name ?? '',
    generation: podset.metadata.generation ?? 0,
    desired: podset.spec?.replicas ?? 1,
    current: podset.status?.replicas ?? 0,
    ready: podset.status?.readyReplicas ?? 0,
    observedGeneration: podset.status?.observedGeneration ?? 0,
    failing: failingCondition(podset.status?.conditions) !== undefined,
  };
}

/** Converged: the status describes the current spec and every desired pod is ready. */
export function isConverged(row: PodSetRow): boolean {
  return (
    row.observedGeneration === row.generation && row.current === row.desired && row.ready === row.desired
  );
}

export function renderTable(rows: PodSetRow[]): string {
  const header = ['NAMESPACE', 'NAME', 'DESIRED', 'CURRENT', 'READY', 'STATE'];
  const body = [...rows]
    .sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`))
    .map((r) => [
      r.namespace,
      r.name,
      String(r.desired),
      String(r.current),
      String(r.ready),
      r.failing ? 'failing' : isConverged(r) ? 'converged' : 'reconciling',
    ]);
  const all = [header, ...body];
  const widths = header.map((_, i) => Math.max(...all.map((cells) => (cells[i] ?? '').length)));
  return all
    .map((cells) =>
      cells
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('   ')
        .trimEnd(),
    )
    .join('\n');
}
