// Kubernetes Events on the PodSet (what `kubectl describe ps` shows). Kept simple: the first occurrence
// creates a core/v1 Event; the same (object, type, reason, message) again within the aggregation window
// patches that Event's count and lastTimestamp, as client-go's recorder does. Recording never fails a
// reconcile: errors are logged and dropped.
import { isNotFound, type CoreEvent, type Kube } from '@podset/kube';
import { API_VERSION, formatTime, KIND } from '@podset/reconcile';
import type { Logger } from '@podset/log';
import { systemClock, type Clock } from '@podset/clock';

export interface InvolvedPodSet {
  namespace: string;
  name: string;
  uid: string;
  resourceVersion?: string;
}

export type EventType = 'Normal' | 'Warning';

/** The PodSet an Event is about, as the Event names it. */
export function involvedOf(podset: {
  metadata: { namespace?: string; name?: string; uid?: string; resourceVersion?: string };
}): InvolvedPodSet {
  return {
    namespace: podset.metadata.namespace ?? '',
    name: podset.metadata.name ?? '',
    uid: podset.metadata.uid ?? '',
    ...(podset.metadata.resourceVersion !== undefined
      ? { resourceVersion: podset.metadata.resourceVersion }
      : {}),
  };
}

/** 's' for a count other than one ("Created pods: …"). */
export function plural(n: number): string {
  return n === 1 ? '' : 's';
}

export interface EventRecorder {
  record(podset: InvolvedPodSet, type: EventType, reason: string, message: string): Promise<void>;
}

export interface EventRecorderOptions {
  kube: Kube;
  log: Logger;
  component?: string;
  instance: string;
  /** Repeats within this window update one Event. Default 10 min (client-go's). */
  windowMs?: number;
  /** At most this many Events remembered for aggregation. Default 4096. */
  cacheSize?: number;
  /** 'warnings': Normal Events are not recorded (each is an API write). Default 'all'. */
  types?: 'all' | 'warnings';
  clock?: Pick<Clock, 'now'>;
}

interface Seen {
  name: string;
  count: number;
  firstTimestamp: string;
  at: number;
}

export function createEventRecorder(opts: EventRecorderOptions): EventRecorder {
  const component = opts.component ?? 'podset-operator';
  const windowMs = opts.windowMs ?? 10 * 60_000;
  const cacheSize = opts.cacheSize ?? 4096;
  const clock = opts.clock ?? systemClock;
  const now = (): number => clock.now();
  const seen = new Map<string, Seen>();
  let seq = 0;

  const eventName = (podset: string, t: number): string =>
    `${podset}.${(BigInt(t) * 1_000_000n + BigInt(seq++ % 1_000_000)).toString(16)}`;

  async function create(
    podset: InvolvedPodSet,
    type: EventType,
    reason: string,
    message: string,
    key: string,
  ) {
    const t = now();
    const stamp = formatTime(t);
    const event: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: eventName(podset.name, t), namespace: podset.namespace },
      involvedObject: {
        apiVersion: API_VERSION,
        kind: KIND,
        namespace: podset.namespace,
        name: podset.name,
        uid: podset.uid,
        ...(podset.resourceVersion !== undefined ? { resourceVersion: podset.resourceVersion } : {}),
      },
      type,
      reason,
      message,
      count: 1,
      firstTimestamp: stamp,
      lastTimestamp: stamp,
      source: { component },
      reportingComponent: component,
      reportingInstance: opts.instance,
    };
    const created = await opts.kube.events.create(podset.namespace, event);
    seen.delete(key);
    seen.set(key, {
      name: created.metadata.name ?? event.metadata.name!,
      count: 1,
      firstTimestamp: stamp,
      at: t,
    });
    while (seen.size > cacheSize) seen.delete(seen.keys().next().value!);
  }

  return {
    async record(podset, type, reason, message) {
      if (type === 'Normal' && opts.types === 'warnings') return;
      const key = `${podset.uid}\u0000${type}\u0000${reason}\u0000${message}`;
      try {
        const prior = seen.get(key);
        if (prior !== undefined && now() - prior.at < windowMs) {
          const t = now();
          try {
            await opts.kube.events.patch(podset.namespace, prior.name, {
              count: prior.count + 1,
              lastTimestamp: formatTime(t),
            });
            prior.count += 1;
            prior.at = t;
            return;
          } catch (err) {
            if (!isNotFound(err)) throw err;
            // The Event expired or was deleted: start a new one.
          }
        }
        await create(podset, type, reason, message, key);
      } catch (err) {
        opts.log.warn(
          { podset: `${podset.namespace}/${podset.name}`, reason, err: String(err) },
          'could not record event',
        );
      }
    },
  };
}
