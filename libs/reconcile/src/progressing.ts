// The Progressing condition: what work the pass leaves under way (a rollout, a scale-up or -down, pods
// to get ready), or that there is none. As a Deployment's, it stays True once the work is done (reason
// PodSetAvailable), so that only a stall turns it False: the progress deadline is progress-deadline.ts's.
import { plural } from './text.ts';
import type { ConditionInput } from './conditions.ts';
import type { ResolvedStrategy } from './strategy.ts';

/** What a pass found and decided, as far as Progressing tells it. */
export interface Activity {
  /** Hash of the current template. */
  hash: string;
  desired: number;
  strategy: ResolvedStrategy;
  /** Active pods, of any template, once this pass's creates and deletes went through. */
  active: number;
  /** Of them, pods of the current template. */
  updated: number;
  available: number;
  /** Active pods not Ready once this pass's creates and deletes went through (the pods it creates among them). */
  notReady: number;
  /** Ready pods not Ready for minReadySeconds yet, of those that stay. */
  notAvailableYet: number;
  minReadySeconds: number;
  /** Pods this pass creates, and surplus pods it deletes. */
  creates: number;
  surplusDeletes: number;
  /** The pass was capped: more creates or deletes come in the next pass at once. */
  capped: boolean;
  /** A rollout is under way (rolloutUnderWay). */
  rollingOut: boolean;
  /** "3/4 replicas ready", for the message once done. */
  counts: string;
  /** spec.paused: no rollout is made, so progress is not measured (a paused Deployment says so too). */
  paused?: boolean;
}

/** Progressing's reason while spec.paused is true (a Deployment's is DeploymentPaused). */
export const PODSET_PAUSED = 'PodSetPaused';

export interface RolloutFacts {
  strategy: ResolvedStrategy;
  /** Active pods of another template. */
  outdated: number;
  /** Terminating pods of another template: Recreate's rollout lasts until they are gone. */
  outdatedTerminating: number;
  /** Every pod is of the current template, there are as many as desired and all are available. */
  complete: boolean;
  wasRollingOut: boolean;
}

/** A rollout lasts from the first outdated pod seen until the new template's pods are all available. */
export function rolloutUnderWay(f: RolloutFacts): boolean {
  return (
    f.outdated > 0 ||
    (f.strategy.type === 'Recreate' && f.outdatedTerminating > 0) ||
    (f.wasRollingOut && !f.complete)
  );
}

function strategyText(s: ResolvedStrategy): string {
  return s.type === 'Recreate'
    ? 'Recreate'
    : `RollingUpdate (maxSurge ${s.maxSurge}, maxUnavailable ${s.maxUnavailable})`;
}

/** The RolloutStarted event's message. */
export function rolloutStartedMessage(hash: string, from: string, strategy: ResolvedStrategy): string {
  return `Rolling out template ${hash} (from ${from}) with ${strategyText(strategy)}`;
}

/** The reason Progressing keeps once every pod is of the current template and available. */
export const PODSET_AVAILABLE = 'PodSetAvailable';

/**
 * Progressing as the work under way says it: True while there is some, and True (PodSetAvailable) once
 * there is none — the status a Deployment keeps (NewReplicaSetAvailable). It is never False here.
 */
export function progressingCondition(a: Activity): ConditionInput {
  const working = (reason: string, message: string): ConditionInput => ({
    type: 'Progressing',
    status: 'True',
    reason,
    message,
  });
  if (a.paused === true) {
    return { type: 'Progressing', status: 'Unknown', reason: PODSET_PAUSED, message: 'PodSet is paused' };
  }
  if (a.rollingOut) {
    return working(
      'RollingOut',
      `${a.strategy.type} to template ${a.hash}: ${a.updated}/${a.desired} pods updated, ${a.available} available`,
    );
  }
  // A scale is said while it goes on past this pass. The pass that makes its last creates or deletes says
  // what the next pass will find (the new pods not ready yet, or done): that pass, finding just that, has
  // nothing to write, where a ScalingUp written here would cost a second status write of the same counts.
  if (a.capped && a.creates > 0) {
    return working(
      'ScalingUp',
      `${a.active}/${a.desired} replicas after creating ${plural(a.creates, 'pod')}`,
    );
  }
  if (a.capped && a.surplusDeletes > 0) {
    return working(
      'ScalingDown',
      `${a.active}/${a.desired} replicas after deleting ${plural(a.surplusDeletes, 'pod')}`,
    );
  }
  if (a.notReady > 0 || a.notAvailableYet > 0) {
    return working(
      'WaitingForReady',
      a.notReady > 0
        ? `${plural(a.notReady, 'pod')} not ready yet`
        : `${plural(a.notAvailableYet, 'pod')} not ready for ${a.minReadySeconds}s yet`,
    );
  }
  return working(PODSET_AVAILABLE, `template ${a.hash} available: ${a.counts}`);
}
