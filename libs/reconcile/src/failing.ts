// What a PodSet's status says when it is failing, for the readers of that status (the dashboard, the
// demo's table): one rule, so that the two cannot disagree.
import { PROGRESS_DEADLINE_EXCEEDED } from './progress-deadline.ts';

/** A condition as any reader of a PodSet's status has it. */
interface ConditionLike {
  type?: string;
  status?: string;
  reason?: string;
}

/**
 * The condition that says the PodSet is failing, if one does: ReplicaFailure True (its reconciles fail,
 * or it is parked after its last attempt until fixed), else Progressing False with
 * ProgressDeadlineExceeded (a rollout or scale-up stalled where it is, which `kubectl rollout status`
 * reports as an error for a Deployment, not as a rollout still under way).
 */
export function failingCondition<C extends ConditionLike>(
  conditions: readonly C[] | undefined,
): C | undefined {
  const list = conditions ?? [];
  return (
    list.find((c) => c.type === 'ReplicaFailure' && c.status === 'True') ??
    list.find(
      (c) => c.type === 'Progressing' && c.status === 'False' && c.reason === PROGRESS_DEADLINE_EXCEEDED,
    )
  );
}
