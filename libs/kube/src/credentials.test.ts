// The auth headers and the pool, taken from client-node once per kubeconfig content, while credentials that
// client-node refreshes (a token file, an exec plugin, an added authenticator) still refresh per request.
import type { KubeConfig, User } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, mock, test } from 'node:test';
import { Agent, type Dispatcher } from 'undici';
import { CredentialCache, fixedHeaders } from './credentials.ts';
import { createKube } from './index.ts';
import { kubeConfigFor } from './kubeconfig.ts';

const authorizations: (string | undefined)[] = [];
let server: http.Server;
let url: string;

before(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      authorizations.push(req.headers.authorization);
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ metadata: { name: 'web', uid: 'u1' } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const kubeConfig = (user: User): KubeConfig => kubeConfigFor(url, user);

/**
 * Counts the connection pools built for `kc`: client-node's own Agent (applySecurityAuthentication) and
 * ours both start from its createDispatcherOptions.
 */
function countSetUps(kc: KubeConfig): { count: number } {
  const calls = { count: 0 };
  const original = kc.createDispatcherOptions.bind(kc);
  kc.createDispatcherOptions = (cluster, agentOptions) => {
    calls.count++;
    return original(cluster, agentOptions);
  };
  return calls;
}

test('a connection pool is built once per kubeconfig content, not once per request', async () => {
  authorizations.length = 0;
  const kc = kubeConfig({ name: 'u', token: 't1' });
  const setUps = countSetUps(kc);
  const kube = createKube(kc);
  for (let i = 0; i < 10; i++) await kube.podSets.get('default', 'web');
  await Promise.all([1, 2, 3].map(() => kube.podSets.get('default', 'web')));
  assert.equal(setUps.count, 1, 'one set-up for 13 requests');
  assert.deepEqual(new Set(authorizations), new Set(['Bearer t1']));
  // New content (a reload puts the file's clusters, users and contexts in): its token, and a new pool.
  kc.loadFromOptions({
    clusters: kc.clusters,
    contexts: kc.contexts,
    users: [{ name: 'u', token: 't2' }],
    currentContext: kc.currentContext,
  });
  await kube.podSets.get('default', 'web');
  await kube.podSets.get('default', 'web');
  assert.equal(setUps.count, 2);
  assert.deepEqual(authorizations.slice(-2), ['Bearer t2', 'Bearer t2']);
  await kube.client.close();
});

test('the first burst of requests waits for one pool, not one each', async () => {
  const kc = kubeConfig({ name: 'u', token: 't1' });
  const setUps = countSetUps(kc);
  const kube = createKube(kc);
  await Promise.all(Array.from({ length: 8 }, () => kube.podSets.get('default', 'web')));
  assert.equal(setUps.count, 1);
  await kube.client.close();
});

test('an added authenticator is asked on every request, without a new pool', async () => {
  authorizations.length = 0;
  const kc = kubeConfig({ name: 'u' });
  let n = 0;
  kc.addAuthenticator({
    isAuthProvider: () => true,
    applyAuthentication: async (_user, opts) => {
      opts.headers = { ...opts.headers, Authorization: `Bearer n${++n}` };
      return Promise.resolve();
    },
  });
  const setUps = countSetUps(kc);
  const kube = createKube(kc);
  for (let i = 0; i < 4; i++) await kube.podSets.get('default', 'web');
  assert.deepEqual(authorizations, ['Bearer n1', 'Bearer n2', 'Bearer n3', 'Bearer n4']);
  assert.equal(setUps.count, 1);
  await kube.client.close();
});

test("a token file (in-cluster) is read again when client-node's 60 s cache of it runs out", async () => {
  authorizations.length = 0;
  const dir = mkdtempSync(join(tmpdir(), 'podset-token-'));
  const file = join(dir, 'token');
  writeFileSync(file, 'old');
  mock.timers.enable({ apis: ['Date'], now: Date.now() });
  try {
    const kc = kubeConfig({ name: 'u', authProvider: { name: 'tokenFile', config: { tokenFile: file } } });
    const kube = createKube(kc);
    await kube.podSets.get('default', 'web');
    writeFileSync(file, 'new');
    await kube.podSets.get('default', 'web');
    mock.timers.tick(61_000);
    await kube.podSets.get('default', 'web');
    assert.deepEqual(authorizations, ['Bearer old', 'Bearer old', 'Bearer new']);
    await kube.client.close();
  } finally {
    mock.timers.reset();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('fixedHeaders: a token, a certificate or basic auth are fixed; an exec plugin or auth provider are not', () => {
  assert.equal(fixedHeaders(kubeConfig({ name: 'u', token: 't' })), true);
  assert.equal(fixedHeaders(kubeConfig({ name: 'u', username: 'a', password: 'b' })), true);
  assert.equal(fixedHeaders(kubeConfig({ name: 'u', exec: { command: 'x' } })), false);
  assert.equal(
    fixedHeaders(kubeConfig({ name: 'u', authProvider: { name: 'tokenFile', config: { tokenFile: '/t' } } })),
    false,
  );
  const kc = kubeConfig({ name: 'u', token: 't' });
  kc.addAuthenticator({ isAuthProvider: () => false, applyAuthentication: () => Promise.resolve() });
  assert.equal(fixedHeaders(kc), false);
});

test("an idle connection outlives undici's 4 s default when the server sends no Keep-Alive hint, as a kube-apiserver", async () => {
  // Go's net/http server (a kube-apiserver) closes idle connections after 90 s and announces nothing;
  // a Node server with keepAliveTimeout 0 announces nothing either.
  const quiet = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end(JSON.stringify({ metadata: { name: 'web', uid: 'u1' } })));
  });
  quiet.keepAliveTimeout = 0;
  let connections = 0;
  quiet.on('connection', () => connections++);
  await new Promise<void>((r) => quiet.listen(0, '127.0.0.1', r));
  try {
    const kc = kubeConfigFor((quiet.address() as AddressInfo).port);
    const kube = createKube(kc);
    await kube.podSets.get('default', 'web');
    await new Promise((r) => setTimeout(r, 4_500));
    await kube.podSets.get('default', 'web');
    assert.equal(connections, 1, 'the second request after 4.5 s idle reused the first connection');
    await kube.client.close();
  } finally {
    quiet.closeAllConnections();
    await new Promise<void>((r) => quiet.close(() => r()));
  }
});

test('paced watches get a pool of their own whose sockets buffer one byte; it is replaced and closed with the other', async () => {
  const upgrades = http.createServer();
  upgrades.on('upgrade', (_req, socket) => {
    socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: probe\r\nConnection: Upgrade\r\n\r\n');
  });
  await new Promise<void>((r) => upgrades.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(upgrades.address() as AddressInfo).port}`;
  /** The readable buffer of a socket the pool opens (an upgrade hands the socket itself over). */
  const socketBufferOf = async (pool: Dispatcher) => {
    // An Agent takes the origin with the request; undici's types give upgrade() no field for it.
    const options = { origin, path: '/', protocol: 'probe' } as Dispatcher.UpgradeOptions;
    const { socket } = (await pool.upgrade(options)) as Dispatcher.UpgradeData;
    const bytes = socket.readableHighWaterMark;
    socket.destroy();
    return bytes;
  };
  try {
    const kc = kubeConfig({ name: 'u', token: 't1' });
    const cache = new CredentialCache(kc);
    const first = await cache.current();
    assert.notEqual(first.pacedDispatcher, first.dispatcher);
    assert.equal(await socketBufferOf(first.pacedDispatcher), 1);
    assert.ok((await socketBufferOf(first.dispatcher)) > 1, "the other calls' sockets keep Node's buffer");
    // New content: both pools are new.
    kc.loadFromOptions({
      clusters: kc.clusters,
      contexts: kc.contexts,
      users: [{ name: 'u', token: 't2' }],
      currentContext: kc.currentContext,
    });
    const second = await cache.current();
    assert.notEqual(second.pacedDispatcher, first.pacedDispatcher);
    assert.notEqual(second.dispatcher, first.dispatcher);
    await cache.close();
    await assert.rejects(
      socketBufferOf(second.pacedDispatcher),
      /Client(Closed|Destroyed)Error|closed|destroyed/,
    );
    // A given pool serves paced watches too (tests hand one in).
    const given = new Agent();
    const withGiven = await new CredentialCache(kc, given).current();
    assert.equal(withGiven.pacedDispatcher, given);
    await given.close();
  } finally {
    await new Promise<void>((r) => upgrades.close(() => r()));
  }
});
