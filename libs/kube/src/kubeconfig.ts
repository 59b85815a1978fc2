import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KubeConfig, User } from '@kubernetes/client-node';
import { clientNode } from './client-node.ts';
import { trackKubeConfigFile } from './kubeconfig-reload.ts';

export interface LoadKubeConfigOptions {
  /** Path to a kubeconfig file (KUBECONFIG). Wins over everything else. */
  kubeconfig?: string;
  /** Force the in-cluster service account (token and CA under /var/run/secrets/kubernetes.io/serviceaccount). */
  inCluster?: boolean;
  /** Context to use instead of the file's current-context. */
  context?: string;
}

/**
 * KUBECONFIG path if given; else in-cluster when asked or when running in a pod (KUBERNETES_SERVICE_HOST
 * set); else client-node's default search (~/.kube/config). Throws when no cluster is configured.
 */
export function loadKubeConfig(opts: LoadKubeConfigOptions = {}): KubeConfig {
  const kc = new (clientNode().KubeConfig)();
  const file = opts.kubeconfig;
  if (file !== undefined && file !== '') {
    // The text first, then the load: a change in between is seen as a change at the first reload.
    const text = readFileSync(file, 'utf8');
    kc.loadFromFile(file);
    // A failure the file may explain (a new CA, a new token) reloads it: see kubeconfig-reload.ts.
    trackKubeConfigFile(kc, { path: file, text, load: () => loadKubeConfig(opts) });
  } else if (opts.inCluster === true || process.env.KUBERNETES_SERVICE_HOST !== undefined) {
    kc.loadFromCluster();
  } else {
    // client-node's default search ends, when it finds nothing, at http://localhost:8080: an app
    // started without any kubeconfig would run and log "fetch failed" forever (found by the bad-input
    // catalog). Nothing configured is a usage error.
    const envPaths = (process.env.KUBECONFIG ?? '').split(path.delimiter).filter((p) => p !== '');
    const home = path.join(os.homedir(), '.kube', 'config');
    if (!envPaths.some((p) => existsSync(p)) && !existsSync(home)) {
      throw new Error(
        `no Kubernetes cluster configured: KUBECONFIG is not set, ${home} does not exist, and this is not a pod (KUBERNETES_SERVICE_HOST is not set)`,
      );
    }
    kc.loadFromDefault();
  }
  if (opts.context !== undefined) kc.setCurrentContext(opts.context);
  allowPlainHttp(kc);
  if (kc.getCurrentCluster() === null) {
    throw new Error(
      opts.kubeconfig !== undefined
        ? `kubeconfig ${opts.kubeconfig} has no cluster for its current context`
        : 'no Kubernetes cluster configured: set KUBECONFIG or run in a pod',
    );
  }
  return kc;
}

/**
 * client-node 2.x refuses an `http://` server unless the cluster says insecure-skip-tls-verify (there is no
 * TLS to verify). kubectl accepts such a kubeconfig (kube-sim writes one), so we do too.
 */
export function allowPlainHttp(kc: KubeConfig): void {
  kc.clusters = kc.clusters.map((c) =>
    c.server.startsWith('http:') && c.skipTLSVerify !== true ? { ...c, skipTLSVerify: true } : c,
  );
}

/**
 * A KubeConfig for one API server and user, built in memory, for a program that runs the server itself (a
 * test's scripted server, a bench's): one cluster, one user (a token by default), its context current.
 * `server`: its URL, or the port of one on 127.0.0.1 over plain HTTP.
 */
export function kubeConfigFor(server: string | number, user: User = { name: 'u', token: 't' }): KubeConfig {
  const kc = new (clientNode().KubeConfig)();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'c',
        server: typeof server === 'number' ? `http://127.0.0.1:${server}` : server,
        skipTLSVerify: true,
      },
    ],
    users: [user],
    contexts: [{ name: 'ctx', cluster: 'c', user: user.name }],
    currentContext: 'ctx',
  });
  return kc;
}
