// The observed part of a PodSet's status, computed from its active pods, and status comparison.
import { NAME_LABEL } from './api.ts';
import { isPodReady } from './pod-state.ts';
import type { Pod, PodSetStatus } from './types.ts';

/** The label selector of a PodSet's pods, as in status.selector (for the scale subresource / HPA). */
export function podSetSelector(name: string): string {
  return `${NAME_LABEL}=${name}`;
}

/** replicas, readyReplicas, podNames (sorted), observedGeneration and selector; no conditions. */
export function observedStatus(
  name: string,
  generation: number | undefined,
  activePods: readonly Pod[],
): Omit<Required<PodSetStatus>, 'conditions'> {
  return {
    replicas: activePods.length,
    readyReplicas: activePods.filter(isPodReady).length,
    podNames: activePods.map((p) => p.metadata?.name ?? '').sort(),
    observedGeneration: generation ?? 0,
    selector: podSetSelector(name),
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
