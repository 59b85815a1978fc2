// The dashboard's two listeners: the app (authenticated) and, when enabled, an unauthenticated port for
// /metrics and the probes (kubelet and Prometheus carry no dashboard credentials). Closing ends both.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import { listenError } from '@podset/runtime';
import type { Probe } from './probes.ts';

export interface Listeners {
  port: number;
  /** The probe port, when enabled, and the address it bound. */
  httpPort: number | undefined;
  httpHost: string | undefined;
  close(): Promise<void>;
}

export async function listen(
  app: Hono,
  probe: Probe,
  opts: { port: number; host: string; httpPort: number; httpHost?: string },
): Promise<Listeners> {
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: opts.port, hostname: opts.host }, () => resolve(s));
    s.once('error', (err) => reject(listenError(err, opts.port, opts.host, 'DASHBOARD_PORT')));
  });
  const port = (server.address() as AddressInfo).port;
  // 0: no probe port; -1: a free one.
  const probeServer =
    opts.httpPort === 0
      ? undefined
      : await listenProbes(probe, opts.httpPort === -1 ? 0 : opts.httpPort, opts.httpHost ?? opts.host);
  const probeAddress = probeServer?.address() as AddressInfo | undefined;
  return {
    port,
    httpPort: probeAddress?.port,
    httpHost: probeAddress?.address,
    async close() {
      await closeServer(server as http.Server);
      if (probeServer !== undefined) await closeServer(probeServer);
    },
  };
}

async function listenProbes(probe: Probe, port: number, host: string): Promise<http.Server> {
  const probeServer = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    probe(path).then(
      (r) => {
        if (r === undefined) {
          res.statusCode = 404;
          res.end('not found\n');
          return;
        }
        res.statusCode = r.status;
        res.setHeader('Content-Type', r.type);
        res.end(r.body);
      },
      (err: unknown) => {
        res.statusCode = 500;
        res.end(`${String(err)}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    probeServer.once('error', (err) => reject(listenError(err, port, host, 'HTTP_PORT')));
    probeServer.listen(port, host, resolve);
  });
  return probeServer;
}

// Open keep-alive connections would hold close() until they time out.
function closeServer(s: { close(cb: () => void): unknown; closeAllConnections?: () => void }): Promise<void> {
  return new Promise<void>((resolve) => {
    s.close(() => resolve());
    s.closeAllConnections?.();
  });
}
