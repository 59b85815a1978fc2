// The eviction-policy check against real redis-servers: noeviction passes; any other policy, a refused
// INFO and wrong credentials are each a verdict that says what to do, never echoing a password. It reads
// INFO, never CONFIG GET: the apps' Redis users may not read the configuration.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, test } from 'node:test';
import { Redis } from 'ioredis';
import { aclRules, redisConnector, singleNodeConfig, urlConnector } from '@podset/redis';
import { freePort, RecordingLogger, startRedis, waitFor, type RedisServer } from '@podset/testkit';
import { checkEvictionPolicy, requireNoEviction } from '../src/policy.ts';

const servers: RedisServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});
async function redis(options: Parameters<typeof startRedis>[0] = {}): Promise<RedisServer> {
  const s = await startRedis(options);
  servers.push(s);
  return s;
}

test('noeviction (redis-server default) with a maxmemory passes and names the node checked', async () => {
  const s = await redis();
  const verdict = await checkEvictionPolicy(urlConnector(s.url));
  assert.deepEqual(verdict, { ok: true, nodes: [`redis://127.0.0.1:${s.port}`] });
});

test('volatile-lru is refused, naming the setting and how to fix it', async () => {
  const s = await redis({ args: ['--maxmemory-policy', 'volatile-lru'] });
  const verdict = await checkEvictionPolicy(urlConnector(s.url));
  assert.ok(verdict !== undefined && !verdict.ok);
  assert.equal(verdict.problem, 'policy');
  assert.match(verdict.message, /maxmemory-policy volatile-lru/);
  assert.match(verdict.message, /CONFIG SET maxmemory-policy noeviction/);
  assert.match(verdict.message, new RegExp(`127\\.0\\.0\\.1:${s.port}`));
});

test('noeviction without a maxmemory (0, redis-server default) is refused, saying how to set one', async () => {
  const s = await redis({ args: ['--maxmemory', '0'] });
  const verdict = await checkEvictionPolicy(urlConnector(s.url));
  assert.ok(verdict !== undefined && !verdict.ok, JSON.stringify(verdict));
  assert.equal(verdict.problem, 'maxmemory');
  assert.match(verdict.message, /has maxmemory 0/);
  assert.match(verdict.message, /CONFIG SET maxmemory/);
  assert.match(verdict.message, new RegExp(`127\\.0\\.0\\.1:${s.port}`));
});

test('CONFIG hidden (renamed away): the check reads INFO and still refuses a wrong policy', async () => {
  const s = await redis({ args: ['--rename-command', 'CONFIG', '', '--maxmemory-policy', 'allkeys-lru'] });
  const verdict = await checkEvictionPolicy(urlConnector(s.url));
  assert.ok(verdict !== undefined && !verdict.ok, JSON.stringify(verdict));
  assert.equal(verdict.problem, 'policy');
  assert.match(verdict.message, /maxmemory-policy allkeys-lru/);
});

/** A user `name` with `rules` on `s`, set by its administrator; its connector. */
async function userOn(
  s: RedisServer,
  name: string,
  rules: string[],
): Promise<ReturnType<typeof redisConnector>> {
  const admin = new Redis(s.url, { maxRetriesPerRequest: 1 });
  await admin.call('ACL', 'SETUSER', name, 'reset', 'on', '>pw-of-' + name, ...rules);
  admin.disconnect();
  return redisConnector({
    ...singleNodeConfig(`redis://127.0.0.1:${s.port}`),
    REDIS_USERNAME: name,
    REDIS_PASSWORD: 'pw-of-' + name,
  });
}

test("an app's user (no CONFIG GET) passes the check; a user refused INFO is told to set the opt-out", async () => {
  const s = await redis();
  for (const app of ['watcher', 'worker', 'dashboard'] as const) {
    const connector = await userOn(s, `podset-${app}`, aclRules(app, { prefix: 'p', queueName: 'q' }));
    const verdict = await checkEvictionPolicy(connector);
    assert.deepEqual(verdict, { ok: true, nodes: [`redis://127.0.0.1:${s.port}`] }, app);
  }
  const connector = await userOn(s, 'no-info', ['-@all', '+@connection']);
  const verdict = await checkEvictionPolicy(connector);
  assert.ok(verdict !== undefined && !verdict.ok, JSON.stringify(verdict));
  assert.equal(verdict.problem, 'config-refused');
  assert.match(verdict.message, /refused INFO memory/);
  assert.match(verdict.message, /REDIS_SKIP_EVICTION_CHECK=true/);
});

