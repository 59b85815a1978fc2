// /healthz (alive), /readyz (Redis and the API answer; a standby is ready too: leadership is not
// readiness), /metrics (Prometheus). Started before leader election so a standby answers as well.
import { API_PROBE_TIMEOUT_MS, startOpsServer, withTimeout, type OpsServer } from '@podset/runtime';
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

export type HealthServer = OpsServer;

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const timeoutMs = options.timeoutMs ?? API_PROBE_TIMEOUT_MS;
  return await startOpsServer({
    port: options.port,
    ...(options.host !== undefined ? { host: options.host } : {}),
    registry: options.registry,
    readiness: async () => {
      const results = await readiness(options.probes, timeoutMs);
      const lines = results.map((r) => `${r.name}: ${r.ok ? 'ok' : r.error}`);
      for (const [k, v] of Object.entries(options.status?.() ?? {})) lines.push(`${k}: ${String(v)}`);
      return { ready: results.every((r) => r.ok), lines };
    },
  });
}

async function readiness(probes: Probe[], timeoutMs: number) {
  return await Promise.all(
    probes.map(async (p) => {
      try {
        await withTimeout(p.check(), timeoutMs, p.name);
        return { name: p.name, ok: true as const };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        // withTimeout names what timed out; the line already starts with the probe's name.
        return { name: p.name, ok: false as const, error: message.replace(`${p.name}: `, '') };
      }
    }),
  );
}
