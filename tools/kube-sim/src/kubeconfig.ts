// Kubeconfig files for the simulated cluster: one user (bearer token) per identity.
import { writeFileSync } from 'node:fs';
import { CA_CERT } from './tls.ts';

const CA_DATA = Buffer.from(CA_CERT).toString('base64');

const CERT_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function kubeconfigYaml(url: string, identity: string, token: string, namespace = 'default'): string {
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
    ...(url.startsWith('https:') ? [`    certificate-authority-data: ${CA_DATA}`] : []),
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
  mode = 0o600,
): void {
  writeFileSync(path, kubeconfigYaml(url, identity, token), { mode });
}
