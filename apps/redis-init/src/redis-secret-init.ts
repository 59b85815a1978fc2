// Entry point of the install's Job podset-redis-secret-init: ensures the Secrets with the in-cluster Redis's
// passwords exist, one per Redis user (REDIS_SECRET_NAME-<user>, default podset-redis-watcher, -worker,
// -dashboard, -health (the Redis pod's probe user), -scripts (its script loader) and -ops (the operations
// user, for a person un-wedging Redis)), each app mounting only its own, and the one with
// the projection's integrity key (PROJECTION_KEY_SECRET_NAME, default podset-projection-key). Prints what
// it did, never a secret.
import { exitOnConfigError, parseEnv } from '@podset/config';
import {
  apiServerEgressEnv,
  ensureProjectionKeySecret,
  ensureRedisSecret,
  KubeClient,
  loadKubeConfig,
  reportApiEgress,
} from '@podset/kube';
import { APP_USERS, type AppUser } from '@podset/redis';

const namespace = process.env['POD_NAMESPACE'];
const name = process.env['REDIS_SECRET_NAME'] || 'podset-redis';
const keyName = process.env['PROJECTION_KEY_SECRET_NAME'] || 'podset-projection-key';
if (namespace === undefined || namespace === '') {
  process.stderr.write('redis-secret-init: POD_NAMESPACE is required (the namespace of the Secret)\n');
  process.exit(2);
}
const kubeconfig = process.env['KUBECONFIG'];
const kubeConfig = loadKubeConfig({
  ...(kubeconfig !== undefined && kubeconfig !== '' ? { kubeconfig } : {}),
  inCluster: process.env['KUBE_IN_CLUSTER'] !== 'false',
});
const { API_SERVER_EGRESS } = exitOnConfigError('redis-secret-init', () =>
  parseEnv(apiServerEgressEnv, process.env),
);
// Plain lines as the rest of its output (the message only); warnings on stderr.
const said = (first: object | string, msg?: string): string =>
  typeof first === 'string' ? first : (msg ?? '');
reportApiEgress(kubeConfig, {
  egress: API_SERVER_EGRESS,
  namespace,
  log: {
    warn: (first: object | string, msg?: string) =>
      void process.stderr.write(`redis-secret-init: warning: ${said(first, msg)}\n`),
    info: (first: object | string, msg?: string) =>
      void process.stdout.write(`redis-secret-init: ${said(first, msg)}\n`),
  },
});
const client = new KubeClient({ kubeConfig, userAgent: 'podset-redis-secret-init' });
try {
  const users: (AppUser | 'health' | 'scripts' | 'ops')[] = [...APP_USERS, 'health', 'scripts', 'ops'];
  for (const user of users) {
    const secret = `${name}-${user}`;
    const result = await ensureRedisSecret(client, namespace, secret);
    process.stdout.write(
      result === 'created'
        ? `redis-secret-init: created Secret ${namespace}/${secret} with a random password\n`
        : `redis-secret-init: Secret ${namespace}/${secret} exists; kept as it is\n`,
    );
  }
  const key = await ensureProjectionKeySecret(client, namespace, keyName);
  process.stdout.write(
    key === 'created'
      ? `redis-secret-init: created Secret ${namespace}/${keyName} with a random projection key\n`
      : `redis-secret-init: Secret ${namespace}/${keyName} exists; kept as it is\n`,
  );
} finally {
  await client.close();
}
