// The HTTP server every app runs for operations: /healthz (the process is alive), /readyz (the app's
// readiness check: 200 or 503 with its lines), /metrics (Prometheus text of the app's registry).
import http from 'node:http';
import type { Registry } from 'prom-client';
import { listenError } from './listen-error.ts';

export interface Readiness {
  ready: boolean;
  /** The body's lines, e.g. `redis: ok`. */
  lines: string[];
}

export interface OpsServerOptions {
  port: number;
  host?: string;
  /** The variable that sets the port, named when it cannot be bound. Default HTTP_PORT. */
  setting?: string;
  registry: Registry;
  /** Called per /readyz request; a rejection answers 503 with its message. */
  readiness: () => Promise<Readiness>;
}

export interface OpsServer {
  /** The port actually bound (port 0 picks a free one). */
  port: number;
  /** The address it listens on. */
  host: string;
  close(): Promise<void>;
}

export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      res.end('ok\n');
    } else if (path === '/readyz') {
      options.readiness().then(
        (r) => reply(res, r.ready ? 200 : 503, 'text/plain', `${r.lines.join('\n')}\n`),
        (err: unknown) => reply(res, 503, 'text/plain', `not ready\n${firstLine(err)}\n`),
      );
    } else if (path === '/metrics') {
      options.registry.metrics().then(
        (text) => reply(res, 200, options.registry.contentType, text),
        (err: unknown) => reply(res, 500, 'text/plain', `${firstLine(err)}\n`),
      );
    } else {
      reply(res, 404, 'text/plain', 'not found\n');
    }
  });
  const host = options.host ?? '0.0.0.0';
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) =>
      reject(listenError(err, options.port, host, options.setting ?? 'HTTP_PORT')),
    );
    server.listen(options.port, host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : options.port,
    host: typeof address === 'object' && address !== null ? address.address : (options.host ?? '0.0.0.0'),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(res: http.ServerResponse, code: number, type: string, body: string): void {
  res.statusCode = code;
  res.setHeader('Content-Type', type);
  res.end(body);
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0]!.slice(0, 300);
}
