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
  /** Pods of the current template the pass is creating: counted as replicas (and updated), not ready. */
  creating?: number;
}

/** Every status field but conditions; podNames sorted. */
export function observedStatus(o: Observed): Omit<Required<PodSetStatus>, 'conditions'> {
  return {
    replicas: o.activePods.length + (o.creating ?? 0),
    readyReplicas: o.activePods.filter(isPodReady).length,
    updatedReplicas: o.updated + (o.creating ?? 0),
    availableReplicas: o.available,
    podNames: o.activePods.map((p) => p.metadata?.name ?? '').sort(),
    observedGeneration: o.generation ?? 0,
    templateHash: o.templateHash,
    selector: podSetSelector(o.name),
  };
}

/**
 * Deep equality as JSON: key order and undefined-valued keys don't matter, array order does. A missing
 * status equals `{}`.
 */
export function statusEqual(a: PodSetStatus | undefined, b: PodSetStatus | undefined): boolean {
  return jsonEqual(a ?? {}, b ?? {});
}

/**
 * Whether JSON.stringify would write `a` and `b` alike once object keys are sorted, compared in place
 * (no sorted copies, no strings: every pass compares its status with the one it read).
 */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a instanceof Date) a = a.toISOString();
  if (b instanceof Date) b = b.toISOString();
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    // What JSON writes as null (null, NaN, ±Infinity) is equal to null.
    return asJsonNull(a) && asJsonNull(b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let defined = 0;
  for (const k of Object.keys(x)) {
    if (x[k] === undefined) continue;
    defined++;
    if (!Object.hasOwn(y, k) || !jsonEqual(x[k], y[k])) return false;
  }
  for (const k of Object.keys(y)) if (y[k] !== undefined) defined--;
  return defined === 0;
}

const asJsonNull = (v: unknown): boolean => v === null || (typeof v === 'number' && !Number.isFinite(v));
