// Test setup: the PodSet CRD installed in a kube-sim through the API, and served.
import { ResourceClient, type Kube, type KubeObject } from '@podset/kube';
import { podSetCrd } from '@podset/reconcile';
import { waitFor } from '@podset/testkit';

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
