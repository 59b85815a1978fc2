// The observed part of a PodSet's status, computed from its active pods, and status comparison.
import { NAME_LABEL } from './api.ts';
import { isPodReady } from './pod-state.ts';
import type { Pod, PodSetStatus } from './types.ts';

/** The label selector of a PodSet's pods, as in status.selector (for the scale subresource / HPA). */
export function podSetSelector(name: string): string {
  return `${NAME_LABEL}=${name}`;
}

/** What the observed part of the status is computed from. */
export interface Observed {
  name: string;
  generation: number | undefined;
  /** Hash of the current template (template-hash.ts). */
  templateHash: string;
  activePods: readonly Pod[];
  /** Active pods of the current template. */
  updated: number;
  /** Active pods Ready for at least minReadySeconds. */
  available: number;
}

/** Every status field but conditions; podNames sorted. */
export function observedStatus(o: Observed): Omit<Required<PodSetStatus>, 'conditions'> {
  return {
    replicas: o.activePods.length,
    readyReplicas: o.activePods.filter(isPodReady).length,
    updatedReplicas: o.updated,
    availableReplicas: o.available,
    podNames: o.activePods.map((p) => p.metadata?.name ?? '').sort(),
    observedGeneration: o.generation ?? 0,
    templateHash: o.templateHash,
    selector: podSetSelector(o.name),
  };
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = canonical(x);
    }
    return out;
  }
  return v;
}

/**
 * Deep equality as JSON: key order and undefined-valued keys don't matter, array order does. A missing
 * status equals `{}`.
 */
export function statusEqual(a: PodSetStatus | undefined, b: PodSetStatus | undefined): boolean {
  return JSON.stringify(canonical(a ?? {})) === JSON.stringify(canonical(b ?? {}));
}