test('wrong or missing password: names REDIS_URL / REDIS_PASSWORD, never the password', async () => {
  const s = await redis({ password: 'right-horse-battery' });
  for (const password of ['wrong-staple-guess', undefined]) {
    const connector = redisConnector({
      ...singleNodeConfig(`redis://127.0.0.1:${s.port}`),
      REDIS_PASSWORD: password,
    });
    const verdict = await checkEvictionPolicy(connector);
    assert.ok(verdict !== undefined && !verdict.ok, String(password));
    assert.equal(verdict.problem, 'auth');
    assert.match(verdict.message, /REDIS_URL or REDIS_PASSWORD/);
    assert.doesNotMatch(verdict.message, /right-horse|wrong-staple/);
  }
  const right = await checkEvictionPolicy(
    redisConnector({
      ...singleNodeConfig(`redis://127.0.0.1:${s.port}`),
      REDIS_PASSWORD: 'right-horse-battery',
    }),
  );
  assert.equal(right?.ok, true);
});

test('unreachable: waits (reporting each attempt) until Redis is up, then checks', async () => {
  const port = await freePort();
  const errors: string[] = [];
  const pending = checkEvictionPolicy(urlConnector(`redis://127.0.0.1:${port}`), {
    onWaiting: (err) => errors.push(err.message),
  });
  await waitFor('two failed connection attempts', () => errors.length >= 2);
  await redis({ port, args: ['--maxmemory-policy', 'allkeys-lru'] });
  const verdict = await pending;
  assert.ok(verdict !== undefined && !verdict.ok && /allkeys-lru/.test(verdict.message));
  assert.match(errors[0] ?? '', /ECONNREFUSED/);
});

test('a signal while waiting gives up without a verdict', async () => {
  const abort = new AbortController();
  const pending = checkEvictionPolicy(urlConnector(`redis://127.0.0.1:${await freePort()}`), {
    signal: abort.signal,
  });
  abort.abort();
  assert.equal(await pending, undefined);
});

test('requireNoEviction: exit 2 on a refusal; the opt-out skips the check with a warning', async () => {
  const s = await redis({ args: ['--maxmemory-policy', 'volatile-ttl'] });
  const log = new RecordingLogger();
  const exited = await new Promise<number>((resolve) => {
    void requireNoEviction('app', urlConnector(s.url), {
      skip: false,
      log,
      exit: ((code: number) => resolve(code)) as (code: number) => never,
    });
  });
  assert.equal(exited, 2);
  await requireNoEviction('app', urlConnector(s.url), {
    skip: true,
    log,
    exit: () => assert.fail('the opt-out must not exit'),
  });
  assert.ok(log.messages('warn').some((m) => m.includes('REDIS_SKIP_EVICTION_CHECK')));
});

/** The commands of a chunk of RESP requests (whole commands only: a test's small local writes). */
function commandsOf(chunk: string): string[][] {
  const tokens = chunk.split('\r\n');
  const commands: string[][] = [];
  for (let i = 0; i < tokens.length;) {
    const n = /^\*(\d+)$/.exec(tokens[i] ?? '');
    if (n === null) break;
    const args: string[] = [];
    for (let a = 0; a < Number(n[1]); a++) args.push(tokens[i + 2 + 2 * a] ?? '');
    commands.push(args);
    i += 1 + 2 * Number(n[1]);
  }
  return commands;
}

test('an error that passes (LOADING while Redis reads its data) is waited out, then checked', async () => {
  // A stand-in server: LOADING to the first two INFO memory, as Redis does while it loads its AOF.
  let asked = 0;
  const memory = '# Memory\r\nmaxmemory:268435456\r\nmaxmemory_policy:noeviction\r\n';
  const stand = net.createServer((socket) => {
    socket.on('data', (data) => {
      for (const [name, section] of commandsOf(data.toString())) {
        if (name?.toLowerCase() === 'info' && section?.toLowerCase() === 'memory') {
          asked++;
          socket.write(
            asked <= 2
              ? '-LOADING Redis is loading the dataset in memory\r\n'
              : `$${Buffer.byteLength(memory)}\r\n${memory}\r\n`,
          );
        } else if (name?.toLowerCase() === 'info') socket.write('$0\r\n\r\n');
        else socket.write('+OK\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => stand.listen(0, '127.0.0.1', resolve));
  const port = (stand.address() as { port: number }).port;
  const waited: string[] = [];
  try {
    const verdict = await checkEvictionPolicy(urlConnector(`redis://127.0.0.1:${port}`), {
      onWaiting: (err) => waited.push(err.message),
    });
    assert.equal(verdict?.ok, true, JSON.stringify(verdict));
    assert.equal(waited.filter((m) => m.startsWith('LOADING')).length, 2);
  } finally {
    stand.close();
  }
});
