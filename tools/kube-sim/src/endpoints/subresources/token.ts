// serviceaccounts/token (TokenRequest): a bearer token for the service account, whose requests the stored
// RBAC then decides.
import type { ResourceType } from '../../apimachinery/types.ts';
import { parseBody, readBody } from '../request/request-body.ts';
import type { RequestScope } from '../request/request-scope.ts';
import { sendJson } from '../request/response.ts';
import type { Handlers } from './handler.ts';

const DEFAULT_TOKEN_SECONDS = 3600;

/** A time as metav1.Time writes it: seconds precision. */
const seconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

async function tokenRequest(s: RequestScope): Promise<void> {
  const { api } = s.deps;
  const ns = s.info.namespace ?? '';
  const name = s.info.name ?? '';
  const saType = api.registry.lookup('', 'v1', 'serviceaccounts') as ResourceType;
  const buf = await readBody(s.req);
  api.get(saType, ns, name); // 404 when the service account doesn't exist
  let spec: { audiences?: string[]; expirationSeconds?: number } = {};
  if (buf.length) {
    const body = parseBody(buf, s.req.headers['content-type']) as { spec?: typeof spec };
    spec = body.spec ?? {};
  }
  const lifetime =
    typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : DEFAULT_TOKEN_SECONDS;
  const now = Date.now();
  sendJson(s.res, 201, {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace: ns, creationTimestamp: seconds(now) },
    spec: {
      audiences: spec.audiences ?? ['https://kubernetes.default.svc'],
      expirationSeconds: lifetime,
      boundObjectRef: null,
    },
    status: {
      token: s.deps.issueServiceAccountToken(ns, name),
      expirationTimestamp: seconds(now + lifetime * 1000),
    },
  });
}

export const token: Handlers = { create: tokenRequest };
