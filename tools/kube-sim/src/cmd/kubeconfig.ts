// Kubeconfig files for the simulated cluster: one user (bearer token) per identity.
import { chmodSync, renameSync, writeFileSync } from 'node:fs';

const CERT_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** A kubeconfig for `identity`; `caCert` (PEM) is trusted for an https `url`. */
export function kubeconfigYaml(
  url: string,
  identity: string,
  token: string,
  caCert: string,
  namespace = 'default',
): string {
  const u = new URL(url);
  // The server certificate names only 127.0.0.1, ::1 and localhost: for another host (a container name),
  // verify the certificate as localhost's.
  const serverName =
    u.protocol === 'https:' && !CERT_HOSTS.has(u.hostname) ? ['    tls-server-name: localhost'] : [];
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: kube-sim',
    '  cluster:',
    `    server: ${url}`,
    ...(url.startsWith('https:')
      ? [`    certificate-authority-data: ${Buffer.from(caCert).toString('base64')}`]
      : []),
    ...serverName,
    'contexts:',
    '- name: kube-sim',
    '  context:',
    '    cluster: kube-sim',
    `    user: ${identity}`,
    `    namespace: ${namespace}`,
    'current-context: kube-sim',
    'users:',
    `- name: ${identity}`,
    '  user:',
    `    token: ${token}`,
    'preferences: {}',
    '',
  ].join('\n');
}

/**
 * Writes the kubeconfig readable by its owner only (it holds a bearer token). Written beside and renamed
 * over the old one, so that a client reloading it (kube-sim restarted) never reads a half-written file.
 */
export function writeKubeconfig(
  path: string,
  url: string,
  identity: string,
  token: string,
  caCert: string,
): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, kubeconfigYaml(url, identity, token, caCert), { mode: 0o600 });
  // A stale temporary file of the same name keeps its mode through writeFileSync.
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}
