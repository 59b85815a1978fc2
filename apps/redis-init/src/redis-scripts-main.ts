// Entry point of the script loader (redis-scripts.ts): a container beside Redis (k8s/base/redis.yaml,
// compose's redis-scripts service, the demo), connected as the loader's user (REDIS_USERNAME
// podset-scripts). Every REDIS_SCRIPTS_INTERVAL_SECONDS it asks Redis which of the operator's scripts it
// lacks and loads them; Redis unreachable: it waits, backing off up to 5 s, and says so once per error.
// `--once`: load and exit (0 loaded or nothing missing, 1 Redis refused) for a one-off set-up.
// With REDIS_OPS_PASSWORD it also runs the BUSY watchdog (redis-busy-watchdog.ts) as the operations user.
// HTTP_PORT (not 0): /healthz (the process runs), /readyz (the last check found every script cached) and
// /metrics (the watchdog's kills).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Registry } from 'prom-client';
import { ConfigError, parseEnv, type Config } from '@podset/config';
import { redisConnector, type RedisConnector } from '@podset/redis';
import { exitOnListenError, OpsManager } from '@podset/runtime';
import { BusyWatchdog, type BusyKillResult } from './redis-busy-watchdog.ts';
import { createRedisScriptsMetrics } from './redis-scripts-metrics.ts';
import { loadMissing, operatorScripts, redisScriptsEnv as env } from './redis-scripts.ts';

/** /healthz: alive; /readyz: `scripts`, every script cached at the last check; /metrics. */
async function serveHealth(
  port: number,
  ready: () => boolean,
  registry: Registry,
): Promise<() => Promise<void>> {
  if (port === 0) return () => Promise.resolve();
  const ops = new OpsManager({ registry }).addReadyzCheck('scripts', async () => {
    if (!ready()) throw new Error('not every script is cached: the last load failed or has not run yet');
  });
  return (await ops.listen({ port })).close;
}

/** Backoff after `failures` failed rounds in a row: 0.5 s doubling up to 5 s. */
function backoffMs(failures: number): number {
  return Math.min(250 * 2 ** failures, 5000);
}

/** One PING a second as the operations user; what is not a BUSY reply backs off like the loader. */
async function watchBusy(watchdog: BusyWatchdog, stop: AbortSignal): Promise<void> {
  let failures = 0;
  let lastError = '';
  while (!stop.aborted) {
    try {
      await watchdog.check();
      failures = 0;
      lastError = '';
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      if (text !== lastError) say(`watchdog: could not check Redis: ${text}`);
      lastError = text;
      failures++;
    }
    await sleep(failures === 0 ? 1000 : backoffMs(failures), undefined, { signal: stop }).catch(
      () => undefined,
    );
  }
}

type LoaderConfig = Config<typeof env>;

/**
 * The watchdog's connector: where the loader connects, as the operations user. Undefined without
 * REDIS_OPS_PASSWORD (no watchdog). A ConfigError names the watchdog's variables.
 */
function opsConnector(cfg: LoaderConfig): RedisConnector | undefined {
  if (cfg.REDIS_OPS_PASSWORD === undefined) return undefined;
  try {
    return redisConnector({
      ...cfg,
      REDIS_USERNAME: cfg.REDIS_OPS_USERNAME,
      REDIS_PASSWORD: cfg.REDIS_OPS_PASSWORD,
    });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    throw new ConfigError(
      err.problems.map((p) => ({
        variable: p.variable === 'REDIS_PASSWORD' ? 'REDIS_OPS_PASSWORD' : p.variable,
        message: `(the BUSY watchdog's connection) ${p.message}`,
      })),
    );
  }
}

/** The BUSY watchdog's loop, when there is an operations user to run it as; says at start which. */
function startWatchdog(
  cfg: LoaderConfig,
  ops: RedisConnector | undefined,
  stop: AbortSignal,
  onKill: (result: BusyKillResult) => void,
): { done: Promise<void> } {
  if (ops === undefined) {
    say('watchdog: off (no REDIS_OPS_PASSWORD): a script stuck in a loop waits for a person’s SCRIPT KILL');
    return { done: Promise.resolve() };
  }
  // No ready check: its INFO, answered BUSY, would hold the watchdog's commands back while a script runs.
  const client = ops.client({ maxRetriesPerRequest: 1, enableReadyCheck: false });
  client.on('error', () => undefined); // a failed PING says it, once per error, in watchBusy
  const watchdog = new BusyWatchdog({
    client,
    boundMs: cfg.REDIS_BUSY_KILL_SECONDS * 1000,
    log: (line) => say(`watchdog: ${line}`),
    onKill,
  });
  say(
    `watchdog: as ${cfg.REDIS_OPS_USERNAME ?? 'default'}, killing a script Redis is busy with for over ${cfg.REDIS_BUSY_KILL_SECONDS} s`,
  );
  return { done: watchBusy(watchdog, stop).finally(() => client.disconnect()) };
}

function say(line: string): void {
  process.stdout.write(`redis-scripts: ${line}\n`);
}

async function main(): Promise<void> {
  let cfg;
  let ops;
  try {
    cfg = parseEnv(env, process.env);
    ops = opsConnector(cfg);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`redis-scripts: ${err.message}\n`);
    process.exit(2);
  }
  const connector = redisConnector(cfg);
  const client = connector.client({ maxRetriesPerRequest: 1 });
  let lastError = '';
  client.on('error', (err: Error) => {
    if (err.message !== lastError) say(`redis error: ${err.message}`);
    lastError = err.message;
  });
  const scripts = await operatorScripts();
  const stop = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => stop.abort());
  const once = process.argv.includes('--once');
  say(`keeping ${scripts.length} scripts in ${connector.target}`);
  let failures = 0;
  let cached = false;
  const { registry, onKill } = createRedisScriptsMetrics();
  const closeHealth = await serveHealth(cfg.HTTP_PORT, () => cached, registry);
  const watchdog = once ? undefined : startWatchdog(cfg, ops, stop.signal, onKill);
  while (!stop.signal.aborted) {
    try {
      const loaded = await loadMissing(client, scripts);
      if (loaded > 0) say(`loaded ${loaded} scripts`);
      failures = 0;
      cached = true;
      lastError = '';
      if (once) break;
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      if (text !== lastError) say(`could not load the scripts: ${text}`);
      lastError = text;
      failures++;
      cached = false;
      if (once && /NOPERM|WRONGPASS|NOAUTH/.test(text)) {
        client.disconnect();
        process.exit(1);
      }
    }
    const waitMs = failures === 0 ? cfg.REDIS_SCRIPTS_INTERVAL_SECONDS * 1000 : backoffMs(failures);
    await sleep(waitMs, undefined, { signal: stop.signal }).catch(() => undefined);
  }
  await watchdog?.done;
  await closeHealth();
  client.disconnect();
}

// HTTP_PORT taken or not allowed: a usage error, as a bad variable is (one line, exit 2).
await main().catch((err: unknown) => exitOnListenError('redis-scripts', err));
