// Bearer-token authentication: one token per identity; read-only identities get 403 on writes.
import { randomBytes } from 'node:crypto';
import { ApiError } from './types.ts';

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
    this.byToken.set(token, `system:serviceaccount:${namespace}:${name}`);
    return token;
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
