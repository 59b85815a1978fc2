// The Deployment controller's progress conditions (pkg/controller/deployment/progress.go), as pure
// functions of a Deployment and its ReplicaSets: Progressing as a rollout stands (progress deadline
// included), Paused / Resumed, the ReplicaSets' ReplicaFailure, and when a stuck rollout is looked at again.
import type { JsonObject, KubeObject } from '../apimachinery/types.ts';
import {
  condition,
  deploymentComplete,
  deploymentProgressing,
  deploymentSpec,
  getCondition,
  otherConditions,
  setCondition,
} from './deployment-util.ts';
import { num, obj } from './pod-replicas.ts';

/** checkPausedConditions: the status with Progressing Unknown DeploymentPaused / DeploymentResumed, if due. */
export function pausedStatus(d: KubeObject, now: string): JsonObject | undefined {
  const s = deploymentSpec(d);
  if (s.progressDeadlineSeconds === undefined) return undefined;
  const status = obj(d.status);
  const cond = getCondition(status, 'Progressing');
  if (cond?.reason === 'ProgressDeadlineExceeded') return undefined;
  const pausedNoted = cond?.reason === 'DeploymentPaused';
  if (s.paused && !pausedNoted)
    return setCondition(
      status,
      condition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused', now),
    );
  if (!s.paused && pausedNoted)
    return setCondition(
      status,
      condition('Progressing', 'Unknown', 'DeploymentResumed', 'Deployment is resumed', now),
    );
  return undefined;
}

/**
 * syncRolloutStatus's conditions on the calculated status (counts and Available): Progressing as the
 * rollout stands, and the first ReplicaFailure of the ReplicaSets (the new one's first).
 */
export function rolloutStatus(
  d: KubeObject,
  calculated: JsonObject,
  newRS: KubeObject | undefined,
  oldRSs: KubeObject[],
  now: string,
): JsonObject {
  const status = progressingStatus(d, calculated, newRS, now);
  const failing = [newRS, ...oldRSs]
    .map((rs) => rs && getCondition(obj(rs.status), 'ReplicaFailure'))
    .find((c) => c !== undefined);
  return failing
    ? setCondition(status, {
        type: 'ReplicaFailure',
        status: failing.status ?? 'True',
        lastUpdateTime: failing.lastTransitionTime ?? now,
        lastTransitionTime: failing.lastTransitionTime ?? now,
        reason: failing.reason ?? 'FailedCreate',
        message: failing.message ?? '',
      })
    : { ...status, conditions: otherConditions(status, 'ReplicaFailure') };
}

/** Progressing: complete, progressing (which moves the deadline), or timed out; none without a deadline. */
function progressingStatus(
  d: KubeObject,
  calculated: JsonObject,
  newRS: KubeObject | undefined,
  now: string,
): JsonObject {
  let status = calculated;
  if (deploymentSpec(d).progressDeadlineSeconds === undefined)
    return { ...status, conditions: otherConditions(status, 'Progressing') };
  const current = getCondition(obj(d.status), 'Progressing');
  const complete =
    num(status.replicas, 0) === num(status.updatedReplicas, 0) &&
    current?.reason === 'NewReplicaSetAvailable';
  if (complete) return status;
  const subject = newRS ? `ReplicaSet "${newRS.metadata.name}"` : `Deployment "${d.metadata.name ?? ''}"`;
  if (deploymentComplete(d, status)) {
    const message = `${subject} has successfully progressed.`;
    status = setCondition(status, condition('Progressing', 'True', 'NewReplicaSetAvailable', message, now));
  } else if (deploymentProgressing(d, status)) {
    // Progress updates lastUpdateTime even with the same reason (what the deadline is measured from).
    let c = condition('Progressing', 'True', 'ReplicaSetUpdated', `${subject} is progressing.`, now);
    if (current?.status === 'True') c = { ...c, lastTransitionTime: current.lastTransitionTime ?? now };
    status = { ...status, conditions: [...otherConditions(status, 'Progressing'), c] };
  } else if (timedOut(d, status)) {
    const message = `${subject} has timed out progressing.`;
    status = setCondition(
      status,
      condition('Progressing', 'False', 'ProgressDeadlineExceeded', message, now),
    );
  }
  return status;
}

function timedOut(d: KubeObject, status: JsonObject): boolean {
  const deadline = deploymentSpec(d).progressDeadlineSeconds;
  const c = getCondition(status, 'Progressing');
  if (deadline === undefined || !c || c.reason === 'NewReplicaSetAvailable') return false;
  if (c.reason === 'ProgressDeadlineExceeded') return true;
  const from = Date.parse(String(c.lastUpdateTime ?? ''));
  return Number.isFinite(from) && from + deadline * 1000 < Date.now();
}

/**
 * requeueStuckDeployment: in how many ms to look at the Deployment (as written, `status` its new status)
 * again, when its progress deadline would pass; undefined when nothing is pending.
 */
export function stuckRequeueMs(d: KubeObject, status: JsonObject): number | undefined {
  const deadline = deploymentSpec(d).progressDeadlineSeconds;
  const c = getCondition(obj(d.status), 'Progressing');
  if (
    deadline === undefined ||
    !c ||
    deploymentComplete(d, status) ||
    c.reason === 'ProgressDeadlineExceeded'
  )
    return undefined;
  const from = Date.parse(String(c.lastUpdateTime ?? ''));
  if (!Number.isFinite(from)) return undefined;
  return Math.max(0, from + deadline * 1000 - Date.now()) + 1000;
}
