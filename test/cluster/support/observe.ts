// What the suite sees of one namespace: its pods and PodSets kept current by list+watch (client-node's
// informer) over the admin kubeconfig, so checks read a local cache instead of polling the API server, and
// every pod change can be sampled (a rollout's bounds broken for a moment is seen).
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  makeInformer,
  type Informer,
  type KubernetesObject,
  type ObjectCache,
} from '@kubernetes/client-node';
import type { KubeObject } from '@podset/kube-sim';

type Cached = Informer<KubernetesObject> & ObjectCache<KubernetesObject>;

/** Re-starts an informer whose watch failed (client-node stops it on an error it does not retry). */
function keepRunning(informer: Cached, stopped: () => boolean): void {
  informer.on('error', () => {
    setTimeout(() => {
      if (!stopped()) informer.start().catch(() => undefined);
    }, 500);
  });
}

export class NamespaceView {
  readonly namespace: string;
  readonly #pods: Cached;
  readonly #podSets: Cached;
  #stopped = false;

  private constructor(namespace: string, pods: Cached, podSets: Cached) {
    this.namespace = namespace;
    this.#pods = pods;
    this.#podSets = podSets;
  }

  static async open(kubeconfig: string, namespace: string): Promise<NamespaceView> {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const pods = makeInformer(kc, `/api/v1/namespaces/${namespace}/pods`, () =>
      core.listNamespacedPod({ namespace }),
    ) as Cached;
    const podSets = makeInformer(
      kc,
      `/apis/podset.io/v1/namespaces/${namespace}/podsets`,
      async () =>
        (await custom.listNamespacedCustomObject({
          group: 'podset.io',
          version: 'v1',
          namespace,
          plural: 'podsets',
        })) as { items: KubernetesObject[]; metadata?: { resourceVersion?: string } },
    ) as Cached;
    const view = new NamespaceView(namespace, pods, podSets);
    keepRunning(pods, () => view.#stopped);
    keepRunning(podSets, () => view.#stopped);
    await pods.start();
    await podSets.start();
    return view;
  }

  pods(): KubeObject[] {
    return this.#pods.list(this.namespace) as unknown as KubeObject[];
  }

  podSet(name: string): KubeObject | undefined {
    return this.#podSets.get(name, this.namespace) as unknown as KubeObject | undefined;
  }

  /** Calls `sample` with the namespace's pods after every change to one of them, until the returned stop. */
  sampling(sample: (pods: KubeObject[]) => void): () => void {
    const cb = () => sample(this.pods());
    this.#pods.on('change', cb);
    return () => this.#pods.off('change', cb);
  }

  /** Calls `seen` with every version of a PodSet the watch delivers (added or changed), until the returned stop. */
  watchingPodSets(seen: (podSet: KubeObject) => void): () => void {
    const cb = (obj: KubernetesObject) => seen(obj as unknown as KubeObject);
    this.#podSets.on('add', cb);
    this.#podSets.on('update', cb);
    return () => {
      this.#podSets.off('add', cb);
      this.#podSets.off('update', cb);
    };
  }

  async close(): Promise<void> {
    this.#stopped = true;
    await this.#pods.stop();
    await this.#podSets.stop();
  }
}
