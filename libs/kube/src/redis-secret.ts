// The in-cluster Redis's passwords, made once per install: a Secret with a random password per Redis user,
// created if it does not exist and never changed afterwards (Redis's ACL file and that user's app read it
// from there). Creating and treating AlreadyExists as done needs only `create` on Secrets — no right to
// read any of them.
import { randomBytes } from 'node:crypto';
import { ResourceClient, type ResourceRef } from './client.ts';
import type { KubeClient } from './transport.ts';
import { isConflict } from './errors.ts';
import type { KubeObject } from './types.ts';

export const SECRETS: ResourceRef = { group: '', version: 'v1', plural: 'secrets' };

interface Secret extends KubeObject {
  type: string;
  data: Record<string, string>;
}

/** 32 random bytes as URL-safe base64: no character that needs escaping in a redis:// URL. */
export function newPassword(): string {
  return randomBytes(32).toString('base64url');
}

/** Creates Secret `name` with key `password` unless it exists; says which happened. */
export async function ensureRedisSecret(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<'created' | 'exists'> {
  return await ensureRandomSecret(client, namespace, name, 'password');
}

/**
 * The projection's integrity key (PROJECTION_HMAC_KEY_FILE of the watcher and the workers, mounted from
 * this Secret's key `key`; the dashboard does not get it): made and kept as the Redis password is.
 */
export async function ensureProjectionKeySecret(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<'created' | 'exists'> {
  return await ensureRandomSecret(client, namespace, name, 'key');
}

async function ensureRandomSecret(
  client: KubeClient,
  namespace: string,
  name: string,
  key: string,
): Promise<'created' | 'exists'> {
  const secrets = new ResourceClient<Secret>(client, SECRETS);
  try {
    await secrets.create(namespace, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace, labels: { 'app.kubernetes.io/name': 'podset-operator' } },
      type: 'Opaque',
      data: { [key]: Buffer.from(newPassword()).toString('base64') },
    });
    return 'created';
  } catch (err) {
    if (isConflict(err)) return 'exists';
    throw err;
  }
}
