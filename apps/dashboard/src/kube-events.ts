// A PodSet's Kubernetes Warning Events (core/v1 Events whose involvedObject is the PodSet), as the
// worker records them (FailedCreate, FailedDelete, …). Read with a field selector, so only this
// PodSet's warnings cross the wire.
import type { CoreEvent, Kube } from '@podset/kube';
import { KIND } from '@podset/reconcile';

export interface WarningEvent {
  reason: string;
  message: string;
  count: number;
  /** Epoch ms. */
  firstAt?: number;
  lastAt?: number;
  /** Who recorded it (reportingComponent / source.component). */
  source?: string;
}

function time(s: string | Date | null | undefined): number | undefined {
  if (s === undefined || s === null || s === '') return undefined;
  const t = s instanceof Date ? s.getTime() : Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * Warning Events of one PodSet, newest first. With `uid`, Events of an earlier PodSet of the same name
 * (deleted and created again) are left out. Pure: exported for tests.
 */
export function warningsOf(
  events: readonly CoreEvent[],
  uid: string | undefined,
  limit: number,
): WarningEvent[] {
  const out: WarningEvent[] = [];
  for (const e of events) {
    if (e.type !== 'Warning') continue;
    const theirs = e.involvedObject?.uid;
    if (uid !== undefined && theirs !== undefined && theirs !== '' && theirs !== uid) continue;
    const lastAt = time(e.lastTimestamp) ?? time(e.eventTime) ?? time(e.metadata?.creationTimestamp);
    const firstAt = time(e.firstTimestamp) ?? lastAt;
    const source = e.reportingComponent || e.source?.component;
    out.push({
      reason: e.reason ?? '',
      message: e.message ?? '',
      count: e.count ?? 1,
      ...(firstAt !== undefined ? { firstAt } : {}),
      ...(lastAt !== undefined ? { lastAt } : {}),
      ...(source ? { source } : {}),
    });
  }
  out.sort((a, b) => (b.lastAt ?? 0) - (a.lastAt ?? 0));
  return out.slice(0, limit);
}

/** The field selector for one PodSet's Warning Events (names are validated before they get here). */
export function warningSelector(name: string): string {
  return `involvedObject.kind=${KIND},involvedObject.name=${name},type=Warning`;
}

export async function readWarnings(
  kube: Kube,
  podSet: { namespace: string; name: string; uid?: string },
  opts: { limit?: number; signal?: AbortSignal } = {},
): Promise<WarningEvent[]> {
  const list = await kube.events.list(podSet.namespace, {
    fieldSelector: warningSelector(podSet.name),
    limit: 500,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return warningsOf(list.items, podSet.uid, opts.limit ?? 50);
}
