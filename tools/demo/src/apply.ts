// What `kubectl apply` (client-side) records on an object it creates: the manifest as applied, in the
// kubectl.kubernetes.io/last-applied-configuration annotation. Objects the demo creates carry it, so a
// later `kubectl apply -f examples/…` owns them cleanly instead of warning that it is missing.
import type { KubeObject } from '@podset/kube-sim';

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

export function withLastApplied(manifest: KubeObject): KubeObject {
  const metadata = (manifest.metadata ?? {}) as { annotations?: Record<string, string> };
  const { [LAST_APPLIED]: _previous, ...annotations } = metadata.annotations ?? {};
  const applied: KubeObject = {
    ...manifest,
    metadata: { ...metadata, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) },
  };
  if (Object.keys(annotations).length === 0)
    delete (applied.metadata as { annotations?: unknown }).annotations;
  // kubectl writes the JSON of the applied object, without the annotation itself, and a newline.
  const record = `${JSON.stringify(applied)}\n`;
  return {
    ...applied,
    metadata: { ...applied.metadata, annotations: { ...annotations, [LAST_APPLIED]: record } },
  };
}
