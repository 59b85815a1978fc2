// A kube-sim pod watch opened before an attack, and the ledger of what it saw: every pod change in a
// namespace, in order, so a test can say what the operator did to real pods whatever Redis told it.
import type { KubeObject } from '@podset/kube-sim';
import type { OperatorEnv } from './harness.ts';
import { watchCollection } from './watch.ts';

export interface PodWatchEvent {
  type: string;
  object: KubeObject;
}

/**
 * Every pod event from resourceVersion `rv` on, as the admin sees them, until stop(): in `namespace`, or
 * in every namespace when it is null. `E` is the shape the caller reads of each event (its fields only).
 */
export function watchPods<E extends { type: string } = PodWatchEvent>(
  env: OperatorEnv,
  rv: number,
  namespace: string | null = 'default',
): { events: E[]; stop(): void } {
  const events: E[] = [];
  const path = namespace === null ? '/api/v1/pods' : `/api/v1/namespaces/${namespace}/pods`;
  const watch = watchCollection<E>(
    env,
    path,
    rv,
    (e) => events.push(e),
    (err) => {
      const failed: PodWatchEvent = {
        type: `WATCH FAILED: ${String(err)}`,
        object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: '' } },
      };
      events.push(failed as unknown as E);
    },
  );
  return { events, stop: () => watch.stop() };
}

/** What a PodSet's pods must be made from and how many it may have, as the API holds it. */
export interface PodSetTruth {
  uid: string;
  replicas: number;
  /** The most pods above `replicas` a reconcile may leave alive (a rollout's maxSurge; 0 otherwise). */
  surge: number;
  /** The template's container images, in order. */
  images: string[];
}

function ownerUid(pod: KubeObject): string | undefined {
  return (pod.metadata.ownerReferences ?? []).find((r) => r.controller === true)?.uid;
}

function images(pod: KubeObject): string[] {
  const spec = (pod as unknown as { spec?: { containers?: { image?: string }[] } }).spec;
  return (spec?.containers ?? []).map((c) => c.image ?? '');
}

function privileged(pod: KubeObject): boolean {
  const spec = (
    pod as unknown as {
      spec?: {
        hostPID?: boolean;
        hostNetwork?: boolean;
        containers?: { securityContext?: { privileged?: boolean } }[];
      };
    }
  ).spec;
  return (
    spec?.hostPID === true ||
    spec?.hostNetwork === true ||
    (spec?.containers ?? []).some((c) => c.securityContext?.privileged === true)
  );
}

/**
 * Replays a watch (started when the pods were `initial`) against the API's PodSets and returns every breach, worded "expected …, saw …":
 * a pod whose spec is not its PodSet's template, more live pods than replicas + surge, a pod made for an
 * owner the API does not have, and a live pod deleted while its PodSet had no more than `replicas`
 * (except the pods in `deletedByTest`).
 */
export function podBreaches(
  initial: readonly KubeObject[],
  events: readonly PodWatchEvent[],
  truth: ReadonlyMap<string, PodSetTruth>,
  deletedByTest: ReadonlySet<string>,
): string[] {
  const breaches: string[] = [];
  const live = new Map<string, Set<string>>(); // owner UID → names of pods not terminating
  const byUid = new Map([...truth.values()].map((t) => [t.uid, t]));
  for (const pod of initial) {
    const uid = ownerUid(pod);
    if (uid === undefined || pod.metadata.deletionTimestamp !== undefined) continue;
    live.set(uid, (live.get(uid) ?? new Set<string>()).add(pod.metadata.name ?? ''));
  }
  for (const e of events) {
    if (e.type.startsWith('WATCH FAILED')) {
      breaches.push(`expected the pod watch to run throughout, saw ${e.type}`);
      continue;
    }
    const pod = e.object;
    const name = pod.metadata.name ?? '';
    const uid = ownerUid(pod);
    if (uid === undefined) continue;
    const set = byUid.get(uid);
    const pods = live.get(uid) ?? new Set<string>();
    live.set(uid, pods);
    if (e.type === 'ADDED') {
      if (set === undefined) {
        breaches.push(`expected no pod for an owner the API does not have, saw ${name} (owner ${uid})`);
        continue;
      }
      if (privileged(pod)) breaches.push(`expected no privileged or host pod, saw ${name}`);
      if (images(pod).join(',') !== set.images.join(','))
        breaches.push(`expected ${name} made from its PodSet's template ${set.images}, saw ${images(pod)}`);
      pods.add(name);
      if (pods.size > set.replicas + set.surge)
        breaches.push(
          `expected at most ${set.replicas + set.surge} live pods of owner ${uid}, saw ${pods.size} (${[...pods].join(', ')})`,
        );
      continue;
    }
    const going = e.type === 'DELETED' || pod.metadata.deletionTimestamp !== undefined;
    if (!going || !pods.has(name)) continue;
    if (set !== undefined && !deletedByTest.has(name) && pods.size <= set.replicas)
      breaches.push(
        `expected no live pod deleted while its PodSet had ≤ ${set.replicas}, saw ${name} deleted among ${pods.size}`,
      );
    pods.delete(name);
  }
  return breaches;
}
