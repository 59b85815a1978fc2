// Bearer-token authentication: one token per identity; read-only identities get 403 on writes.
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../apimachinery/types.ts';
import type { Filter } from './chain.ts';

export interface AuthOptions {
  /** Identities to mint tokens for (default admin, watcher, worker, controller, viewer). */
  identities?: string[];
  /** Fixed tokens by identity (others are random). */
  tokens?: Record<string, string>;
  /** Identities that may only get/list/watch (default ['viewer']). */
  readOnly?: string[];
}

export const DEFAULT_IDENTITIES = ['admin', 'watcher', 'worker', 'controller', 'viewer'];

export class Auth {
  readonly tokens: Record<string, string> = {};
  private readonly byToken = new Map<string, string>();
  private readonly readOnly: Set<string>;
  /** Service-account tokens issued (token → user), kept apart so a data dir can save and restore them. */
  private readonly saTokens = new Map<string, string>();
  /** Called after a token is added (a data dir then saves it). */
  onChange: (() => void) | undefined;

  constructor(opts: AuthOptions = {}) {
    const ids = new Set([...(opts.identities ?? DEFAULT_IDENTITIES), ...Object.keys(opts.tokens ?? {})]);
    for (const id of ids) {
      const token = opts.tokens?.[id] ?? `${id}-${randomBytes(16).toString('hex')}`;
      this.tokens[id] = token;
      this.byToken.set(token, id);
    }
    this.readOnly = new Set(opts.readOnly ?? ['viewer']);
  }

  /** Adds (or replaces) an identity; returns its token. */
  addIdentity(id: string, token = `${id}-${randomBytes(16).toString('hex')}`, readOnly = false): string {
    const old = this.tokens[id];
    if (old) this.byToken.delete(old);
    this.tokens[id] = token;
    this.byToken.set(token, id);
    if (readOnly) this.readOnly.add(id);
    this.onChange?.();
    return token;
  }

  /** The identity of a request; throws 401 when the token is missing or unknown. */
  authenticate(authorization: string | undefined): string {
    // The common case first: exactly `Bearer <token>`.
    if (authorization?.startsWith('Bearer ')) {
      const fast = this.byToken.get(authorization.slice(7));
      if (fast) return fast;
    }
    const m = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
    const id = m ? this.byToken.get(m[1] as string) : undefined;
    if (!id) throw new ApiError(401, 'Unauthorized', 'Unauthorized');
    return id;
  }

  /** A token for a service account (TokenRequest): its requests are authorized by the stored RBAC. */
  issueServiceAccountToken(namespace: string, name: string): string {
    const token = `sa-${namespace}-${name}-${randomBytes(16).toString('hex')}`;
    this.restoreServiceAccountToken(token, `system:serviceaccount:${namespace}:${name}`);
    this.onChange?.();
    return token;
  }

  /** The service-account tokens issued so far (token → user). */
  serviceAccountTokens(): Record<string, string> {
    return Object.fromEntries(this.saTokens);
  }

  /** Accepts again a service-account token issued before a restart. */
  restoreServiceAccountToken(token: string, user: string): void {
    this.saTokens.set(token, user);
    this.byToken.set(token, user);
  }

  authorize(user: string, verb: string, resource: string, namespace: string | undefined): void {
    if (!this.readOnly.has(user)) return;
    if (verb === 'get' || verb === 'list' || verb === 'watch') return;
    const where = namespace ? ` in the namespace "${namespace}"` : ' at the cluster scope';
    throw new ApiError(
      403,
      'Forbidden',
      `${resource} is forbidden: User "${user}" cannot ${verb} resource "${resource}"${where}`,
    );
  }
}

/** The authentication filter: the request's identity from its bearer token, else 401. */
export function withAuthentication(auth: Auth): Filter {
  return async (ctx, next) => {
    ctx.attributes.user = auth.authenticate(ctx.req.headers.authorization);
    await next();
  };
}
