// PodSets as the bench makes and judges them: a manifest, the load pool that sends them, and when a pod is
// ready and a PodSet converged.
import { isPodReady } from '@podset/reconcile';
import type { KubeObj } from './client.ts';
import { NS } from './cluster.ts';
import { throwIfInterrupted } from './interrupt.ts';

/** A PodSet manifest of `replicas` pods. */
export function podSetBody(name: string, replicas: number, namespace = NS): Record<string, unknown> {
  return {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name, namespace },
    spec: {
      replicas,
      template: {
        metadata: { labels: { app: 'bench' } },
        spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }] },
      },
    },
  };
}

/** Runs `fn(i)` for i in [0, n) with `width` in flight. */
export async function pool(n: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= n) return;
      // Ctrl-C stops the load: no new request once the cleanup has begun.
      throwIfInterrupted();
      await fn(i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, n)) }, lane));
}

export function isReady(pod: KubeObj): boolean {
  return isPodReady({ status: pod.status ?? {} });
}

/** A PodSet whose status reports exactly spec.replicas pods, all ready, for its current generation. */
export function isConverged(ps: KubeObj): boolean {
  const want = ps.spec?.replicas ?? 1;
  const s = ps.status;
  return (
    s !== undefined &&
    s.observedGeneration === ps.metadata.generation &&
    (s.replicas ?? 0) === want &&
    (s.readyReplicas ?? 0) === want
  );
}
