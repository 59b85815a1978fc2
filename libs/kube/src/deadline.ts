// A request's deadline: its signal aborts when the caller's does (with the caller's reason) or after the
// request timeout (with a TimeoutError, as AbortSignal.timeout does). Cleared when the request is done:
// AbortSignal.timeout's timer outlives its request and fires anyway, 30 s later, and AbortSignal.any keeps
// weak references for every request — a worker makes several requests per reconcile.

export interface Deadline {
  signal: AbortSignal;
  /** The request is done: its timer and its listener on the caller's signal go. */
  clear(): void;
}

export function requestDeadline(caller: AbortSignal | undefined, timeoutMs: number): Deadline {
  const controller = new AbortController();
  if (caller?.aborted === true) {
    controller.abort(caller.reason);
    return { signal: controller.signal, clear: () => undefined };
  }
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    timeoutMs,
  );
  timer.unref();
  if (caller === undefined) return { signal: controller.signal, clear: () => clearTimeout(timer) };
  const onAbort = () => {
    clearTimeout(timer);
    controller.abort(caller.reason);
  };
  caller.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      caller.removeEventListener('abort', onAbort);
    },
  };
}
