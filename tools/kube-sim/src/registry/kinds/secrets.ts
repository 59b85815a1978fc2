// Secrets: type Opaque unless given.
import { genericStrategy, type Strategy } from '../rest/strategy.ts';

export function secretStrategy(): Strategy {
  return {
    ...genericStrategy('secrets'),
    prepareForCreate: (_t, obj) => (obj.type ? obj : { ...obj, type: 'Opaque' }),
  };
}
