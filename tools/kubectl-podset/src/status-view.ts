// What `rollout status` says of a PodSet as read, by the rules kubectl's DeploymentStatusViewer applies to
// a Deployment: the spec observed, every replica updated, no old replica left, every updated one available.
import type { PodSet } from '@podset/reconcile';

export type StatusView =
  | { kind: 'waiting'; message: string }
  | { kind: 'done'; message: string }
  | { kind: 'failed'; message: string };

export function statusView(ps: PodSet): StatusView {
  const name = ps.metadata.name ?? '';
  const s = ps.status ?? {};
  const waiting = (what: string): StatusView => ({
    kind: 'waiting',
    message: `Waiting for podset "${name}" rollout to finish: ${what}...`,
  });
  if (ps.metadata.generation !== undefined && (s.observedGeneration ?? 0) < ps.metadata.generation) {
    return { kind: 'waiting', message: 'Waiting for podset spec update to be observed...' };
  }
  const progressing = s.conditions?.find((c) => c.type === 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') {
    return { kind: 'failed', message: `podset "${name}" exceeded its progress deadline` };
  }
  if (ps.spec?.paused === true) {
    return {
      kind: 'failed',
      message: `podset "${name}" is paused: its template is not rolled out until \`kubectl podset rollout resume ${name}\``,
    };
  }
  const desired = ps.spec?.replicas ?? 1;
  const updated = s.updatedReplicas ?? 0;
  const replicas = s.replicas ?? 0;
  const available = s.availableReplicas ?? 0;
  if (updated < desired) return waiting(`${updated} out of ${desired} new replicas have been updated`);
  if (replicas > updated) return waiting(`${replicas - updated} old replicas are pending termination`);
  if (available < updated) return waiting(`${available} of ${updated} updated replicas are available`);
  return { kind: 'done', message: `podset "${name}" successfully rolled out` };
}
