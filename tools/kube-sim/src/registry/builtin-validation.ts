// The spec checks of the built-in kinds kube-sim validates, on create and on update of the main
// resource (objects already defaulted): pods and the workload kinds.
import { validatePodUpdate } from './pod-update-validation.ts';
import { validatePodSpec } from './pod-validation.ts';
import type { FieldCause, Json, KubeObject } from '../apimachinery/types.ts';
import { validateWorkload, validateWorkloadUpdate } from './workload-validation.ts';

export function validateBuiltinCreate(resource: string, o: KubeObject): FieldCause[] {
  if (resource === 'pods') return validatePodSpec(o.spec as Json | undefined);
  return validateWorkload(resource, o);
}

/** `binding`: pods/binding sets spec.nodeName, which an update of the pod may not. */
export function validateBuiltinUpdate(
  resource: string,
  old: KubeObject,
  next: KubeObject,
  binding = false,
): FieldCause[] {
  if (resource === 'pods') {
    const causes = validatePodSpec(next.spec as Json | undefined);
    if (!binding)
      causes.push(...validatePodUpdate(old.spec as Json | undefined, next.spec as Json | undefined));
    return causes;
  }
  return [...validateWorkload(resource, next), ...validateWorkloadUpdate(resource, old, next)];
}
