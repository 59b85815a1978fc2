// core/v1 Events about pods, as the scheduler and the kubelet record them (Scheduled, Pulled, Created,
// Started, Unhealthy, BackOff, Killing). Off unless podEvents is on; a failure to record one is not the pod's.
import type { ClusterAccess, KubeObject } from '../apimachinery/types.ts';
import { containersOf, type PodFate } from './pod-status.ts';
import { isApiError, nowIso, type ErrorReporter } from './util.ts';

type Component = 'default-scheduler' | 'kubelet';

export class PodEventRecorder {
  readonly #cluster: ClusterAccess;
  readonly #report: ErrorReporter;
  // Read on every event: the options may be changed while running.
  readonly #options: { readonly podEvents: boolean };
  #counter = 0;

  constructor(cluster: ClusterAccess, options: { readonly podEvents: boolean }, report: ErrorReporter) {
    this.#cluster = cluster;
    this.#options = options;
    this.#report = report;
  }

  scheduled(pod: KubeObject, nodeName: string): void {
    const { namespace, name } = pod.metadata;
    this.#record(pod, 'Scheduled', `Successfully assigned ${namespace}/${name} to ${nodeName}`, {
      component: 'default-scheduler',
    });
  }

  /** The kubelet started the pod's containers (and, for a never-ready pod, its probe fails). */
  containersStarted(pod: KubeObject, nodeName: string | undefined, fate: PodFate): void {
    for (const c of containersOf(pod, 'containers')) {
      const at = { component: 'kubelet', host: nodeName, fieldPath: `spec.containers{${c.name}}` } as const;
      const image = c.image ?? 'busybox';
      this.#record(pod, 'Pulled', `Container image "${image}" already present on machine`, at);
      this.#record(pod, 'Created', `Created container: ${c.name}`, at);
      this.#record(pod, 'Started', `Started container ${c.name}`, at);
      if (fate === 'never-ready') {
        this.#record(pod, 'Unhealthy', 'Readiness probe failed: simulated by kube-sim', {
          ...at,
          type: 'Warning',
        });
      }
    }
  }

  killing(pod: KubeObject, nodeName: string | undefined): void {
    for (const c of containersOf(pod, 'containers')) {
      this.#record(pod, 'Killing', `Stopping container ${c.name}`, {
        component: 'kubelet',
        host: nodeName,
        fieldPath: `spec.containers{${c.name}}`,
      });
    }
  }

  /** A crash-looping pod's containers wait out their back-off before the next restart. */
  backOff(pod: KubeObject, nodeName: string | undefined): void {
    const { namespace, name, uid } = pod.metadata;
    for (const c of containersOf(pod, 'containers')) {
      this.#record(
        pod,
        'BackOff',
        `Back-off restarting failed container ${c.name} in pod ${name ?? ''}_${namespace ?? ''}(${uid ?? ''})`,
        { component: 'kubelet', host: nodeName, fieldPath: `spec.containers{${c.name}}`, type: 'Warning' },
      );
    }
  }

  #record(
    pod: KubeObject,
    reason: string,
    message: string,
    at: { component: Component; host?: string | undefined; type?: 'Normal' | 'Warning'; fieldPath?: string },
  ): void {
    if (!this.#options.podEvents) return;
    const now = nowIso();
    const namespace = pod.metadata.namespace ?? 'default';
    this.#counter++;
    const suffix = (Date.now() * 1000 + (this.#counter % 1000)).toString(16);
    const { component, host } = at;
    try {
      this.#cluster.create('events', {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${pod.metadata.name ?? 'pod'}.${suffix}`, namespace },
        involvedObject: {
          apiVersion: 'v1',
          kind: 'Pod',
          namespace,
          name: pod.metadata.name ?? '',
          uid: pod.metadata.uid ?? '',
          resourceVersion: pod.metadata.resourceVersion ?? '',
          ...(at.fieldPath ? { fieldPath: at.fieldPath } : {}),
        },
        reason,
        message,
        source: host ? { component, host } : { component },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        type: at.type ?? 'Normal',
        eventTime: null,
        reportingComponent: component,
        reportingInstance: host ?? '',
      });
    } catch (err) {
      if (!isApiError(err, 403) && !isApiError(err, 404) && !isApiError(err, 409))
        this.#report(err, 'pod event');
    }
  }
}
