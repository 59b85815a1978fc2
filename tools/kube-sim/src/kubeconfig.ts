// Kubeconfig files for the simulated cluster: one user (bearer token) per identity.
import { renameSync, writeFileSync } from 'node:fs';

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

export function writeKubeconfig(
  path: string,
  url: string,
  identity: string,
  token: string,
  caCert: string,
  mode = 0o600,
): void {
  // Through a rename: a client re-reading the file (after a restart changed the CA) never sees half of it.
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, kubeconfigYaml(url, identity, token, caCert), { mode });
  renameSync(tmp, path);
}
