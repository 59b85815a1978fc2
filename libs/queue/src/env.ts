// The queue's settings that the watcher, the workers and the dashboard must share, declared once: each
// app spreads these specs into its own, so names, defaults and validation cannot differ.
import { int, optionalStr, str } from '@podset/config';
import { eventLogKeyOf } from '@podset/redis';
import { DEFAULT_ATTEMPTS } from './reconcile-queue.ts';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from './options.ts';

/** Where the queue and the watcher's event log are: the same for every app. */
export const queueEnv = {
  QUEUE_NAME: str({
    description: 'BullMQ queue name (the same for the watcher, the workers and the dashboard)',
    default: DEFAULT_QUEUE_NAME,
    pattern: /^[^:]+$/,
  }),
  QUEUE_PREFIX: str({
    description:
      'BullMQ key prefix (the same for the watcher, the workers and the dashboard); a hash tag such as {podset} on Redis Cluster',
    default: DEFAULT_PREFIX,
  }),
  EVENT_LOG_KEY: optionalStr({
    description: `Redis key of the watcher's event-log stream (written by the watcher, read by the dashboard, a deleted PodSet's entries removed by the workers); default ${eventLogKeyOf({ QUEUE_PREFIX: '<QUEUE_PREFIX>', QUEUE_NAME: '<QUEUE_NAME>' })}`,
  }),
} as const;

/** The attempts of a reconcile job: set by the watcher that enqueues it, honoured by the workers. */
export const attemptsEnv = {
  MAX_ATTEMPTS: int({
    description:
      'Attempts per reconcile (exponential backoff with jitter between) before it is parked as failed; the same for the watcher and the workers',
    default: DEFAULT_ATTEMPTS,
    min: 1,
  }),
} as const;
