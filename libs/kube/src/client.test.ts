// The request layer against a scripted HTTP server: what goes on the wire, and what comes back.
import type { KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Agent } from 'undici';
import { createKube, isConflict, KubeApiError, RateLimiter, resourceOfPath } from './index.ts';
import { kubeConfigFor } from './kubeconfig.ts';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const seen: Seen[] = [];
let respond: (req: Seen, res: http.ServerResponse) => void = (_req, res) => res.end('{}');
let server: http.Server;
let kc: KubeConfig;

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(s);
      res.setHeader('Content-Type', 'application/json');
      respond(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  kc = kubeConfigFor(port, { name: 'u', token: 'secret-token' });
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const status = (code: number, reason: string, message: string) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Status', status: 'Failure', code, reason, message });

test('GET carries the bearer token and returns the parsed object; counted by verb and code', async () => {
  seen.length = 0;
  respond = (_req, res) => res.end(JSON.stringify({ metadata: { name: 'web', uid: 'u1' } }));
  const kube = createKube(kc);
  const ps = await kube.podSets.get('default', 'web');
  assert.equal(ps.metadata.uid, 'u1');
  assert.equal(seen[0]?.url, '/apis/podset.io/v1/namespaces/default/podsets/web');
  assert.equal(seen[0]?.headers.authorization, 'Bearer secret-token');
  assert.deepEqual(kube.client.requestCounts(), [{ verb: 'get', code: 200, count: 1 }]);
});

test("GET with resourceVersion '0' asks for the watch cache's copy; without it the read is consistent", async () => {
  seen.length = 0;
  respond = (_req, res) => res.end(JSON.stringify({ metadata: { name: 'web', uid: 'u1' } }));
  const kube = createKube(kc);
  await kube.podSets.get('default', 'web', { resourceVersion: '0' });
  await kube.podSets.get('default', 'web');
  assert.equal(seen[0]?.url, '/apis/podset.io/v1/namespaces/default/podsets/web?resourceVersion=0');
  assert.equal(seen[1]?.url, '/apis/podset.io/v1/namespaces/default/podsets/web');
});

test('LIST: consistent read has no resourceVersion; NotOlderThan passes both parameters', async () => {
  seen.length = 0;
  respond = (_req, res) => res.end(JSON.stringify({ metadata: { resourceVersion: '42' }, items: [] }));
  const kube = createKube(kc);
  await kube.pods.list('ns1', { labelSelector: 'podset.io/name=web' });
  await kube.pods.list('ns1', {
    labelSelector: 'podset.io/name=web',
    resourceVersion: '40',
    resourceVersionMatch: 'NotOlderThan',
  });
  const first = new URL(seen[0]!.url, 'http://x');
  assert.equal(first.pathname, '/api/v1/namespaces/ns1/pods');
  assert.equal(first.searchParams.get('labelSelector'), 'podset.io/name=web');
  assert.equal(first.searchParams.has('resourceVersion'), false);
  assert.equal(first.searchParams.has('resourceVersionMatch'), false);
  const second = new URL(seen[1]!.url, 'http://x');
  assert.equal(second.searchParams.get('resourceVersion'), '40');
  assert.equal(second.searchParams.get('resourceVersionMatch'), 'NotOlderThan');
});

test('errors surface code, reason and the Status message', async () => {
  respond = (_req, res) => {
    res.statusCode = 409;
    res.end(status(409, 'Conflict', 'the object has been modified; please apply your changes'));
  };
  const kube = createKube(kc);
  const err = await kube.podSets
    .replaceStatus('default', 'web', { metadata: { name: 'web', resourceVersion: '1' } })
    .then(
      () => assert.fail('should throw'),
      (e: unknown) => e,
    );
  assert.ok(err instanceof KubeApiError);
  assert.equal(err.code, 409);
  assert.equal(err.reason, 'Conflict');
  assert.match(err.statusMessage, /has been modified/);
  assert.ok(isConflict(err));
  assert.equal(seen.at(-1)?.method, 'PUT');
  assert.match(seen.at(-1)!.url, /\/podsets\/web\/status$/);
  assert.deepEqual(kube.client.requestCounts(), [{ verb: 'update', code: 409, count: 1 }]);

  respond = (_req, res) => {
    res.statusCode = 500;
    res.end('not json');
  };
  const err2 = await kube.pods.get('default', 'p').catch((e: unknown) => e);
  assert.ok(err2 instanceof KubeApiError);
  assert.equal(err2.code, 500);
  assert.equal(err2.reason, 'InternalError');
  assert.match(err2.message, /not json/);
});

test('DELETE sends the UID precondition; PATCH uses the merge-patch content type', async () => {
  seen.length = 0;
  respond = (_req, res) => res.end(JSON.stringify({ kind: 'Status', status: 'Success' }));
  const kube = createKube(kc);
  await kube.pods.delete('default', 'web-abc', { preconditions: { uid: 'uid-1' } });
  assert.equal(seen[0]?.method, 'DELETE');
  assert.deepEqual(JSON.parse(seen[0]!.body), {
    apiVersion: 'v1',
    kind: 'DeleteOptions',
    preconditions: { uid: 'uid-1' },
  });
  await kube.podSets.patch('default', 'web', { metadata: { finalizers: ['podset.io/cleanup'] } });
  assert.equal(seen[1]?.method, 'PATCH');
  assert.equal(seen[1]?.headers['content-type'], 'application/merge-patch+json');
});

test('429 pauses the limiter for Retry-After and retries', async () => {
  seen.length = 0;
  let n = 0;
  respond = (_req, res) => {
    n++;
    if (n === 1) {
      res.statusCode = 429;
      res.setHeader('Retry-After', '0');
      res.end(status(429, 'TooManyRequests', 'slow down'));
      return;
    }
    res.end(JSON.stringify({ metadata: { name: 'p' } }));
  };
  const kube = createKube(kc);
  const pod = await kube.pods.create('default', { metadata: { generateName: 'p-' } });
  assert.equal(pod.metadata.name, 'p');
  assert.equal(seen.length, 2);
  const counts = kube.client.requestCounts().sort((a, b) => a.code - b.code);
  assert.deepEqual(counts, [
    { verb: 'create', code: 200, count: 1 },
    { verb: 'create', code: 429, count: 1 },
  ]);
});

test('429 given up after maxRetries429', async () => {
  respond = (_req, res) => {
    res.statusCode = 429;
    res.setHeader('Retry-After', '0');
    res.end(status(429, 'TooManyRequests', 'slow down'));
  };
  const kube = createKube(kc, { maxRetries429: 2 });
  const err = await kube.pods.get('default', 'x').catch((e: unknown) => e);
  assert.ok(err instanceof KubeApiError);
  assert.equal(err.code, 429);
  assert.equal(kube.client.requestTotal(), 3);
});

test('a 429 Retry-After pauses the shared limiter', async () => {
  respond = (_req, res) => {
    res.statusCode = 429;
    res.setHeader('Retry-After', '7');
    res.end(status(429, 'TooManyRequests', 'slow down'));
  };
  const t = 0;
  const slept: number[] = [];
  const limiter = new RateLimiter({
    qps: 0,
    burst: 1,
    clock: { now: () => t, elapsed: () => t, sleep: (ms) => (slept.push(ms), Promise.resolve()) },
  });
  const kube = createKube(kc, { limiter, maxRetries429: 1 });
  await kube.pods.get('default', 'x').catch(() => undefined);
  assert.deepEqual(slept, [7000]);
  assert.equal(limiter.stats().pauses >= 1, true);
});

test('watch yields events line by line and counts as verb watch', async () => {
  seen.length = 0;
  respond = (_req, res) => {
    res.write(
      JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '5' } } }) + '\n',
    );
    res.write(JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } }) + '\n');
    res.end(
      JSON.stringify({ type: 'DELETED', object: { metadata: { name: 'a', resourceVersion: '10' } } }) + '\n',
    );
  };
  const kube = createKube(kc);
  const events: string[] = [];
  for await (const ev of kube.pods.watch('default', { resourceVersion: '4', allowWatchBookmarks: true })) {
    events.push(`${ev.type}:${ev.object.metadata.resourceVersion}`);
  }
  assert.deepEqual(events, ['ADDED:5', 'BOOKMARK:9', 'DELETED:10']);
  const url = new URL(seen[0]!.url, 'http://x');
  assert.equal(url.searchParams.get('watch'), 'true');
  assert.equal(url.searchParams.get('resourceVersion'), '4');
  assert.deepEqual(kube.client.requestCounts(), [{ verb: 'watch', code: 200, count: 1 }]);
});

