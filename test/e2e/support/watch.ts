// A kube-sim watch as the admin sees it: the events of one collection from a resourceVersion on, each handed
// to the caller as it arrives, until stop().
import type { OperatorEnv } from './harness.ts';

/**
 * Watches `path` (a collection's URL path; `query` adds to it, e.g. a field selector) from resourceVersion
 * `rv`, handing each parsed event to `onEvent`; a watch that fails before stop() is handed to `onFailure`.
 */
export function watchCollection<E>(
  env: OperatorEnv,
  path: string,
  rv: number | string,
  onEvent: (event: E) => void,
  onFailure: (err: unknown) => void,
  query = '',
): { stop(): void } {
  const ac = new AbortController();
  void (async () => {
    const res = await fetch(`${env.sim.url}${path}?watch=true&resourceVersion=${rv}${query}`, {
      headers: { authorization: `Bearer ${env.sim.tokens.admin}` },
      signal: ac.signal,
    });
    const decoder = new TextDecoder();
    let buf = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line !== '') onEvent(JSON.parse(line) as E);
      }
    }
  })().catch((err: unknown) => {
    if (!ac.signal.aborted) onFailure(err);
  });
  return { stop: () => ac.abort() };
}
