// The request filters and the chain that runs them, as the API server wraps its handler in filters
// (authentication, audit, authorization, ...): each filter sees the request, may answer or refuse it, and
// calls the next.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceType } from '../../apimachinery/types.ts';
import type { RequestInfo } from '../../endpoints/request/request-info.ts';

/** What the audit entry records of a request, filled in as the filters resolve it. */
export interface RequestAttributes {
  user: string;
  verb: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** The path without trailing slashes. */
  path: string;
  /** performance.now() when the request came in. */
  started: number;
  attributes: RequestAttributes;
  /** Records the audit entry now (a watch is recorded when its stream starts); set by the audit filter. */
  record: () => void;
  /** A resource request, resolved, and the type that serves it (set by the request-info filter). */
  info?: RequestInfo;
  type?: ResourceType;
}

export type Next = () => Promise<void>;
export type Filter = (ctx: RequestContext, next: Next) => Promise<void>;
export type Handle = (ctx: RequestContext) => Promise<void>;

/** A handler behind its filters, the first given the outermost. */
export function chain(filters: readonly Filter[], handler: Handle): Handle {
  return filters.reduceRight<Handle>((next, filter) => (ctx) => filter(ctx, () => next(ctx)), handler);
}

export function newContext(req: IncomingMessage, res: ServerResponse): RequestContext {
  const url = new URL(req.url ?? '/', 'http://x');
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
  return {
    req,
    res,
    url,
    path,
    started: performance.now(),
    attributes: { user: '', verb: '', resource: '', subresource: '', namespace: '', name: '' },
    record: () => {},
  };
}
