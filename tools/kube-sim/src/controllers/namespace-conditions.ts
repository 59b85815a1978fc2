// The conditions kube-controller-manager's namespace deleter writes on a terminating namespace after each
// pass: five types, each False with its "all is well" reason unless that pass found otherwise (content left,
// finalizers left). kube-sim discovers and deletes in process, so discovery, group-version parsing and
// content deletion never fail here: those three stay at their False reasons.
import type { Json, JsonObject } from '../apimachinery/types.ts';

/** What a pass left: objects per resource id (`pods`, `deployments.apps`), objects per finalizer. */
export interface RemainingContent {
  resources: Map<string, number>;
  finalizers: Map<string, number>;
}

interface Condition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

const OK: readonly Condition[] = [
  {
    type: 'NamespaceDeletionDiscoveryFailure',
    status: 'False',
    reason: 'ResourcesDiscovered',
    message: 'All resources successfully discovered',
  },
  {
    type: 'NamespaceDeletionGroupVersionParsingFailure',
    status: 'False',
    reason: 'ParsedGroupVersions',
    message: 'All legacy kube types successfully parsed',
  },
  {
    type: 'NamespaceDeletionContentFailure',
    status: 'False',
    reason: 'ContentDeleted',
    message: 'All content successfully deleted, may be waiting on finalization',
  },
  {
    type: 'NamespaceContentRemaining',
    status: 'False',
    reason: 'ContentRemoved',
    message: 'All content successfully removed',
  },
  {
    type: 'NamespaceFinalizersRemaining',
    status: 'False',
    reason: 'ContentHasNoFinalizers',
    message: 'All content-preserving finalizers finished',
  },
];

/** `resource.group` as the real message prints a GroupVersionResource (a core resource ends in a dot). */
function qualified(id: string): string {
  return id.includes('.') ? id : `${id}.`;
}

/** The conditions one pass found, in the order the real controller lists them. */
export function passConditions(remaining: RemainingContent): Condition[] {
  return OK.map((ok) => {
    if (ok.type === 'NamespaceContentRemaining' && remaining.resources.size > 0) {
      const parts = [...remaining.resources]
        .map(([id, n]) => `${qualified(id)} has ${n} resource instances`)
        .sort();
      return {
        type: ok.type,
        status: 'True',
        reason: 'SomeResourcesRemain',
        message: `Some resources are remaining: ${parts.join(', ')}`,
      };
    }
    if (ok.type === 'NamespaceFinalizersRemaining' && remaining.finalizers.size > 0) {
      const parts = [...remaining.finalizers].map(([f, n]) => `${f} in ${n} resource instances`).sort();
      return {
        type: ok.type,
        status: 'True',
        reason: 'SomeFinalizersRemain',
        message: `Some content in the namespace has finalizers remaining: ${parts.join(', ')}`,
      };
    }
    return ok;
  });
}

/**
 * The namespace's conditions with this pass's merged in (a condition keeps its lastTransitionTime unless its
 * status changes; conditions of other types are kept), or undefined when nothing changed.
 */
export function namespaceDeletionConditions(
  old: Json | undefined,
  remaining: RemainingContent,
  now: string,
): JsonObject[] | undefined {
  const out = (Array.isArray(old) ? old : []).filter(
    (c): c is JsonObject => c !== null && typeof c === 'object' && !Array.isArray(c),
  );
  let changed = false;
  for (const next of passConditions(remaining)) {
    const i = out.findIndex((c) => c.type === next.type);
    const prev = i >= 0 ? out[i] : undefined;
    if (prev && prev.status === next.status && prev.reason === next.reason && prev.message === next.message)
      continue;
    changed = true;
    const since =
      prev && prev.status === next.status && typeof prev.lastTransitionTime === 'string'
        ? prev.lastTransitionTime
        : now;
    const written: JsonObject = {
      type: next.type,
      status: next.status,
      lastTransitionTime: since,
      reason: next.reason,
      message: next.message,
    };
    if (i >= 0) out[i] = written;
    else out.push(written);
  }
  return changed ? out : undefined;
}