test("a quiet watch outlives the pool's body timeout: a watch's deadline is the caller's", async () => {
  // A real server sends a quiet watch nothing until it ends it at timeoutSeconds. undici's default body
  // timeout (300 s; here 100 ms, checked on undici's ~1 s timer tick) would cut it as if the connection died.
  respond = (_req, res) => {
    res.flushHeaders();
    setTimeout(
      () => res.end(JSON.stringify({ type: 'ADDED', object: { metadata: { resourceVersion: '7' } } }) + '\n'),
      2000,
    );
  };
  const kube = createKube(kc, { dispatcher: new Agent({ bodyTimeout: 100 }) });
  const events: string[] = [];
  for await (const ev of kube.pods.watch('default', { resourceVersion: '4', timeoutSeconds: 2 })) {
    events.push(`${ev.type}:${ev.object.metadata.resourceVersion}`);
  }
  assert.deepEqual(events, ['ADDED:7']);
  await kube.client.close();
});

test('resourceOfPath names resources like the audit log', () => {
  assert.equal(resourceOfPath('/api/v1/namespaces/d/pods/x'), 'pods');
  assert.equal(resourceOfPath('/api/v1/namespaces/d/pods'), 'pods');
  assert.equal(
    resourceOfPath('/apis/podset.io/v1/namespaces/d/podsets/w/status'),
    'podsets.podset.io/status',
  );
  assert.equal(resourceOfPath('/apis/podset.io/v1/podsets'), 'podsets.podset.io');
});

