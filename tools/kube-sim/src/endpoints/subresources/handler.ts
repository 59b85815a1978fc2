// A handler of one verb on a resource or subresource.
import type { RequestScope } from '../request/request-scope.ts';

export type Handler = (s: RequestScope) => void | Promise<void>;

/** The handlers of a resource or subresource by verb (get, list, watch, create, update, patch, delete, ...). */
export type Handlers = Partial<Record<string, Handler>>;
