export {
  ReconcileQueue,
  DEFAULT_ATTEMPTS,
  type ReconcileQueueOptions,
  type HashWrite,
  type RequestItem,
  type RequestOptions,
  type RequestOutcome,
  type RequestResult,
} from './reconcile-queue.ts';
export {
  startReconcileWorker,
  DEFAULT_LOCK_DURATION_MS,
  DEFAULT_STALLED_INTERVAL_MS,
  type ReconcileWorker,
} from './reconcile-worker.ts';
export type {
  ReconcileContext,
  ReconcileHandler,
  ReconcileWorkerOptions,
  WorkerHooks,
  JobStartInfo,
  JobEndInfo,
  JobDeferredInfo,
} from './worker-options.ts';
export { TerminalError, isTerminal, type ReconcileResult } from './result.ts';
export { BULK_DEFER_MS, BULK_WAIT_MS } from './bulk-handback.ts';
export { defaultBulkConcurrency } from './bulk-slots.ts';
export {
  parseReconcileRequest,
  mergeRequests,
  keyProblem,
  MalformedRequestError,
  MAX_REASONS,
  MAX_TRACEPARENTS,
  cleanTraceparents,
  type ReconcileRequest,
  type RequestSource,
} from './payload.ts';
export {
  forgetKey,
  FORGET_CHUNK,
  FORGET_MAX_SCAN,
  type ForgetKeyOptions,
  type ForgetKeyResult,
  type ForgetKeyTarget,
} from './forget-key.ts';
export { backoffDelay, DEFAULT_BACKOFF, BACKOFF_TYPE, type BackoffOptions } from './backoff.ts';
export {
  DEFAULT_QUEUE_NAME,
  DEFAULT_PREFIX,
  PRIORITY,
  type QueueConnection,
  type QueueLocation,
  type Retention,
} from './options.ts';
export { queueEnv, attemptsEnv } from './env.ts';
// The queue's keys are spelled in libs/redis with every other key family; re-exported for the queue's users.
export { bullKeys, jobPrefixOf, BULLMQ_VERSION, type FinishedState } from '@podset/redis';
export { COVER_RULE_LUA, jobCovers, type CoverPlace } from './live-cover.ts';
export { LIVE_REQUEST_LUA } from './live-request.ts';
export { repairAddInputs, type AddInputRepair, type RepairClient } from './add-repair.ts';