test('requests share one keep-alive connection pool (no new connection per request)', async () => {
  seen.length = 0;
  respond = (_req, res) => res.end(JSON.stringify({ metadata: { name: 'web', uid: 'u1' } }));
  let connections = 0;
  const count = () => connections++;
  server.on('connection', count);
  try {
    const kube = createKube(kc);
    for (let i = 0; i < 5; i++) await kube.podSets.get('default', 'web');
    // Without a shared pool every request opens its own connection (5); with it, one or two are reused.
    assert.ok(connections <= 2, `five sequential requests opened ${connections} connections`);
    await Promise.all([1, 2, 3].map(() => kube.podSets.get('default', 'web')));
    for (let i = 0; i < 5; i++) await kube.podSets.get('default', 'web');
    assert.equal(seen.length, 13);
    // Parallel requests may open a socket each, but they stay pooled: the later sequential ones open none.
    assert.ok(connections <= 5, `expected at most 5 connections for 13 requests, saw ${connections}`);
    await kube.client.close();
  } finally {
    server.off('connection', count);
  }
});

test('a 200 answer that is not valid JSON: the error names the request (found by the bad-input catalog)', async () => {
  respond = (_req, res) => res.end('{"metadata":{"name":"we');
  const kube = createKube(kc);
  await assert.rejects(kube.podSets.get('default', 'web'), (err: unknown) => {
    assert.ok(err instanceof Error);
    assert.match(
      err.message,
      /invalid JSON in the 200 answer to GET \/apis\/podset\.io\/v1\/namespaces\/default\/podsets\/web/,
    );
    assert.match(err.message, /starts "\{\\"metadata/);
    return true;
  });
});

test('a watch line cut mid-object: the error names the watch, after the whole events before it', async () => {
  respond = (_req, res) => {
    res.write(
      JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '5' } } }) + '\n',
    );
    res.end('{"type":"MODIFIED","object":{"metad');
  };
  const kube = createKube(kc);
  const events: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const ev of kube.pods.watch('default', { resourceVersion: '4' })) {
        events.push(`${ev.type}:${ev.object.metadata.resourceVersion}`);
      }
    })(),
    /invalid JSON in a line of the watch of \/api\/v1\/namespaces\/default\/pods/,
  );
  assert.deepEqual(events, ['ADDED:5']);
});

