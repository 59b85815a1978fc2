// Every app opens the same way: environment → Redis connector → kubeconfig → logger. One function, so a
// usage error reads the same in every app (exit 2, every problem named at once) and each app's
// app.ts is only wiring.
import type { KubeConfig } from '@kubernetes/client-node';
import { ConfigError, exitOnConfigError, parseEnv, type Config, type EnvSpec } from '@podset/config';
import {
  loadKubeConfig,
  onKubeConfigReload,
  ownNamespace,
  reportApiEgress,
  type kubeAccessEnv,
} from '@podset/kube';
import { type queueEnv } from '@podset/queue';
import { redisConnector, type redisEnv, type RedisConnector } from '@podset/redis';
import type { Logger } from '@podset/log';
import { createLogger, type logEnv } from './log.ts';
import { requireNoEviction } from '@podset/redis';
import { logRedisUser, type ProbedApp } from '@podset/redis';
import { otlpProtocol, startTracing, TracingConfigError, tracingRequested, type Tracing } from './tracing.ts';

/** The variables openApp itself reads; every app's spec spreads these in. */
export type AppEnv = typeof kubeAccessEnv & typeof redisEnv & typeof queueEnv & typeof logEnv;

export interface Problem {
  variable: string;
  message: string;
}

export interface OpenAppOptions<S extends EnvSpec> {
  /** Defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Fields on every log line (pino's `base`). */
  logBase?: Record<string, unknown>;
  /**
   * The app's own checks across variables (e.g. the dashboard's credentials), reported with the rest:
   * returned, or thrown as a ConfigError.
   */
  check?: (config: Config<S>) => Problem[] | void;
  /** Aborted by a signal during start-up: stop waiting for Redis. */
  signal?: AbortSignal;
  /** Start OpenTelemetry tracing when the OTEL_* variables ask for it (tracing.ts). */
  tracing?: boolean;
}

export interface OpenedApp<S extends EnvSpec> {
  config: Config<S>;
  redis: RedisConnector;
  kubeConfig: KubeConfig;
  log: Logger;
  /** Set when tracing was asked for (OpenAppOptions.tracing) and the OTEL_* variables enable it. */
  tracing?: Tracing;
}

/** The app's dependencies opened from its environment; throws a ConfigError naming every problem. */
export function loadApp<S extends EnvSpec & AppEnv>(
  spec: S,
  options: OpenAppOptions<S> = {},
): Omit<OpenedApp<S>, 'log' | 'tracing'> {
  // The variables' own problems first: the checks below need parsed values.
  const config = parseEnv(spec, options.env ?? process.env);
  // S extends AppEnv, but TypeScript does not resolve Config<S> for a generic S: view the shared part.
  const base: Config<AppEnv> = config;
  const problems: Problem[] = [];
  try {
    problems.push(...(options.check?.(config) ?? []));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  // Only when tracing is on: a protocol setting means nothing without an endpoint.
  if (options.tracing === true && tracingRequested(options.env ?? process.env)) {
    try {
      otlpProtocol(options.env ?? process.env);
    } catch (err) {
      if (!(err instanceof TracingConfigError)) throw err;
      problems.push({ variable: 'OTEL_EXPORTER_OTLP_PROTOCOL', message: err.message });
    }
  }
  let redis: RedisConnector | undefined;
  try {
    redis = redisConnector(base);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  let kubeConfig: KubeConfig | undefined;
  try {
    kubeConfig = loadKubeConfig({
      ...(base.KUBECONFIG !== undefined ? { kubeconfig: base.KUBECONFIG } : {}),
      inCluster: base.KUBE_IN_CLUSTER,
    });
  } catch (err) {
    problems.push({ variable: 'KUBECONFIG', message: err instanceof Error ? err.message : String(err) });
  }
  if (problems.length > 0 || redis === undefined || kubeConfig === undefined) {
    throw new ConfigError(problems);
  }
  return { config, redis, kubeConfig };
}

/**
 * For an app's start: loadApp, or every problem on stderr and exit 2 (a usage error, not a crash); then
 * Redis's eviction policy checked (waiting for Redis), the same exit 2 when it would evict.
 */
export async function openApp<S extends EnvSpec & AppEnv>(
  name: string,
  spec: S,
  options: OpenAppOptions<S> = {},
): Promise<OpenedApp<S>> {
  const opened = exitOnConfigError(name, () => loadApp(spec, options));
  const base: Config<AppEnv> = opened.config;
  // Before the logger: its lines carry trace ids only when tracing is on.
  const tracing = options.tracing === true ? await startTracing(name, options.env ?? process.env) : undefined;
  const log = createLogger({
    name,
    level: base.LOG_LEVEL,
    ...(options.logBase !== undefined ? { base: options.logBase } : {}),
    ...(tracing !== undefined ? { traceIds: true } : {}),
  });
  if (tracing !== undefined) log.info({ protocol: tracing.protocol }, 'tracing: exporting spans over OTLP');
  onKubeConfigReload(opened.kubeConfig, (r) =>
    log.warn(
      { kubeconfig: r.path, reason: r.reason, generation: r.generation },
      'kubeconfig file changed: reloaded it (new CA, token or server)',
    ),
  );
  // Before the first API request: the port-only warning, and the line for a server not reached at start.
  reportApiEgress(opened.kubeConfig, {
    egress: base.API_SERVER_EGRESS,
    namespace: ownNamespace(options.env ?? process.env),
    log,
  });
  await requireNoEviction(name, opened.redis, {
    skip: base.REDIS_SKIP_EVICTION_CHECK,
    log,
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
  const app = name.replace(/^podset-/, '');
  if (app === 'watcher' || app === 'worker' || app === 'dashboard') {
    const urlUser = URL.canParse(base.REDIS_URL) ? new URL(base.REDIS_URL).username : '';
    await logRedisUser(app satisfies ProbedApp, opened.redis, {
      prefix: base.QUEUE_PREFIX,
      queueName: base.QUEUE_NAME,
      username: urlUser !== '' ? decodeURIComponent(urlUser) : base.REDIS_USERNAME,
      log,
    });
  }
  return { ...opened, log, ...(tracing !== undefined ? { tracing } : {}) };
}
