// The dashboard's two listeners: the app (authenticated) and, when enabled, the operations endpoint's own
// port for /metrics and the probes without authentication (kubelet and Prometheus carry no dashboard
// credentials). Closing ends both.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import { listenError, type OpsListener, type OpsManager } from '@podset/runtime';

export interface Listeners {
  port: number;
  /** The probe port, when enabled, and the address it bound. */
  httpPort: number | undefined;
  httpHost: string | undefined;
  close(): Promise<void>;
}

export async function listen(
  app: Hono,
  ops: OpsManager,
  opts: { port: number; host: string; httpPort: number; httpHost?: string },
): Promise<Listeners> {
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: opts.port, hostname: opts.host }, () => resolve(s));
    s.once('error', (err) => reject(listenError(err, opts.port, opts.host, 'DASHBOARD_PORT')));
  });
  const port = (server.address() as AddressInfo).port;
  // 0: no probe port; -1: a free one.
  let probes: OpsListener | undefined;
  try {
    probes =
      opts.httpPort === 0
        ? undefined
        : await ops.listen({
            port: opts.httpPort === -1 ? 0 : opts.httpPort,
            host: opts.httpHost ?? opts.host,
            setting: 'HTTP_PORT',
          });
  } catch (err) {
    await closeServer(server as http.Server);
    throw err;
  }
  return {
    port,
    httpPort: probes?.port,
    httpHost: probes?.host,
    async close() {
      await closeServer(server as http.Server);
      await probes?.close();
    },
  };
}

// Open keep-alive connections would hold close() until they time out.
function closeServer(s: { close(cb: () => void): unknown; closeAllConnections?: () => void }): Promise<void> {
  return new Promise<void>((resolve) => {
    s.close(() => resolve());
    s.closeAllConnections?.();
  });
}
