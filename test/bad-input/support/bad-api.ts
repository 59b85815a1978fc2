// The operator behind a misbehaving API: kube-sim with a proxy in front (proxy.ts) that the watcher and the
// worker reach through their kubeconfigs, a healthy PodSet converged before the first case.
import assert from 'node:assert/strict';
import type { KubeObject } from '@podset/kube-sim';
import { PODSETS } from '../../e2e/support/check.ts';
import { podSetManifest, type OperatorEnv, type Proc } from '../../e2e/support/harness.ts';
import { healthyStillConverges, problemsOf, startCatalog, writeKubeconfig } from './catalog.ts';
import { startProxy, type Proxy } from './proxy.ts';

export interface BadApi {
  env: OperatorEnv;
  proxy: Proxy;
  watcher: Proc;
  worker: Proc;
  /** Creates PodSet `name` straight in kube-sim's store. */
  create(name: string, replicas: number, namespace?: string): void;
  converges(name: string, namespace?: string): Promise<void>;
  /** The process's log lines matching `re`. */
  logged(proc: Proc, re: RegExp): string[];
  /** Both apps still run. */
  running(): void;
  close(): Promise<void>;
}

/** `appEnv` goes to the watcher and the worker alike (e.g. the state source). */
export async function startBadApi(name: string, appEnv: Record<string, string> = {}): Promise<BadApi> {
  const env = await startCatalog({ name, workerEnv: { MAX_ATTEMPTS: '3', ...appEnv }, watcherEnv: appEnv });
  const proxy = await startProxy(env.sim.url, env.sim.tokens);
  const watcher = env.startWatcher('watcher-0', {
    KUBECONFIG: writeKubeconfig(env, 'kc-watcher', proxy.url, env.sim.tokens.watcher as string),
  });
  const worker = env.startWorker('worker-0', {
    KUBECONFIG: writeKubeconfig(env, 'kc-worker', proxy.url, env.sim.tokens.worker as string),
  });
  await healthyStillConverges(env, 120_000);
  return {
    env,
    proxy,
    watcher,
    worker,
    create: (podset, replicas, namespace = 'default') =>
      void env.sim.cluster.create(
        PODSETS,
        podSetManifest(podset, replicas, { namespace }) as unknown as KubeObject,
      ),
    converges: async (podset, namespace = 'default') =>
      await env.waitFor(`${namespace}/${podset} to converge`, () => problemsOf(env, podset, namespace), {
        timeoutMs: 60_000,
      }),
    logged: (proc, re) => proc.lines().filter((l) => re.test(l)),
    running: () => {
      assert.ok(watcher.running, watcher.describe());
      assert.ok(worker.running, worker.describe());
    },
    close: async () => {
      await env.close();
      await proxy.close();
    },
  };
}
