// Test fixtures: PodSets and pods as plain JSON, the way the API returns them.
import { templateHash } from '../src/template-hash.ts';
import type { Pod, PodSet } from '../src/types.ts';

export const T0 = Date.parse('2026-01-01T00:00:00Z');
export const UID = 'podset-uid-1';

export function podSet(
  over: { replicas?: number; name?: string; uid?: string; generation?: number } = {},
): PodSet {
  return {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: {
      name: over.name ?? 'web',
      namespace: 'default',
      uid: over.uid ?? UID,
      generation: over.generation ?? 1,
      finalizers: ['podset.io/cleanup'],
      creationTimestamp: '2026-01-01T00:00:00Z',
    },
    spec: {
      replicas: over.replicas ?? 3,
      template: {
        metadata: { labels: { tier: 'web' }, annotations: { note: 'x' } },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      },
    },
  };
}

export interface PodOpts {
  name: string;
  uid?: string;
  owner?: string | null; // owner UID; null: no ownerReference
  phase?: string;
  ready?: boolean;
  node?: string;
  created?: number; // seconds after T0
  deleting?: boolean;
  namespace?: string;
  /** podset.io/template-hash; default: the hash of podSet()'s template; null: no label. */
  hash?: string | null;
  /** When Ready became True, in seconds after T0 (default: no lastTransitionTime). */
  readySince?: number;
}

/** The template hash of the default podSet() fixture. */
export const HASH = templateHash(podSet());

export function pod(o: PodOpts): Pod {
  const owner = o.owner === undefined ? UID : o.owner;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: o.name,
      namespace: o.namespace ?? 'default',
      uid: o.uid ?? `uid-${o.name}`,
      creationTimestamp: new Date(T0 + (o.created ?? 0) * 1000).toISOString().replace('.000Z', 'Z'),
      labels: {
        'podset.io/name': 'web',
        ...(o.hash === null ? {} : { 'podset.io/template-hash': o.hash ?? HASH }),
      },
      ...(owner === null
        ? {}
        : {
            ownerReferences: [
              { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: owner, controller: true },
            ],
          }),
      ...(o.deleting ? { deletionTimestamp: '2026-01-01T01:00:00Z' } : {}),
    },
    spec: o.node ? { nodeName: o.node } : {},
    status: {
      phase: o.phase ?? 'Running',
      conditions: [
        {
          type: 'Ready',
          status: (o.ready ?? true) ? 'True' : 'False',
          ...(o.readySince !== undefined
            ? { lastTransitionTime: new Date(T0 + o.readySince * 1000).toISOString() }
            : {}),
        },
      ],
    },
  };
}
