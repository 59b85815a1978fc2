// Helpers shared by the worker's kube-sim tests (the cluster itself comes from useSimCluster): a fresh
// namespace, a PodSet, and the controller under test with a silent log.
import { ResourceClient, type Kube, type KubeObject, type PodSet } from '@podset/kube';
import * as planner from '@podset/reconcile';
import { EntryTags } from '@podset/state';
import { silentLogger } from '@podset/log';
import { createController, type Controller, type ControllerDeps } from '../src/controller.ts';
import { apiState, readFromApi } from '../src/api-state.ts';
import { createEventRecorder } from '../src/events.ts';
import type { ApiReads } from '../src/projection-state.ts';
import type { StateSource } from '../src/state-source.ts';

export const log = silentLogger;

/** The projection's integrity key of these tests (watcher side and worker side hold the same). */
export const testTags = new EntryTags({ current: 'test-projection-key-0123456789abcdef' });

/** A worker's report of a refused projected entry: none is expected where nothing was forged. */
export function noRefusal(entry: { key: string; field: string; reason: string }): never {
  throw new Error(
    `projected entry ${entry.key} ${entry.field} refused (${entry.reason}) where nothing was forged`,
  );
}

/**
 * The API reads of a projection's source as the worker opens them: consistent for a fallback, from the
 * watch cache (resourceVersion=0) before acting; `refused` hears of refused entries (default: none expected).
 */
export function apiReads(kube: Kube, refused: ApiReads['refused'] = noRefusal): ApiReads {
  const api = apiState(kube);
  return {
    fallback: (ref, signal) => api.read(ref, signal),
    confirm: (ref, _why, signal) => readFromApi(kube, ref, 'cached', signal),
    refused,
  };
}

/** Creates namespace `name`, so a test sees only its own pods and audit entries. */
export async function createNamespace(kube: Kube, name: string): Promise<string> {
  const namespaces = new ResourceClient<KubeObject>(kube.client, {
    group: '',
    version: 'v1',
    plural: 'namespaces',
  });
  await namespaces.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

/** Creates a PodSet of `replicas` busybox pods; with `finalized`, it already carries the cleanup finalizer. */
export async function createPodSet(
  kube: Kube,
  ns: string,
  name: string,
  replicas: number,
  { finalized = false }: { finalized?: boolean } = {},
): Promise<PodSet> {
  return kube.podSets.create(ns, {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name, namespace: ns, ...(finalized ? { finalizers: [planner.CLEANUP_FINALIZER] } : {}) },
    spec: { replicas, template: { spec: { containers: [{ name: 'app', image: 'busybox' }] } } },
  });
}

export interface TestControllerOptions {
  /** Default: the API. */
  state?: StateSource;
  createBurst?: number;
  /** Default: the controller's own. */
  notReadyRequeueMs?: number;
  /** Record only Warning events (the tests that count API calls don't want the Normal ones). */
  warningsOnly?: boolean;
  planner?: ControllerDeps['planner'];
  onKeyEnded?: ControllerDeps['onKeyEnded'];
}

/** The real controller on `kube`, with the real planner unless told, its events recorded as `test`. */
export function testController(kube: Kube, o: TestControllerOptions): Controller {
  return createController({
    kube,
    planner: o.planner ?? planner,
    events: createEventRecorder({
      kube,
      log,
      instance: 'test',
      ...(o.warningsOnly ? { types: 'warnings' } : {}),
    }),
    log,
    ...(o.state !== undefined ? { state: o.state } : {}),
    ...(o.onKeyEnded !== undefined ? { onKeyEnded: o.onKeyEnded } : {}),
    options: {
      createBurst: o.createBurst ?? 8,
      ...(o.notReadyRequeueMs !== undefined ? { reconcile: { notReadyRequeueMs: o.notReadyRequeueMs } } : {}),
    },
  });
}
