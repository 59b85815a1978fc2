// Pods: defaults and what admission adds on create, spec validation (and its immutability on update, but
// for pods/binding), graceful deletion from spec.terminationGracePeriodSeconds.
import type { Json } from '../../apimachinery/types.ts';
import { isObject } from '../../apimachinery/json.ts';
import { preparePod } from '../rest/pod-defaults.ts';
import { validatePodUpdate } from '../rest/pod-update-validation.ts';
import { validatePodSpec } from '../rest/pod-validation.ts';
import { genericStrategy, type Strategy } from '../rest/strategy.ts';

export function podStrategy(): Strategy {
  return {
    ...genericStrategy('pods'),
    graceful: true,
    validateCreate: (obj) => validatePodSpec(obj.spec as Json | undefined),
    validateUpdate: (old, next, opts) => {
      const causes = validatePodSpec(next.spec as Json | undefined);
      // pods/binding sets spec.nodeName, which an update of the pod may not.
      if (!opts.binding)
        causes.push(...validatePodUpdate(old.spec as Json | undefined, next.spec as Json | undefined));
      return causes;
    },
    prepareForCreate: (_t, obj) => preparePod(obj),
    gracePeriod: (obj, requested) => {
      const spec = isObject(obj.spec) ? obj.spec : {};
      const status = isObject(obj.status) ? obj.status : {};
      // A pod no node runs, or one that has ended, has nothing to wait for.
      if (!spec.nodeName || status.phase === 'Succeeded' || status.phase === 'Failed') return 0;
      if (requested !== undefined && requested >= 0) return requested;
      return typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 30;
    },
    readyToRemove: (obj, nowMs) => {
      const m = obj.metadata;
      return m.deletionGracePeriodSeconds === 0 || Date.parse(m.deletionTimestamp ?? '') <= nowMs;
    },
  };
}
