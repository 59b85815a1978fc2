// The pod manifest a PodSet creates: generateName `<podset>-`, the template's labels plus the operator's
// own (podset.io/name, managed-by, the template hash), a controller ownerReference to the PodSet's UID, the
// template's spec.
import {
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  MAX_GENERATE_NAME_PREFIX,
  NAME_LABEL,
  TEMPLATE_HASH_LABEL,
} from './api.ts';
import { controllerRefTo } from './ownership.ts';
import { DEFAULT_TEMPLATE } from './podset-schema.ts';
import type { PodManifest, PodSet, PodTemplateSpec } from './types.ts';

/**
 * generateName for the PodSet's pods: `<name>-`, cut to 58 characters as the API server itself does,
 * so the generated name (prefix + 5 random characters) is at most 63.
 */
export function podNamePrefix(podsetName: string): string {
  return `${podsetName}-`.slice(0, MAX_GENERATE_NAME_PREFIX);
}

/** The template in effect: spec.template, or the schema's default. */
export function effectiveTemplate(podset: PodSet): PodTemplateSpec {
  return (podset.spec?.template ?? DEFAULT_TEMPLATE) as PodTemplateSpec;
}

/**
 * Labels of the PodSet's pods: the template's, then podset.io/name, managed-by and the template's hash
 * (these win).
 */
export function podLabels(podset: PodSet, hash: string): Record<string, string> {
  return {
    ...effectiveTemplate(podset).metadata?.labels,
    [NAME_LABEL]: podset.metadata.name ?? '',
    [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
    [TEMPLATE_HASH_LABEL]: hash,
  };
}

/**
 * A pod to create for this PodSet, of the template whose hash is `hash` (templateHash(podset), passed in
 * so that it is computed once per plan). Needs metadata.name and metadata.uid (see specProblem).
 */
export function podManifest(podset: PodSet, hash: string): PodManifest {
  const name = podset.metadata.name ?? '';
  const template = effectiveTemplate(podset);
  const annotations = template.metadata?.annotations;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: podNamePrefix(name),
      namespace: podset.metadata.namespace ?? 'default',
      labels: podLabels(podset, hash),
      ...(annotations && Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}),
      ownerReferences: [controllerRefTo(podset)],
    },
    spec: structuredClone(template.spec),
  };
}
