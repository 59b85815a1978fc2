// Redis with one ACL user per app (libs/redis's acl.ts, loaded as redis-server's --aclfile): each user
// is refused what its app must not do (the dashboard any write, the worker writing a projected PodSet,
// the watcher anything outside the queue's keys or FLUSHALL; every app a script of its own and CONFIG),
// each app says so in its log at start, and the watcher, a worker and the dashboard, each with its own
// user, still converge PodSets on the scripts the loader (podset-scripts) cached, also after a Redis
// restart emptied that cache.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import { OPS_USERNAME, aclSetUserArgs, aclUsername, type AppUser } from '@podset/redis';
import { dashboardUrl, newToken, startDashboardProc, waitForLog } from '../ops/support.ts';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';

const prefix = process.env.E2E_QUEUE_PREFIX || DEFAULT_PREFIX;
const queueName = process.env.E2E_QUEUE_NAME || DEFAULT_QUEUE_NAME;
const Q = `${prefix}:${queueName}:`;

let env: OperatorEnv;
let address: string;
before(async () => {
  // The shipped ACL file with every user (the harness's redisAcl); the script loader beside Redis runs as
  // podset-scripts, as beside the Redis of k8s/ and compose: the apps' users only EVALSHA.
  env = await startEnv({ name: 'redis-acl', redisAcl: true });
  address = `redis://127.0.0.1:${env.redis.port}`;
  await applyCrd(env);
});
after(async () => {
  await env?.close();
});

function as(app: AppUser): Redis {
  const client = new Redis(env.redis.port, '127.0.0.1', {
    username: aclUsername(app),
    password: env.redisUsers.passwords[app],
    maxRetriesPerRequest: 1,
    lazyConnect: true,
  });
  client.on('error', () => undefined);
  return client;
}

