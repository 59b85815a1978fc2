// The watcher as the separate process it runs as (src/main.ts), against kube-sim over HTTPS and a real
// Redis: checkpoint resume across a restart, leader election between two replicas, hand-over on
// SIGKILL and on SIGTERM, the exit code of a port it cannot listen on.
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { ReconcileQueue } from '@podset/queue';
import { freePort, Proc, waitFor } from '@podset/testkit';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import { createPodSet } from './support.ts';

const REPO = path.resolve(import.meta.dirname, '../../..');
const NODE = path.join(REPO, 'node_modules/.bin/node');
const MAIN = path.join(REPO, 'apps/watcher/src/main.ts');
const LEASE_SECONDS = 3;

const env = useSimCluster({ sim: { bookmarkIntervalMs: 1000, controllers: false }, redis: true });
let queue: ReconcileQueue;
const children = new Set<Watcher>();

interface Watcher {
  identity: string;
  url: string;
  proc: Proc;
  /** Log lines (JSON) with this msg. */
  count(msg: string): number;
}

before(async () => {
  await env.ready;
  queue = new ReconcileQueue({ connection: env.redis.url, queueName: 'procs', prefix: 'wp' });
});

afterEach(async () => {
  for (const w of children) {
    await w.proc.kill();
  }
  children.clear();
});

after(async () => {
  await queue?.close();
});

async function startWatcher(identity: string, leaseName: string, httpPort?: number): Promise<Watcher> {
  const port = httpPort ?? (await freePort());
  const proc = new Proc({
    name: `watcher ${identity}`,
    command: NODE,
    args: [MAIN],
    env: {
      HTTP_PORT: String(port),
      PATH: process.env.PATH,
      KUBECONFIG: env.sim.kubeconfigFor('watcher'),
      REDIS_URL: env.redis.url,
      QUEUE_NAME: 'procs',
      QUEUE_PREFIX: 'wp',
      HOLDER_IDENTITY: identity,
      LEASE_NAMESPACE: 'default',
      LEASE_NAME: leaseName,
      LEASE_DURATION_SECONDS: String(LEASE_SECONDS),
      WATCH_STALL_GRACE_SECONDS: '10',
      WATCH_TIMEOUT_SECONDS: '60',
      RESYNC_PERIOD_SECONDS: '0',
      CHECKPOINT_INTERVAL_MS: '100',
      LOG_LEVEL: 'info',
    },
  });
  const w: Watcher = {
    identity,
    url: `http://127.0.0.1:${port}`,
    proc,
    count: (msg) => proc.lines().filter((l) => l.includes(`"msg":${JSON.stringify(msg)}`)).length,
  };
  void proc.exited.then(({ code }) => {
    if (code !== 0 && code !== null) process.stderr.write(`${proc.describe()}\n`);
  });
  children.add(w);
  return w;
}

function holder(leaseName: string): string {
  const lease = env.sim.cluster.get('leases.coordination.k8s.io', 'default', leaseName) as
    { spec?: { holderIdentity?: string } } | undefined;
  return lease?.spec?.holderIdentity ?? '';
}

const enqueued = async (key: string) => (await queue.currentJobId(key)) !== undefined;
const listsBy = (identity: string) =>
  env.sim.audit.all().filter((e) => e.verb === 'list' && e.userAgent.includes(`podset-watcher/${identity}`))
    .length;
const leaseReadsBy = (identity: string) =>
  env.sim.audit
    .all()
    .filter(
      (e) =>
        e.verb === 'get' && e.resource === 'leases' && e.userAgent.includes(`podset-watcher/${identity}`),
    ).length;
/** The value of an unlabelled (or summed) metric in a /metrics scrape. */
async function metric(w: Watcher, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${w.url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)$/.exec(line);
    if (m && m[1] === name && (m[2] ?? '').includes(labels)) sum += Number(m[3]);
  }
  return sum;
}

const watching = (w: Watcher) => w.count('relisted') + w.count('resuming watch from checkpoint') >= 2; // podsets and pods streams

