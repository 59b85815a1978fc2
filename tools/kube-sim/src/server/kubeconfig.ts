// Kubeconfig files for the simulated cluster: one user (bearer token) per identity.
import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/**
 * The kubeconfigs of one kube-sim: all point at `serverUrl` and trust `caCert`; one per identity, written on
 * demand into a temporary directory unless a path is given (the directory goes at `close`).
 */
export class Kubeconfigs {
  private tmpDir: string | undefined;
  private readonly written = new Map<string, string>();

  readonly serverUrl: string;
  private readonly tokens: Record<string, string>;
  private readonly caCert: string;

  constructor(serverUrl: string, tokens: Record<string, string>, caCert: string) {
    this.serverUrl = serverUrl;
    this.tokens = tokens;
    this.caCert = caCert;
  }

  private tokenOf(identity: string): string {
    const tok = this.tokens[identity];
    if (!tok) throw new Error(`kube-sim: unknown identity "${identity}"`);
    return tok;
  }

  private dir(): string {
    return (this.tmpDir ??= mkdtempSync(join(tmpdir(), 'kube-sim-')));
  }

  /** Writes the kubeconfig of `identity` to `path` (a temporary file when not given); returns the path. */
  write(identity: string, path = join(this.dir(), 'kubeconfig')): string {
    writeKubeconfig(path, this.serverUrl, identity, this.tokenOf(identity), this.caCert);
    return path;
  }

  /** Writes one kubeconfig per identity into `dir`, each named after its identity. */
  writeDir(dir: string): void {
    mkdirSync(dir, { recursive: true });
    for (const id of Object.keys(this.tokens)) this.write(id, join(dir, id));
  }

  /** The kubeconfig written for `identity` (written once, into the temporary directory, when first asked). */
  pathFor(identity: string): string {
    let p = this.written.get(identity);
    if (!p) {
      p = this.write(identity, join(this.dir(), `kubeconfig-${identity}`));
      this.written.set(identity, p);
    }
    return p;
  }

  /** Makes `path` the kubeconfig pathFor(identity) returns. */
  remember(identity: string, path: string): void {
    this.written.set(identity, path);
  }

  yaml(identity: string): string {
    return kubeconfigYaml(this.serverUrl, identity, this.tokenOf(identity), this.caCert);
  }

  /** Removes the temporary directory (and the kubeconfigs written into it). */
  close(): void {
    if (this.tmpDir) rmSync(this.tmpDir, { recursive: true, force: true });
  }
}
