// A KubeConfig for an API server a test runs itself (a scripted HTTP server, a closed port): one cluster, one
// user (a token by default), one current context. Built in memory, as the apps' own loading would from a file.
import { KubeConfig, type User } from '@kubernetes/client-node';

/** `server`: its URL, or the port of one on 127.0.0.1 over plain HTTP. */
export function kubeConfigFor(server: string | number, user: User = { name: 'u', token: 't' }): KubeConfig {
  const kc = new KubeConfig();
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
