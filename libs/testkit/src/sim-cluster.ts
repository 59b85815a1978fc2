// The kube-sim fixture, a separate entry point (`@podset/testkit/sim-cluster`): kube-sim's own tests use
// the rest of testkit, so only the files that ask for a simulated cluster load kube-sim through it.
import type { Redis } from 'ioredis';
import { createKube, loadKubeConfig, ResourceClient, type Kube, type KubeObject } from '@podset/kube';
import { startKubeSim, type KubeSim, type KubeSimOptions } from '@podset/kube-sim';
import { podSetCrd } from '@podset/reconcile';
import { afterTheRest, beforeHook, lateBound } from './late-bound.ts';
import { redisSlot, type RedisFixture } from './fixtures.ts';
import { startRedis, type RedisOptions } from './redis.ts';
import { waitFor } from './wait.ts';

export interface SimClusterOptions {
  /** How kube-sim starts (e.g. `{ controllers: false }`); its pods follow the fast lifecycle unless this
   * names another (`controllerOptions.podLifecycle`): tests need speed, not a kubelet's pace. */
  sim?: KubeSimOptions;
  /** Install the PodSet CRD and wait until PodSets are served. Default true. */
  crd?: boolean;
  /** Start a real Redis alongside (with these options when an object). Default false. */
  redis?: boolean | RedisOptions;
}

export interface SimClusterFixture {
  /** Resolves once all is up: a before() hook of the file that uses the fixture awaits it first. */
  readonly ready: Promise<void>;
  readonly sim: KubeSim;
  /** An unthrottled client to `sim`. */
  readonly kube: Kube;
  /** Only with `redis`. */
  readonly redis: RedisFixture;
  /** A client to `redis`. */
  readonly client: Redis;
}

/**
 * A kube-sim serving PodSets (and a Redis when asked) for the tests of this file or describe() block:
 * started in a before() hook, stopped after the tests and after the file's own after() hooks. The
 * handle's fields can be taken at module level; they are filled in before the tests run.
 */
export function useSimCluster(options: SimClusterOptions = {}): SimClusterFixture {
  let sim: KubeSim | undefined;
  let kube: Kube | undefined;
  const redisOptions = options.redis === true ? {} : options.redis === false ? undefined : options.redis;
  const ready = beforeHook(async () => {
    const started = await Promise.allSettled([
      startKubeSim(withFastPods(options.sim)),
      redisOptions === undefined ? undefined : startRedis(redisOptions),
    ]);
    if (started[0].status === 'fulfilled') sim = started[0].value;
    if (started[1].status === 'fulfilled' && started[1].value !== undefined) redis.fill(started[1].value);
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    kube = createKube(loadKubeConfig({ kubeconfig: sim!.kubeconfigPath }), { qps: 0 });
    if (options.crd !== false) await installPodSetCrd(kube);
  });
  const redis = redisSlot(ready);
  afterTheRest(async () => {
    await kube?.client.close();
    await Promise.all([sim?.close(), redis.close()]);
  });
  return {
    ready,
    sim: lateBound('the kube-sim fixture', () => sim),
    kube: lateBound('the kube-sim fixture client', () => kube),
    redis: redis.handle,
    client: redis.handle.client,
  };
}

/** The options with the fast pod lifecycle, unless they name one. */
export function withFastPods(options: KubeSimOptions = {}): KubeSimOptions {
  return { ...options, controllerOptions: { podLifecycle: 'fast', ...options.controllerOptions } };
}

/** Creates the PodSet CRD and waits until PodSets can be listed. */
export async function installPodSetCrd(kube: Kube): Promise<void> {
  const crds = new ResourceClient<KubeObject>(kube.client, {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    plural: 'customresourcedefinitions',
  });
  await crds.create(undefined, podSetCrd() as unknown as KubeObject);
  await waitFor('CRD served', async () => {
    try {
      await kube.podSets.list('default');
      return true;
    } catch {
      return false;
    }
  });
}