async function refused(what: string, run: () => Promise<unknown>): Promise<void> {
  // A command: NOPERM; a command inside a script: "can't access at least one of the keys".
  await assert.rejects(run, /NOPERM|can't access at least one of the keys/, `${what} must be refused`);
}

test('each user is refused what its app must not do', async () => {
  const dashboard = as('dashboard');
  const worker = as('worker');
  const watcher = as('watcher');
  try {
    await refused('dashboard SET', () => dashboard.set(`${Q}wait`, 'x'));
    await refused('dashboard DEL of a job key', () => dashboard.del(`${Q}0f00`));
    await refused('dashboard XADD to the event log', () =>
      dashboard.xadd(`${Q}watcher:events`, '*', 'a', 'b'),
    );
    await refused('dashboard EVAL that writes', () =>
      dashboard.eval("return redis.call('SET', KEYS[1], 'x')", 1, `${Q}meta`),
    );
    await refused('dashboard FLUSHALL', () => dashboard.flushall());
    await refused('worker SET of a projected PodSet', () => worker.set(`${Q}proj:ps:default/web`, '{}'));
    await refused('worker EVAL writing a projected PodSet', () =>
      worker.eval("return redis.call('SET', KEYS[1], '{}')", 1, `${Q}proj:ps:default/web`),
    );
    await refused('worker writing a projected PodSet from a script over its own keys', () =>
      worker.eval(
        "return redis.call('SET', ARGV[1], '{}')",
        1,
        `${Q}proj:exp:default/web`,
        `${Q}proj:ps:default/web`,
      ),
    );
    await refused('worker marking the projection ready', () => worker.set(`${Q}proj:ready`, 'x'));
    await refused('worker writing the watcher checkpoint', () => worker.set(`${Q}watcher:rv`, 'x'));
    await refused('worker FLUSHALL', () => worker.flushall());
    await refused('watcher outside the queue', () => watcher.set('other:key', 'x'));
    await refused('watcher FLUSHALL', () => watcher.flushall());
    await refused('watcher CONFIG SET', () => watcher.config('SET', 'maxmemory-policy', 'allkeys-lru'));
    // And what they need: the worker reads a projected PodSet and writes its expectations.
    assert.equal(await worker.get(`${Q}proj:ps:default/none`), null);
    assert.equal(await worker.hset(`${Q}proj:exp:default/none`, 'p', 'c1'), 1);
    assert.equal(await worker.del(`${Q}proj:exp:default/none`), 1);
  } finally {
    for (const c of [dashboard, worker, watcher]) c.disconnect();
  }
});

const LOOP = 'while true do end';

test('no app user may run a script of its own, cache one or read the configuration; cached ones it runs', async () => {
  for (const app of ['watcher', 'worker', 'dashboard'] as const) {
    const client = as(app);
    try {
      await refused(`${app} EVAL`, () => client.eval('return 1', 0));
      await refused(`${app} EVAL_RO`, () => client.call('EVAL_RO', LOOP, '0'));
      await refused(`${app} SCRIPT LOAD`, () => client.script('LOAD', 'return 1'));
      await refused(`${app} FUNCTION LOAD`, () =>
        client.call(
          'FUNCTION',
          'LOAD',
          "#!lua name=x\nredis.register_function('x', function() return 1 end)",
        ),
      );
      await refused(`${app} CONFIG GET`, () => client.config('GET', 'maxmemory-policy'));
      await refused(`${app} SCRIPT KILL`, () => client.script('KILL'));
      // EVALSHA itself is allowed: an unknown sha is answered NOSCRIPT, not NOPERM.
      await assert.rejects(() => client.evalsha('0'.repeat(40), 0), /NOSCRIPT/);
      await assert.rejects(() => client.call('EVALSHA_RO', '0'.repeat(40), '0'), /NOSCRIPT/);
      assert.match(await client.info('memory'), /maxmemory_policy:/, `${app} reads INFO`);
    } finally {
      client.disconnect();
    }
  }
});

test('the operations user stops a running script (SCRIPT KILL), and reads nothing else', async () => {
  const ops = new Redis(env.redis.port, '127.0.0.1', {
    username: OPS_USERNAME,
    password: env.redisUsers.ops,
    maxRetriesPerRequest: 1,
  });
  // A script that never ends, as only an administrator can still start one: every client meets BUSY.
  const admin = new Redis(env.redis.url, { maxRetriesPerRequest: 1 });
  let killed = false;
  try {
    // Both connections ready first: a client still in its handshake (ioredis' INFO ready check) when the
    // loop starts meets BUSY there and holds its commands back, SCRIPT KILL included.
    await Promise.all([ops.info('server'), admin.ping()]);
    const looping = admin.call('EVAL_RO', LOOP, '0');
    const outcome = looping.then(
      () => 'ended',
      (err: Error) => err.message,
    );
    const probe = new Redis(env.redis.url, { maxRetriesPerRequest: 1 });
    try {
      await waitForReply(probe, /BUSY/);
    } finally {
      probe.disconnect();
    }
    assert.equal(await ops.script('KILL'), 'OK');
    killed = true;
    assert.match(await outcome, /killed/i);
    assert.match(await ops.info('memory'), /used_memory:/);
    await refused('ops GET', () => ops.get(`${Q}meta`));
    await refused('ops CONFIG GET', () => ops.config('GET', 'requirepass'));
    await refused('ops EVAL', () => ops.eval('return 1', 0));
    await refused('ops SCRIPT LOAD', () => ops.script('LOAD', 'return 1'));
  } finally {
    // Never leave Redis busy for the tests after this one, whatever failed above.
    if (!killed) await admin.script('KILL').catch(() => undefined);
    ops.disconnect();
    admin.disconnect();
  }
});

/** Until `client`'s PING is answered with an error matching `reply`. */
async function waitForReply(client: Redis, reply: RegExp): Promise<void> {
  for (;;) {
    const answer = await client.ping().then(
      (r) => r,
      (err: Error) => err.message,
    );
    if (reply.test(answer)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The open Redis connections of each app's user, as the command each last ran (CLIENT LIST, as admin). */
async function connectionsOf(apps: readonly AppUser[]): Promise<Record<string, string[]>> {
  const admin = new Redis(env.redis.url, { maxRetriesPerRequest: 1 });
  try {
    const list = (await admin.client('LIST')) as string;
    const out: Record<string, string[]> = {};
    for (const line of list.split('\n')) {
      const field = (name: string) => new RegExp(`(?:^| )${name}=(\\S*)`).exec(line)?.[1];
      const app = apps.find((a) => aclUsername(a) === field('user'));
      if (app !== undefined) (out[app] ??= []).push(field('cmd') ?? '?');
    }
    for (const app of apps) out[app]?.sort();
    return out;
  } finally {
    admin.disconnect();
  }
}

test('with their own users the apps log their refusals, converge, and converge again after a Redis restart', async () => {
  const watcher = env.startWatcher('watcher-acl');
  const worker = env.startWorker('worker-acl');
  const token = newToken();
  const dashboard = startDashboardProc(env, 'dashboard-acl', {
    ...env.appRedisEnv('dashboard'),
    DASHBOARD_TOKEN: token,
    HTTP_PORT: '0',
  });
  const said = [
    await waitForLog(watcher, 'redis ACL: user podset-watcher is refused writing outside the queue prefix'),
    await waitForLog(worker, 'redis ACL: user podset-worker is refused writing a projected PodSet'),
    await waitForLog(dashboard, 'redis ACL: user podset-dashboard is refused writing to Redis'),
  ];
  for (const line of said) assert.equal(line.reply, 'NOPERM', JSON.stringify(line));

  await env.kubectl(['apply', '-f', env.writeManifest('acl-1.yaml', [podSetManifest('acl-one', 3)])]);
  await env.waitConverged(['acl-one'], { timeoutMs: 90_000 });
  // The queue's own commands (the merge script, requests' transactions) ride each app's auto-pipelined client
  // and open no connection of their own: the watcher 3 (4 before), a worker 5 (6 before).
  const connections = await connectionsOf(['watcher', 'worker']);
  assert.equal(connections.watcher?.length, 3, JSON.stringify(connections));
  assert.equal(connections.worker?.length, 5, JSON.stringify(connections));

  const res = await fetch(`${await dashboardUrl(dashboard)}/api/overview`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const overview = (await res.json()) as { podSets: { name: string }[]; errors?: string[] };
  assert.equal(res.status, 200, JSON.stringify(overview));
  assert.deepEqual(overview.errors ?? [], [], 'the read-only user reads the queue and the event log');
  assert.ok(
    overview.podSets.some((p) => p.name === 'acl-one'),
    JSON.stringify(overview),
  );
  const board = await fetch(
    `${await dashboardUrl(dashboard)}/queues/api/queues?activeQueue=${queueName}&status=latest&page=1`,
    {
      headers: { authorization: `Bearer ${token}` },
    },
  );
  assert.equal(board.status, 200, `bull-board reads the queue with scripts: ${await board.text()}`);

  await env.restartRedis();
  await env.kubectl([
    'apply',
    '-f',
    env.writeManifest('acl-2.yaml', [podSetManifest('acl-one', 5), podSetManifest('acl-two', 2)]),
  ]);
  await env.waitConverged(['acl-one', 'acl-two'], { timeoutMs: 120_000 });

  for (const p of [watcher, worker, dashboard]) {
    assert.ok(p.running, p.describe());
    const denied = p.lines().filter((l) => l.includes('NOPERM') && !l.includes('redis ACL: user'));
    assert.deepEqual(denied, [], `${p.name} met no NOPERM in its work`);
  }
  for (const p of [watcher, worker, dashboard]) assert.equal((await p.stop(10_000)).code, 0, p.describe());
});

test('a dashboard allowed queue actions (DASHBOARD_READ_ONLY=false) with the writes rules cleans jobs, and no more', async () => {
  // The same app's rules for the other mode, as `npm run redis-acl -- --dashboard-writes` gives them.
  const password = 'dashboard-rw-' + newToken();
  const [, ...rules] = aclSetUserArgs('dashboard', { prefix, queueName, dashboardWrites: true }, password);
  const admin = new Redis(env.redis.url, { maxRetriesPerRequest: 1 });
  await admin.call('ACL', 'SETUSER', 'podset-dashboard-rw', ...rules);
  admin.disconnect();
  const token = newToken();
  const dashboard = startDashboardProc(env, 'dashboard-acl-rw', {
    REDIS_URL: address,
    REDIS_USERNAME: 'podset-dashboard-rw',
    REDIS_PASSWORD: password,
    DASHBOARD_READ_ONLY: 'false',
    DASHBOARD_TOKEN: token,
    HTTP_PORT: '0',
  });
  await waitForLog(dashboard, 'redis ACL: user podset-dashboard-rw is refused writing to Redis');
  const url = await dashboardUrl(dashboard);
  for (const action of ['clean/completed', 'retry/failed']) {
    const res = await fetch(`${url}/queues/api/queues/${queueName}/${action}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 200, `${action}: ${await res.text()}`);
  }
  const denied = dashboard.lines().filter((l) => l.includes('NOPERM') && !l.includes('redis ACL: user'));
  assert.deepEqual(denied, [], 'its queue actions met no NOPERM');
  const rw = new Redis(env.redis.port, '127.0.0.1', {
    username: 'podset-dashboard-rw',
    password,
    maxRetriesPerRequest: 1,
  });
  await refused('the writing dashboard writing a projected PodSet', () =>
    rw.set(`${Q}proj:ps:default/web`, '{}'),
  );
  rw.disconnect();
  assert.equal((await dashboard.stop(10_000)).code, 0, dashboard.describe());
});
