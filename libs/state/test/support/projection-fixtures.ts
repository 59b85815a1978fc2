// What the projection's test files share: a Redis of the file's own with fresh projections on it, the pod
// and PodSet objects they fold, and the small readers of a fold's answer.
import type { Clock } from '@podset/clock';
import { useRedis } from '@podset/testkit';
import type { Fold, OutOfBoundsValue, ProjectedPod, ProjectedPodSet } from '../../src/projection.ts';
import { ProjectionPair as Projection } from './projection-pair.ts';

/**
 * A Redis for the file's tests (started in its before hook), its client, and projections on it, each under
 * a queue name of its own so that no test sees another's keys.
 */
export function useProjections() {
  const redis = useRedis();
  const client = redis.client;
  let n = 0;
  const queueName = () => `proj-${++n}`;

  /** A fresh projection (its own queue name) marked ready. */
  async function projection(): Promise<Projection> {
    const p = new Projection({ client, prefix: '{podset}', queueName: queueName() });
    await p.markReady();
    return p;
  }

  /** A projection (marked ready) whose reader reports the values it ignored as out of bounds into `seen`. */
  async function boundedProjection(seen: OutOfBoundsValue[], clock?: Clock): Promise<Projection> {
    const p = new Projection({
      client,
      prefix: '{podset}',
      queueName: queueName(),
      outOfBounds: (v) => seen.push(v),
      ...(clock !== undefined ? { clock } : {}),
    });
    await p.markReady();
    return p;
  }

  return { client, queueName, projection, boundedProjection };
}

/** A fold whose owed request goes through (as the watcher does it); answers whether one was owed. */
export async function folded(fold: Promise<Fold>): Promise<boolean> {
  const f = await fold;
  if (f.owed) await f.requested();
  return f.owed;
}

/** A fold whose owed request goes through; answers what it owed: a plan change, a status change, nothing. */
export async function owedFor(fold: Promise<Fold>): Promise<'plan' | 'status' | 'nothing'> {
  const f = await fold;
  if (f.owed) await f.requested();
  return !f.owed ? 'nothing' : f.statusOnly === true ? 'status' : 'plan';
}

/** The pod names PodSet ns/web's state shows. */
export async function podNames(p: Projection): Promise<string[] | undefined> {
  return (await p.read('ns/web'))?.pods.map((x) => x.metadata.name ?? '');
}

export function pod(
  name: string,
  rv: string,
  o: { phase?: string; ready?: boolean; node?: string; deleting?: boolean } = {},
) {
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      resourceVersion: rv,
      creationTimestamp: '2026-01-01T00:00:00Z',
      ...(o.deleting === true ? { deletionTimestamp: '2026-01-01T00:01:00Z' } : {}),
      ownerReferences: [
        { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: 'ps-uid', controller: true },
      ],
      labels: { big: 'x'.repeat(100) },
    },
    spec: {
      ...(o.node !== undefined ? { nodeName: o.node } : {}),
      containers: [{ name: 'c', image: 'nginx' }],
    },
    status: {
      ...(o.phase !== undefined ? { phase: o.phase } : {}),
      conditions: [{ type: 'Ready', status: o.ready === true ? 'True' : 'False' }],
    },
  } as ProjectedPod;
}

export function podset(rv: string, generation: number, status: unknown = {}): ProjectedPodSet {
  return {
    metadata: { name: 'web', namespace: 'ns', uid: 'ps-uid', resourceVersion: rv, generation },
    spec: { replicas: 3 },
    status,
  };
}

/** A clock that stands still until the test moves it. */
export function clockAt(ms: number): Clock & { set(ms: number): void } {
  let now = ms;
  return {
    now: () => now,
    elapsed: () => now,
    sleep: () => Promise.reject(new Error('not slept in this test')),
    set: (to) => {
      now = to;
    },
  };
}

export { Projection };