test('watchBatches hands on the events of one read together; a line cut mid-character is whole', async () => {
  const line = (rv: string, name = 'a') =>
    JSON.stringify({ type: 'MODIFIED', object: { metadata: { name, resourceVersion: rv } } });
  const cutLine = Buffer.from(`${line('8', 'café-€')}\r\n`);
  const at = cutLine.indexOf('€') + 1; // inside the three bytes of €
  respond = (_req, res) => {
    res.write(`${line('5')}\n\n${line('6')}\r\n${line('7')}\n`); // one write: one read
    res.write(cutLine.subarray(0, at));
    setTimeout(() => res.end(Buffer.concat([cutLine.subarray(at), Buffer.from(line('9'))])), 50);
  };
  const kube = createKube(kc);
  const batches: string[][] = [];
  for await (const batch of kube.pods.watchBatches('default', { resourceVersion: '4' })) {
    batches.push(batch.map((ev) => `${ev.object.metadata.name}:${ev.object.metadata.resourceVersion}`));
  }
  assert.deepEqual(batches.flat(), ['a:5', 'a:6', 'a:7', 'café-€:8', 'a:9']);
  assert.ok(
    batches.some((b) => b.length >= 3),
    `batches: ${JSON.stringify(batches)}`,
  );
  assert.ok(batches.every((b) => b.length > 0));
});

test('watchBatches: a bad line inside a read still hands on the events before it, then fails', async () => {
  const line = (rv: string) =>
    JSON.stringify({ type: 'ADDED', object: { metadata: { resourceVersion: rv } } });
  respond = (_req, res) => res.end(`${line('5')}\n${line('6')}\n{"type":"MODIF\n${line('7')}\n`);
  const kube = createKube(kc);
  const events: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const batch of kube.pods.watchBatches('default', { resourceVersion: '4' })) {
        for (const ev of batch) events.push(ev.object.metadata.resourceVersion ?? '');
      }
    })(),
    /invalid JSON in a line of the watch of \/api\/v1\/namespaces\/default\/pods/,
  );
  assert.deepEqual(events, ['5', '6']);
});

test('a refused connection names the request and the cause, not just "fetch failed"', async () => {
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const kube = createKube(kubeConfigFor(port));
  await assert.rejects(
    kube.podSets.get('default', 'web'),
    new RegExp(
      `GET http://127\\.0\\.0\\.1:${port}/apis/podset\\.io/v1/namespaces/default/podsets/web: .*ECONNREFUSED`,
    ),
  );
});

test('a request unanswered past timeoutMs fails with a TimeoutError; a caller abort with its reason', async () => {
  respond = () => undefined; // never answers
  const kube = createKube(kc, { timeoutMs: 50 });
  await assert.rejects(kube.podSets.get('default', 'slow'), { name: 'TimeoutError' });
  const caller = new AbortController();
  const pending = kube.podSets.get('default', 'slow', { signal: caller.signal });
  caller.abort(new Error('worker shutting down'));
  await assert.rejects(pending, { message: 'worker shutting down' });
  respond = (_req, res) => res.end('{}');
  server.closeAllConnections();
  await kube.client.close();
});

test('an answer cut off inside its body fails the request, counted by the code its headers gave', async () => {
  respond = (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{"metadata":{"name":"w');
    setTimeout(() => res.destroy(), 10);
  };
  const kube = createKube(kc);
  await assert.rejects(kube.podSets.get('default', 'cut'), { code: 'UND_ERR_SOCKET' });
  assert.deepEqual(kube.client.requestCounts(), [{ verb: 'get', code: 200, count: 1 }]);
  respond = (_req, res) => res.end('{}');
  await kube.client.close();
});

test('every typed call is counted under the name resourceOfPath gives its path', async () => {
  seen.length = 0;
  respond = (_req, res) => res.end('{"metadata":{},"items":[]}');
  const records: { resource: string }[] = [];
  const kube = createKube(kc, { onRequest: (r) => records.push(r) });
  const pod = { metadata: { name: 'p', namespace: 'd' } };
  await kube.pods.get('d', 'p');
  await kube.pods.list('d');
  await kube.pods.create('d', pod);
  await kube.pods.replace('d', 'p', pod);
  await kube.pods.replaceStatus('d', 'p', pod);
  await kube.pods.patch('d', 'p', {});
  await kube.pods.delete('d', 'p');
  await kube.podSets.replaceStatus('d', 'w', { metadata: { name: 'w' } });
  await kube.podSets.patch('d', 'w', {}, { subresource: 'status' });
  await kube.podSets.list(undefined);
  await kube.events.create('d', { metadata: { name: 'e' } } as never);
  assert.equal(records.length, seen.length);
  assert.deepEqual(
    records.map((r) => r.resource),
    seen.map((s) => resourceOfPath(s.url)),
  );
  assert.ok(records.some((r) => r.resource === 'podsets.podset.io/status'));
  await kube.client.close();
});
