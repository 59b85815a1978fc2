// Which failures say "the API server cannot be reached", and that an app's start says so once: unit cases,
// then the client against a port that refuses and later answers (real sockets).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { errors as undiciErrors } from 'undici';
import { KubeApiError } from './errors.ts';
import { createKube } from './kube.ts';
import {
  StartReachability,
  unreachableCode,
  watchApiReachability,
  type Unreachable,
} from './reachability.ts';
import { kubeConfigFor } from './kubeconfig.ts';

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });
/** As the client rethrows a socket's error: named with the request, the socket's error as the cause. */
const wrapped = (inner: Error) =>
  new Error(`GET https://10.96.0.1:443/api: ${inner.message}`, { cause: inner });

test('a connection never established is unreachable, found through causes and aggregated attempts', () => {
  for (const code of ['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']) {
    assert.equal(unreachableCode(withCode(code)), code, code);
    assert.equal(unreachableCode(wrapped(withCode(code))), code, `${code} wrapped`);
  }
  assert.equal(unreachableCode(wrapped(new undiciErrors.ConnectTimeoutError())), 'UND_ERR_CONNECT_TIMEOUT');
  // Node tries each address of a dual-stack host and reports them together.
  const both = new AggregateError([withCode('ENETUNREACH'), withCode('ECONNREFUSED')], 'connect failed');
  assert.equal(unreachableCode(wrapped(both)), 'ENETUNREACH');
});

test('an answer, an abort, a reset, a DNS or TLS failure is not "unreachable"', () => {
  for (const code of [401, 403, 404]) {
    const answer = new KubeApiError({ code, reason: 'x', message: 'm', verb: 'get', path: '/api' });
    assert.equal(unreachableCode(answer), undefined, String(code));
  }
  const notThese: unknown[] = [
    new DOMException('The operation was aborted', 'AbortError'),
    new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
    wrapped(withCode('ECONNRESET')),
    wrapped(withCode('ENOTFOUND')),
    wrapped(withCode('EAI_AGAIN')),
    wrapped(withCode('CERT_HAS_EXPIRED')),
    new Error('ECONNREFUSED in the text only'),
    'ECONNREFUSED',
    undefined,
  ];
  for (const err of notThese) assert.equal(unreachableCode(err), undefined, String(err));
});

function recorder() {
  const unreachable: Unreachable[] = [];
  const reached: { server: string; failures: number }[] = [];
  return {
    unreachable,
    reached,
    events: {
      unreachable: (u: Unreachable) => unreachable.push(u),
      reached: (r: (typeof reached)[0]) => reached.push(r),
    },
  };
}

test('failures before the first answer are said once; the first answer after them once', () => {
  const r = recorder();
  const start = new StartReachability(r.events);
  for (let i = 0; i < 5; i++)
    start.failed(wrapped(withCode('ECONNREFUSED', 'connect ECONNREFUSED')), 'https://a:443');
  assert.deepEqual(r.unreachable, [
    {
      server: 'https://a:443',
      code: 'ECONNREFUSED',
      error: 'GET https://10.96.0.1:443/api: connect ECONNREFUSED',
    },
  ]);
  start.answered('https://a:443');
  start.answered('https://a:443');
  assert.deepEqual(r.reached, [{ server: 'https://a:443', failures: 5 }]);
  // A later outage is no start-up problem: the callers' retries log it.
  start.failed(withCode('ETIMEDOUT'), 'https://a:443');
  assert.equal(r.unreachable.length, 1);
});

test('an app that reached the server first says nothing, then or later', () => {
  const r = recorder();
  const start = new StartReachability(r.events);
  start.answered('https://a:443');
  start.failed(withCode('ECONNREFUSED'), 'https://a:443');
  start.answered('https://a:443');
  assert.deepEqual([r.unreachable, r.reached], [[], []]);
});

test('other failures before the first answer neither report nor count; an unreachable one then does', () => {
  const r = recorder();
  const start = new StartReachability(r.events);
  start.failed(new DOMException('aborted', 'AbortError'), 'https://a:443');
  start.failed(withCode('ECONNRESET'), 'https://a:443');
  assert.equal(r.unreachable.length, 0);
  start.failed(withCode('EHOSTUNREACH'), 'https://a:443');
  start.answered('https://a:443');
  assert.deepEqual(
    r.unreachable.map((u) => u.code),
    ['EHOSTUNREACH'],
  );
  assert.deepEqual(r.reached, [{ server: 'https://a:443', failures: 1 }]);
});

test('the client over real sockets: a refusing port is reported once over several requests; a 403 then is reached', async () => {
  // A port nothing listens on (taken, then freed), later listened on again.
  const server = http.createServer((_req, res) => {
    res.statusCode = 403;
    res.end(JSON.stringify({ kind: 'Status', code: 403, reason: 'Forbidden', message: 'no' }));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((done) => server.close(() => done()));

  const kc = kubeConfigFor(port);
  const r = recorder();
  const unwatch = watchApiReachability(kc, r.events);
  // Two clients from one KubeConfig (as the watcher's lease and watch clients): one report between them.
  const kube = createKube(kc, { qps: 0 });
  const leases = createKube(kc, { qps: 0 });
  try {
    for (let i = 0; i < 3; i++) {
      await assert.rejects(kube.pods.list('default'));
      await assert.rejects(leases.leases.get('default', 'l'));
    }
    assert.equal(r.unreachable.length, 1, JSON.stringify(r.unreachable));
    assert.equal(r.unreachable[0]?.server, `http://127.0.0.1:${port}`);
    assert.equal(r.unreachable[0]?.code, 'ECONNREFUSED');
    assert.equal(r.reached.length, 0);

    await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
    await assert.rejects(
      kube.pods.list('default'),
      (err: unknown) => err instanceof KubeApiError && err.code === 403,
    );
    await assert.rejects(leases.leases.get('default', 'l'));
    assert.deepEqual(r.reached, [{ server: `http://127.0.0.1:${port}`, failures: 6 }]);
    assert.equal(r.unreachable.length, 1);
  } finally {
    unwatch();
    await kube.client.close();
    await leases.client.close();
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  }
});
