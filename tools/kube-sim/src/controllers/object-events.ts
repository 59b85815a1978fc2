// core/v1 Events a workload controller records about the object it manages (ScalingReplicaSet,
// SuccessfulCreate, Completed, ...), as `kubectl describe` shows them. A failure to record one is not the
// object's: it is reported, never thrown.
import type { ClusterAccess, KubeObject } from '../apimachinery/types.ts';
import { isApiError, nowIso, type ErrorReporter } from './util.ts';

let counter = 0;

export function recordEvent(
  cluster: ClusterAccess,
  report: ErrorReporter,
  involved: KubeObject,
  event: { component: string; reason: string; message: string; type?: 'Normal' | 'Warning' },
): void {
  const now = nowIso();
  const namespace = involved.metadata.namespace ?? 'default';
  counter++;
  const suffix = (Date.now() * 1000 + (counter % 1000)).toString(16);
  try {
    cluster.create('events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${involved.metadata.name ?? 'object'}.${suffix}`, namespace },
      involvedObject: {
        apiVersion: involved.apiVersion,
        kind: involved.kind,
        namespace,
        name: involved.metadata.name ?? '',
        uid: involved.metadata.uid ?? '',
        resourceVersion: involved.metadata.resourceVersion ?? '',
      },
      reason: event.reason,
      message: event.message,
      source: { component: event.component },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      type: event.type ?? 'Normal',
      eventTime: null,
      reportingComponent: event.component,
      reportingInstance: '',
    });
  } catch (err) {
    if (!isApiError(err, 403) && !isApiError(err, 404) && !isApiError(err, 409)) report(err, 'event');
  }
}
