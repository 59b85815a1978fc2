// ResourceQuotas: spec.hard checked and stored canonical (quota-validation.ts), on create and update.
import { prepareResourceQuota } from '../rest/quota-validation.ts';
import { genericStrategy, type Strategy } from '../rest/strategy.ts';

export function resourceQuotaStrategy(): Strategy {
  const generic = genericStrategy('resourcequotas');
  return {
    ...generic,
    prepareForCreate: (t, obj, ctx) =>
      prepareResourceQuota(t, generic.prepareForCreate(t, obj, ctx), obj.metadata.name as string),
    prepareForUpdate: (t, next) => prepareResourceQuota(t, next, next.metadata.name as string),
  };
}
