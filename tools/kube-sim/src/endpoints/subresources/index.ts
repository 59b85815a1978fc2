// The subresources kube-sim serves, by resource: those with handlers of their own for every verb they take
// (a verb they lack is a 405), and status and scale, which serve get, update and patch.
import type { ResourceType } from '../../apimachinery/types.ts';
import { resourceId } from '../../registry/rest/resources.ts';
import { binding } from './binding.ts';
import { eviction } from './eviction.ts';
import type { Handlers } from './handler.ts';
import { kubelet } from './kubelet.ts';
import { log } from './log.ts';
import { scale } from './scale.ts';
import { status } from './status.ts';
import { token } from './token.ts';

// Maps, not object literals: a subresource named like an Object property (`constructor`) is no handler.
const CONNECT = new Map<string, Map<string, Handlers>>([
  [
    'pods',
    new Map([
      ['binding', binding],
      ['eviction', eviction],
      ['log', log],
      ['exec', kubelet],
      ['attach', kubelet],
      ['portforward', kubelet],
    ]),
  ],
  ['serviceaccounts', new Map([['token', token]])],
]);

/** The handlers of a subresource served apart from its resource's verbs (pods/binding, serviceaccounts/token, ...). */
export function connectSubresource(t: ResourceType, sub: string | undefined): Handlers | undefined {
  return sub === undefined ? undefined : CONNECT.get(resourceId(t))?.get(sub);
}

/** status and scale, when the type has them: undefined otherwise (a 404). */
export function storageSubresource(t: ResourceType, sub: string): Handlers | undefined {
  if (sub === 'status') return t.subresources.status ? status : undefined;
  if (sub === 'scale') return t.subresources.scale ? scale : undefined;
  return undefined;
}
