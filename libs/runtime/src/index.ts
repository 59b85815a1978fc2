export { Shutdown, type ShutdownOptions, type ShutdownSignal, type StopOptions } from './shutdown.ts';
export { withTimeout } from './timeout.ts';
export { API_PROBE_TIMEOUT_MS, REDIS_PROBE_TIMEOUT_MS, SHUTDOWN_LIMIT_MS } from './limits.ts';
export { createLogger, fdSink, guardStdio, type LineSink, type LoggerOptions } from './log.ts';
export { exitOnListenError, listenError, ListenError } from './listen-error.ts';
export {
  OpsManager,
  type Check,
  type CheckOptions,
  type OpsAnswer,
  type OpsListener,
  type OpsListenOptions,
} from './ops-server.ts';
export { logEnv } from './log.ts';
export {
  loadApp,
  openApp,
  type AppEnv,
  type OpenAppOptions,
  type OpenedApp,
  type Problem,
} from './open-app.ts';
export { appRegistry, kubeRequestMetrics, queueDepthGauge } from './metrics.ts';
export { parseInfoMemory, readRedisMemory, redisMemoryGauges, type RedisMemory } from './redis-memory.ts';
export {
  contextOf,
  inSpan,
  linksOf,
  otlpProtocol,
  recordError,
  startTracing,
  traceIdsMixin,
  traceparentOf,
  tracingRequested,
  TracingConfigError,
  type Tracing,
} from './tracing.ts';
export { httpHostEnv, httpHostOf } from './http-host.ts';
export { ownNamespaceProblems, type OwnNamespaceWording } from './own-namespace.ts';
