// spec.progressDeadlineSeconds, as Deployments have it: work under way (a rollout, a scale-up, pods to get
// ready) that makes no progress for that long turns Progressing False with reason
// ProgressDeadlineExceeded. Nothing is rolled back: the pods stay as they are, and the PodSet goes on as
// soon as there is progress again.
//
// The clock is the Progressing condition's lastUpdateTime: set when the work starts, when a new template
// starts a rollout, and whenever the pass sees progress against the status last written (more pods of
// the current template, fewer of other templates, more ready or more available — the measure of
// Deployments' controller). Being in the status, it survives worker restarts and needs no memory.
import { getCondition, type ConditionInput } from './conditions.ts';
import { PODSET_AVAILABLE } from './progressing.ts';
import { formatTime, toMillis } from './time.ts';
import type { PodSetCondition, PodSetStatus } from './types.ts';

export const PROGRESS_DEADLINE_EXCEEDED = 'ProgressDeadlineExceeded';
/**
 * How a stalled rollout's message starts. The condition is the only record that a rollout (not a
 * scale-up) stalled, which decides, once it goes on, whether its end is announced (RolloutComplete).
 */
const STALLED_ROLLOUT = 'Rollout of template';

/** The counts progress is measured by. */
export interface ProgressCounts {
  replicas: number;
  updatedReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
}

/** Progress since `before`, as the Deployment controller measures it. */
export function madeProgress(before: PodSetStatus | undefined, after: ProgressCounts): boolean {
  const b = {
    replicas: before?.replicas ?? 0,
    updated: before?.updatedReplicas ?? 0,
    ready: before?.readyReplicas ?? 0,
    available: before?.availableReplicas ?? 0,
  };
  return (
    after.updatedReplicas > b.updated ||
    after.replicas - after.updatedReplicas < b.replicas - b.updated ||
    after.readyReplicas > b.ready ||
    after.availableReplicas > b.available
  );
}

/** The previous Progressing condition says a rollout was under way (or stalled). */
export function wasRollingOut(previous: PodSetCondition | undefined): boolean {
  return (
    previous?.reason === 'RollingOut' ||
    (previous?.reason === PROGRESS_DEADLINE_EXCEEDED && (previous.message ?? '').startsWith(STALLED_ROLLOUT))
  );
}

export interface DeadlineInput {
  /** Progressing as the work under way says it (progressingCondition). */
  work: ConditionInput;
  /** The status last written. */
  previous: PodSetStatus | undefined;
  /** This pass's counts. */
  counts: ProgressCounts;
  /** Hash of the current template: another one than the status's starts the clock afresh. */
  hash: string;
  deadlineSeconds: number;
  nowMs: number;
}

export interface DeadlineOutcome {
  /** Progressing, with lastUpdateTime while work is under way. */
  condition: ConditionInput;
  /** The deadline passed in this pass: say so once, with a Warning event. */
  exceeded?: { message: string };
  /** While the clock runs: when the deadline falls, to look again then. */
  deadlineInMs?: number;
}

/** When the clock started, if it is still running from an earlier pass. */
function clockStart(i: DeadlineInput, previous: PodSetCondition | undefined): number | undefined {
  if (previous === undefined || i.previous?.templateHash !== i.hash) return undefined;
  // Nothing was under way when the PodSet was done: new work starts the clock afresh.
  if (previous.reason === PODSET_AVAILABLE) return undefined;
  if (previous.status !== 'True' && previous.reason !== PROGRESS_DEADLINE_EXCEEDED) return undefined;
  if (madeProgress(i.previous, i.counts)) return undefined;
  return toMillis(previous.lastUpdateTime ?? previous.lastTransitionTime);
}

function stalledMessage(i: DeadlineInput): string {
  const what = i.work.reason === 'RollingOut' ? `${STALLED_ROLLOUT} ${i.hash}` : 'The PodSet';
  return `${what} has made no progress for ${i.deadlineSeconds}s (progressDeadlineSeconds): ${i.work.message}`;
}

/** Progressing with the deadline applied to the work under way. */
export function withProgressDeadline(i: DeadlineInput): DeadlineOutcome {
  // Done, or not work the deadline applies to: no clock runs.
  if (i.work.status !== 'True' || i.work.reason === PODSET_AVAILABLE) return { condition: i.work };
  const previous = getCondition(i.previous, 'Progressing');
  const since = clockStart(i, previous);
  if (since !== undefined && previous?.reason === PROGRESS_DEADLINE_EXCEEDED) {
    // Still stalled: the condition stays as it was said.
    const { type, status, reason = PROGRESS_DEADLINE_EXCEEDED, message = '', lastUpdateTime } = previous;
    return { condition: { type, status, reason, message, ...(lastUpdateTime ? { lastUpdateTime } : {}) } };
  }
  // Kept to the second, as the status keeps it, so the deadline falls where the next pass will see it
  // (rounded as formatTime rounds, without a text made and parsed back).
  const start = since ?? Math.floor(i.nowMs / 1000) * 1000;
  const deadlineAt = start + i.deadlineSeconds * 1000;
  if (i.nowMs >= deadlineAt) {
    const message = stalledMessage(i);
    return {
      condition: {
        type: 'Progressing',
        status: 'False',
        reason: PROGRESS_DEADLINE_EXCEEDED,
        message,
        lastUpdateTime: formatTime(i.nowMs),
      },
      exceeded: { message },
    };
  }
  return {
    condition: { ...i.work, lastUpdateTime: formatTime(start) },
    deadlineInMs: deadlineAt - i.nowMs,
  };
}
