// What the acceptance tests of @kubernetes/client-node against kube-sim share: a kube-sim whose kubeconfig
// the client loads (HTTPS, its CA, a bearer token) and the typed clients made from it, the Widget CRD of the
// fixtures, the Status of a failed call, a recorded Watch, and a ConfigMap to create.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ApiException,
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  Watch,
  loadYaml,
  type KubernetesObject,
  type V1ConfigMap,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { startKubeSim, type KubeSim } from '../../src/index.ts';
import { waitFor } from '@podset/testkit';

const FIXTURES = join(import.meta.dirname, '../fixtures');
export const NS = 'default';
export const W = { group: 'example.com', version: 'v1', plural: 'widgets' } as const;

export interface Clients {
  sim: KubeSim;
  kc: KubeConfig;
  core: CoreV1Api;
  custom: CustomObjectsApi;
  objects: KubernetesObjectApi;
}

/** A kube-sim and the clients made from its kubeconfig. Pod lifecycles are off: a pod's phase is what a test writes. */
export async function connect(): Promise<Clients> {
  const sim = await startKubeSim({ controllerOptions: { podLifecycle: false }, bookmarkIntervalMs: 200 });
  const kc = new KubeConfig();
  kc.loadFromString(sim.kubeconfigYaml());
  return {
    sim,
    kc,
    core: kc.makeApiClient(CoreV1Api),
    custom: kc.makeApiClient(CustomObjectsApi),
    objects: KubernetesObjectApi.makeApiClient(kc),
  };
}

/** What a file's tests leave to undo when they end, last first: watches to abort, informers to stop. */
export type Cleanup = () => void | Promise<void>;

export async function disconnect(sim: KubeSim | undefined, cleanups: Cleanup[]): Promise<void> {
  for (const c of cleanups.reverse()) await c();
  await sim?.close();
}

/** Creates the fixtures' Widget CRD and waits until it is Established. */
export async function installWidgetCrd(kc: KubeConfig): Promise<void> {
  // loadYaml maps the YAML onto client-node's typed model (`default` → `_default`, ...); a plain parse
  // would have its schema defaults and x-kubernetes-* fields dropped by the client's serializer.
  const crd = loadYaml<V1CustomResourceDefinition>(readFileSync(join(FIXTURES, 'widget-crd.yaml'), 'utf8'));
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  await ext.createCustomResourceDefinition({ body: crd });
  await waitFor('CRD Established', async () => {
    const c = await ext.readCustomResourceDefinition({ name: 'widgets.example.com' });
    return c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True');
  });
}

export function cm(
  name: string,
  data: Record<string, string> = {},
  labels?: Record<string, string>,
): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(labels ? { labels } : {}) },
    data,
  };
}

/** The ApiException a call rejects with (fails if it resolves or throws something else). */
export async function apiError(p: Promise<unknown>): Promise<ApiException<string>> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ApiException, `expected an ApiException, got ${String(e)}`);
    return e as ApiException<string>;
  }
  assert.fail('expected the call to fail');
}

export interface StatusBody {
  kind: string;
  code: number;
  reason: string;
  message: string;
  details?: { name?: string; kind?: string; causes?: { field: string; reason: string; message: string }[] };
}
export const statusOf = (e: ApiException<string>): StatusBody =>
  (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as StatusBody;

/** What a recorded watch ended with; fails (and aborts the watch) if it is still open after `ms`. */
export async function endOf(w: { done: Promise<unknown>; abort: () => void }, ms = 10_000): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      w.abort();
      reject(new Error('the watch is still open'));
    }, ms);
  });
  try {
    return await Promise.race([w.done, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export type WatchEvent = { type: string; object: KubernetesObject & Record<string, unknown> };

/** A Watch that records what it receives; `done` resolves with the error (or null) it ended with. */
export async function recordWatch(
  kc: KubeConfig,
  path: string,
  query: Record<string, string | number | boolean | undefined>,
): Promise<{ events: WatchEvent[]; done: Promise<unknown>; abort: () => void }> {
  const events: WatchEvent[] = [];
  let resolveDone!: (err: unknown) => void;
  const done = new Promise<unknown>((r) => (resolveDone = r));
  const controller = await new Watch(kc).watch(
    path,
    query,
    (type, object) => events.push({ type, object: object as WatchEvent['object'] }),
    (err) => resolveDone(err),
  );
  return { events, done, abort: () => controller.abort() };
}
