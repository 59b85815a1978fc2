// List, then watch from the list's resourceVersion, for as long as the agent runs: a watch that ends is
// resumed from the last resourceVersion seen (bookmarks included); one the server no longer can resume
// (410 Gone, as an answer or an ERROR event) is replaced by a fresh list. Failures wait with a doubling
// backoff, so a server that is down is not hammered.
import { isKubeApiError, type ResourceClient, type WatchEvent } from '@podset/kube';
import type { Logger } from '@podset/log';

export interface InformerHandlers<T> {
  /** A full list: every object the namespace (or cluster) holds now. */
  onList(items: T[]): void;
  onEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T): void;
}

const WATCH_TIMEOUT_SECONDS = 300;
const BACKOFF_MIN_MS = 200;
const BACKOFF_MAX_MS = 10_000;

/** Runs until `signal` aborts. */
export async function inform<T extends { metadata: { resourceVersion?: string } }>(
  resource: ResourceClient<T>,
  namespace: string | undefined,
  handlers: InformerHandlers<T>,
  log: Logger,
  signal: AbortSignal,
): Promise<void> {
  let rv: string | undefined;
  let backoff = BACKOFF_MIN_MS;
  const where = namespace ?? '(all namespaces)';
  while (!signal.aborted) {
    try {
      if (rv === undefined) {
        const list = await resource.listAll(namespace, { signal });
        handlers.onList(list.items);
        rv = list.metadata.resourceVersion;
        log.debug({ namespace: where, items: list.items.length, resourceVersion: rv }, 'listed');
      }
      const opened = Date.now();
      let delivered = 0;
      const events = resource.watch(namespace, {
        ...(rv !== undefined ? { resourceVersion: rv } : {}),
        allowWatchBookmarks: true,
        timeoutSeconds: WATCH_TIMEOUT_SECONDS,
        signal,
      });
      for await (const event of events) {
        delivered++;
        if (event.type === 'ERROR') {
          const code = (event.object as { code?: number }).code;
          log.info({ namespace: where, code, message: statusMessage(event) }, 'watch error event: relisting');
          rv = undefined;
          break;
        }
        const next = event.object.metadata.resourceVersion;
        if (next !== undefined && next !== '') rv = next;
        if (event.type !== 'BOOKMARK') handlers.onEvent(event.type, event.object);
      }
      if (signal.aborted) return;
      log.debug({ namespace: where, resourceVersion: rv, events: delivered }, 'watch ended: resuming');
      // A watch that keeps ending at once with nothing in it must not become a busy loop.
      if (delivered === 0 && Date.now() - opened < 1000) {
        await sleep(backoff, signal);
        backoff = Math.min(BACKOFF_MAX_MS, backoff * 2);
      } else backoff = BACKOFF_MIN_MS;
    } catch (err) {
      if (signal.aborted) return;
      if (isKubeApiError(err) && err.code === 410) {
        log.info({ namespace: where }, 'watch expired (410): relisting');
        rv = undefined;
        continue;
      }
      log.warn({ namespace: where, err: errorText(err), retryInMs: backoff }, 'list or watch failed');
      await sleep(backoff, signal);
      backoff = Math.min(BACKOFF_MAX_MS, backoff * 2);
    }
  }
}

function statusMessage(event: WatchEvent<unknown>): string | undefined {
  return (event.object as { message?: string }).message;
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
