// What the tests of kube-sim's REST semantics over HTTP share: a started server, a JSON client with a
// chosen identity, a watch reader, and a pod to create.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { type KubeSim, startKubeSim } from '../../src/index.ts';

export interface Resp {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export type Call = ReturnType<typeof client>;

/** The server most of these files start: no controllers (nothing acts behind a test), bookmarks soon. */
export async function startServer(): Promise<{ sim: KubeSim; call: Call }> {
  const sim = await startKubeSim({ controllers: false, bookmarkIntervalMs: 200 });
  return { sim, call: client(sim) };
}

/**
 * The server of one test file: started in its `before`, closed in its `after`. `call` and `sim` are for the
 * tests (after `before` has run).
 */
export function useServer(): { readonly sim: KubeSim; call: Call } {
  let started: { sim: KubeSim; call: Call } | undefined;
  before(async () => {
    started = await startServer();
  });
  after(async () => {
    await started?.sim.close();
  });
  const running = () => {
    if (started === undefined) throw new Error('the server is started in before()');
    return started;
  };
  return {
    get sim() {
      return running().sim;
    },
    call: (...args) => running().call(...args),
  };
}

export function client(sim: KubeSim, identity = 'admin') {
  return async function call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Resp> {
    const h: Record<string, string> = { authorization: `Bearer ${sim.tokens[identity]}`, ...headers };
    if (body !== undefined && !h['content-type']) h['content-type'] = 'application/json';
    const res = await fetch(sim.url + path, {
      method,
      headers: h,
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // plain text (healthz)
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
}

export interface WatchEvent {
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  object: any;
}

/** Opens a watch; `next()` resolves with the next event, or undefined when the stream ended. */
export async function openWatch(sim: KubeSim, path: string, headers: Record<string, string> = {}) {
  const ac = new AbortController();
  const res = await fetch(sim.url + path, {
    headers: { authorization: `Bearer ${sim.tokens.admin}`, ...headers },
    signal: ac.signal,
  });
  assert.equal(res.status, 200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buf = '';
  let ended = false;
  return {
    async next(timeoutMs = 5000): Promise<WatchEvent | undefined> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const nl = buf.indexOf('\n');
        if (nl >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim()) return JSON.parse(line) as WatchEvent;
          continue;
        }
        if (ended) return undefined;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no watch event within ${timeoutMs} ms`);
        let timer: NodeJS.Timeout | undefined;
        const r = await Promise.race([
          reader.read().catch(() => ({ done: true, value: undefined })),
          new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), left))),
        ]);
        clearTimeout(timer);
        if (r === 'timeout') throw new Error(`no watch event within ${timeoutMs} ms`);
        if (r.done) ended = true;
        else buf += decoder.decode(r.value, { stream: true });
      }
    },
    close(): void {
      ac.abort();
    },
  };
}

export function pod(name: string, labels: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: { containers: [{ name: 'c', image: 'nginx:1.27' }], ...extra },
  };
}
