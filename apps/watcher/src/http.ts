// /healthz (alive), /readyz (Redis and the API answer; a standby is ready too: leadership is not
// readiness), /metrics (Prometheus). Started before leader election so a standby answers as well.
import http from 'node:http';
import type { Registry } from 'prom-client';

export interface Probe {
  name: string;
  /** Resolves when the dependency answers; rejects (or times out) otherwise. */
  check(): Promise<void>;
}

export interface HealthServerOptions {
  port: number;
  host?: string;
  registry: Registry;
  probes: Probe[];
  /** Extra lines for /readyz's body (e.g. `leader: true`). */
  status?: () => Record<string, string | number | boolean>;
  timeoutMs?: number;
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const timeoutMs = options.timeoutMs ?? 3000;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      res.end('ok\n');
    } else if (path === '/readyz') {
      void readiness(options.probes, timeoutMs).then((results) => {
        const ok = results.every((r) => r.ok);
        const lines = results.map((r) => `${r.name}: ${r.ok ? 'ok' : r.error}`);
        for (const [k, v] of Object.entries(options.status?.() ?? {})) lines.push(`${k}: ${String(v)}`);
        res.statusCode = ok ? 200 : 503;
        res.setHeader('Content-Type', 'text/plain');
        res.end(`${lines.join('\n')}\n`);
      });
    } else if (path === '/metrics') {
      options.registry.metrics().then(
        (text) => {
          res.setHeader('Content-Type', options.registry.contentType);
          res.end(text);
        },
        (err: unknown) => {
          res.statusCode = 500;
          res.end(String(err));
        },
      );
    } else {
      res.statusCode = 404;
      res.end('not found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : options.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readiness(probes: Probe[], timeoutMs: number) {
  return await Promise.all(
    probes.map(async (p) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          p.check(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        return { name: p.name, ok: true as const };
      } catch (err) {
        return { name: p.name, ok: false as const, error: err instanceof Error ? err.message : String(err) };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}
