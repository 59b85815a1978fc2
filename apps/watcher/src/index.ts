export { startWatcher, type WatcherSettings, type WatcherDeps, type RunningWatcher } from './watcher.ts';
export { WatchTerm, type TermOptions } from './term.ts';
export {
  WatchLoop,
  newCounters,
  type WatchLoopOptions,
  type WatchCounters,
  type RestartReason,
  type WatchSink,
  type WatchEvent,
  type ListedPage,
  type Checkpointer,
} from './watch-loop.ts';
export { podSetKey, keyFor, keysOf, streamId, type Resource, type WatchedObject } from './keys.ts';
export { EventPipeline, type EventAppender } from './event-pipeline.ts';
export { Projector } from './projector.ts';
export { type ReconcileRequester } from './request.ts';
export { EventLog, eventRecord, type EventRecord } from './event-log.ts';
export { RedisCheckpoint, DataLossDetector } from './checkpoint.ts';
export { LeaderElector, microTime, type LeaderOptions } from './leader.ts';
export { Resync, listPodSetKeys } from './resync.ts';
export { watchApiOf, leaseApiOf, type WatchApi, type LeaseApi } from './kube-api.ts';
export { watcherEnv, parseWatcherConfig, redisKeys, type WatcherConfig } from './config.ts';