test('SIGTERM releases the lease; a restart resumes from the checkpoint with no LIST and misses nothing', async () => {
  const first = await startWatcher('w-first', 'restart');
  await waitFor(
    'first watcher leading and watching',
    () => holder('restart') === 'w-first' && watching(first),
  );
  assert.ok(listsBy('w-first') >= 2, 'the first start lists (no checkpoint yet)');
  await createPodSet(env.sim, 'before-restart');
  await waitFor('before-restart enqueued', () => enqueued('default/before-restart'));

  assert.equal((await first.proc.stop()).code, 0, 'exit 0 on SIGTERM');
  assert.equal(holder('restart'), '', 'lease released on SIGTERM');

  await createPodSet(env.sim, 'while-stopped');
  const second = await startWatcher('w-second', 'restart');
  await waitFor('the change made while stopped is enqueued', () => enqueued('default/while-stopped'));
  assert.equal(second.count('resuming watch from checkpoint'), 2);
  assert.equal(second.count('relisting'), 0);
  assert.equal(listsBy('w-second'), 0, 'kube-sim audit: no LIST after the restart');
});

test('two watchers: one leader; SIGKILL of the leader hands over and a change made meanwhile is enqueued', async () => {
  const a = await startWatcher('w-a', 'pair');
  const b = await startWatcher('w-b', 'pair');
  await waitFor('a leader watching', () => holder('pair') !== '' && (watching(a) || watching(b)));
  const leader = holder('pair') === 'w-a' ? a : b;
  const standby = leader === a ? b : a;
  // The standby looks at the held lease several times (a counter, not a duration): it must stay standby.
  const polled = leaseReadsBy(standby.identity);
  await waitFor(
    'the standby to poll the held lease three more times',
    () => leaseReadsBy(standby.identity) >= polled + 3,
  );
  assert.equal(leader.count('became leader'), 1);
  assert.equal(standby.count('became leader'), 0, 'one leader');
  assert.equal(listsBy(standby.identity), 0, 'the standby does not watch');
  // Metrics and probes: the leader gauge tells them apart; both are ready (leadership is not readiness).
  assert.equal(await metric(leader, 'podset_watcher_leader'), 1);
  assert.equal(await metric(standby, 'podset_watcher_leader'), 0);
  // A leader may resume both streams from the checkpoints an earlier test left (no relist, and no event
  // while nothing changes), so the relist counter is held to the relists the leader logged, not to one.
  const relistsLogged = leader.count('relisted');
  assert.ok((await metric(leader, 'podset_watch_relists_total')) >= relistsLogged);
  for (const w of [leader, standby]) {
    const res = await fetch(`${w.url}/readyz`);
    assert.equal(res.status, 200, await res.text());
  }

  await leader.proc.kill();
  const killedAt = Date.now();
  await createPodSet(env.sim, 'during-handover');
  await waitFor('the standby holds the lease', () => holder('pair') === standby.identity, 20_000);
  const handoverMs = Date.now() - killedAt;
  await waitFor('the change made during the hand-over is enqueued', () =>
    enqueued('default/during-handover'),
  );
  assert.equal(standby.count('became leader'), 1);
  assert.equal(await metric(standby, 'podset_watcher_leader'), 1);
  assert.ok((await metric(standby, 'podset_enqueued_total', 'source="live"')) >= 1);
  // The standby waits out the lease (as seen on its own clock) plus at most ~two retry periods.
  // Bound generously (a busy machine), but well below "never".
  assert.ok(handoverMs < LEASE_SECONDS * 1000 * 3, `hand-over took ${handoverMs} ms`);
  process.stdout.write(`# hand-over after SIGKILL took ${handoverMs} ms (lease ${LEASE_SECONDS} s)\n`);
});

test('HTTP_PORT already taken: exit 2 with the port named (a usage error, not a crash)', async () => {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, resolve));
  try {
    const port = (taken.address() as net.AddressInfo).port;
    const w = await startWatcher('w-port', 'port', port);
    const exit = await w.proc.exited;
    assert.equal(exit.code, 2, w.proc.describe());
    assert.ok(
      w.proc
        .lines()
        .some((l) => l.startsWith(`watcher: port ${port} `) && l.endsWith('choose another with HTTP_PORT')),
      w.proc.describe(),
    );
    assert.equal(holder('port'), '', 'it never campaigned');
  } finally {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
  }
});
