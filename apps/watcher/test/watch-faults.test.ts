// The watch loop against kube-sim over HTTPS, with real Redis and the real queue: every way a watch
// ends is injected, and every change made around the fault must still be requested.
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { waitFor } from '@podset/testkit';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import type { KubeConfig } from '@kubernetes/client-node';
import { EventLog } from '../src/event-log.ts';
import { createLogger } from '@podset/runtime';
import { silentLogger } from '@podset/log';
import {
  call,
  createPod,
  createPodSet,
  createPodSetInStore,
  kubeConfigFor,
  type RecordingQueue,
  scalePodSet,
  StallProxy,
  startTestWatcher,
} from './support.ts';

const env = useSimCluster({ sim: { bookmarkIntervalMs: 300, controllers: false }, redis: true });
let redis: Redis;
const cleanups: (() => Promise<void> | void)[] = [];

before(async () => {
  await env.ready;
  redis = new Redis(env.redis.url, { maxRetriesPerRequest: 3 });
});

after(async () => {
  redis?.disconnect();
});

let paused = false;
async function pause() {
  await env.sim.pause();
  paused = true;
}
async function resume() {
  await env.sim.resume();
  paused = false;
}

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  env.sim.faults.reset();
  if (paused) await resume();
});

let seq = 0;
// WATCHER_TEST_LOG=debug shows the watcher's own log lines.
const logger = process.env.WATCHER_TEST_LOG
  ? createLogger({ name: 'watch-faults', level: process.env.WATCHER_TEST_LOG })
  : silentLogger;
/**
 * Starts the watcher (startWatcher, leading at once) with a fresh checkpoint key, and a queue and a
 * projection of its own; stopped after the test. A restart that passes the same checkpoint key gets the
 * same queue and projection back.
 */
async function startWatcher(
  opts: {
    kubeConfig?: KubeConfig;
    watchTimeoutSeconds?: number;
    stallGraceMs?: number;
    checkpointKey?: string;
    namespaces?: string[];
  } = {},
) {
  const n = opts.checkpointKey === undefined ? ++seq : seq;
  const w = await startTestWatcher(env, {
    queuePrefix: 'wt',
    queueName: `faults-${n}`,
    keys: {
      checkpoint: opts.checkpointKey ?? `wt:test:${n}:rv`,
      sentinel: `wt:test:${n}:sentinel`,
      eventLog: 'wt:events',
    },
    ...(opts.kubeConfig !== undefined ? { kubeConfig: opts.kubeConfig } : {}),
    ...(opts.namespaces !== undefined ? { namespaces: opts.namespaces } : {}),
    ...(opts.watchTimeoutSeconds !== undefined ? { watchTimeoutSeconds: opts.watchTimeoutSeconds } : {}),
    ...(opts.stallGraceMs !== undefined ? { stallGraceMs: opts.stallGraceMs } : {}),
    logger,
  });
  cleanups.push(w.stop);
  const watcher = w.watcher;
  // Started: both streams listed (no checkpoint yet) and watching.
  await waitFor('watches open', () => watcher.loops.every((l) => l.counters.watchesOpened > 0));
  return { ...w, queue: w.running.queue };
}

const bulkCount = (q: RecordingQueue, key: string) =>
  q.requests.filter((r) => r.key === key && r.source === 'bulk').length;

const lists = () => env.sim.audit.query({ user: 'watcher', verb: 'list' }).length;

test('a PodSet change and a pod change are requested live; a pod with no PodSet controller, for the PodSet its label names', async () => {
  const w = await startWatcher();
  const ps = await createPodSet(env.sim, 'live-a');
  await createPod(env.sim, 'live-a-1', { name: 'live-a', uid: ps.metadata.uid });
  // Labelled podset.io/name=none, no controller: released from "none" as far as the watcher can tell.
  await createPod(env.sim, 'stray', undefined);
  await waitFor('requests', () => w.recording.requests.filter((r) => r.key === 'default/live-a').length >= 2);
  const live = w.recording.requests.filter((r) => r.source === 'live');
  assert.ok(live.some((r) => r.key === 'default/live-a'));
  await waitFor("the stray pod requests its label's PodSet", () =>
    w.recording.requests.some((r) => r.key === 'default/none'),
  );
  // In the real queue, collapsed to one waiting job for the key.
  assert.ok((await w.queue.currentJobId('default/live-a')) !== undefined);
  // And in the event log, one compact record per event (appended right after the request).
  const eventLog = new EventLog({ redis, key: 'wt:events' });
  const logged = async (pred: (r: Awaited<ReturnType<EventLog['recent']>>[number]) => boolean) =>
    (await eventLog.recent(50)).some(pred);
  await waitFor('PodSet record', () =>
    logged((r) => r.kind === 'PodSet' && r.key === 'default/live-a' && r.type === 'ADDED'),
  );
  await waitFor('pod record', () =>
    logged(
      (r) =>
        r.kind === 'Pod' &&
        r.name === 'live-a-1' &&
        r.key === 'default/live-a' &&
        r.owner === ps.metadata.uid,
    ),
  );
  await waitFor('unowned pod record', () =>
    logged((r) => r.kind === 'Pod' && r.name === 'stray' && r.key === 'default/none' && r.owner === ''),
  );
});

test('WATCH_NAMESPACES: only the listed namespaces are listed and watched', async () => {
  for (const ns of ['team-a', 'team-b']) {
    const res = await call(env.sim, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
    assert.equal(res.status, 201);
  }
  const w = await startWatcher({ namespaces: ['team-a'] });
  assert.deepEqual(w.watcher.loops.map((l) => l.stream).sort(), ['pods/team-a', 'podsets/team-a']);
  await createPodSet(env.sim, 'other', 'team-b');
  await createPodSet(env.sim, 'mine', 'team-a');
  await waitFor('team-a/mine', () => w.recording.has('team-a/mine', 'live'));
  assert.ok(!w.recording.has('team-b/other'));
  const listed = env.sim.audit.query({ user: 'watcher', verb: 'list' }).map((e) => e.namespace);
  assert.ok(listed.includes('team-a'));
  assert.ok(!listed.includes('team-b'));
});

test('cut watches (connection reset) reconnect from the last RV: nothing missed, no relist', async () => {
  const w = await startWatcher();
  const listsBefore = lists();
  // Reset every watch after 0.5 s while changes keep coming. (A cut after N events in reset mode
  // would drop those N unflushed events every time: no client could make progress.)
  env.sim.faults.set({ watchCutAfterSeconds: 0.5, watchCutMode: 'reset' });
  // Every connection dropped (the watch cache kept: no 410), so the cut applies to every watch from now on.
  await pause();
  await resume();
  const names = Array.from({ length: 8 }, (_, i) => `cut-${i}`);
  for (const n of names) {
    await createPodSet(env.sim, n);
    await new Promise((r) => setTimeout(r, 200));
  }
  await waitFor('every cut-* requested', () => names.every((n) => w.recording.has(`default/${n}`, 'live')));
  const c = w.watcher.counters();
  assert.ok(c.restarts.reset >= 2, JSON.stringify(c.restarts));
  assert.equal(lists(), listsBefore, 'no LIST after the cuts');
});

test('cut watches (clean end) reconnect too', async () => {
  const w = await startWatcher();
  env.sim.faults.set({ watchCutAfterEvents: 1, watchCutMode: 'end' });
  for (const n of ['end-0', 'end-1', 'end-2']) await createPodSet(env.sim, n);
  await waitFor('end-*', () =>
    ['end-0', 'end-1', 'end-2'].every((n) => w.recording.has(`default/${n}`, 'live')),
  );
  assert.ok(w.watcher.counters().restarts.closed >= 2);
});

test('a forced 410 (history compacted) relists and requests every key at bulk priority, including changes made meanwhile', async () => {
  await createPodSet(env.sim, 'gone-old');
  const w = await startWatcher();
  const relistsBefore = w.watcher.counters().relists;
  await pause(); // the watches end; reconnects are refused
  createPodSetInStore(env.sim, 'gone-missed'); // made while the watcher is cut off
  env.sim.faults.compactHistory(); // every older RV is gone: both streams' next watch gets 410
  await resume();
  await waitFor('relists after 410', () => w.watcher.counters().relists >= relistsBefore + 2);
  await waitFor('gone-missed requested by the relist', () => w.recording.has('default/gone-missed', 'bulk'));
  assert.ok(
    w.watcher.loops.every((l) => l.counters.relists === 2),
    'each stream relisted once more',
  );
  assert.ok(w.recording.has('default/gone-missed', 'bulk'));
  assert.ok(w.recording.has('default/gone-old', 'bulk'));
  assert.ok(w.watcher.counters().restarts.gone >= 2);
  // And it watches again afterwards.
  await createPodSet(env.sim, 'gone-after');
  await waitFor('gone-after live', () => w.recording.has('default/gone-after', 'live'));
});

test('a quiet watch on a server that sends it no bookmark is not restarted while its connection lives', async () => {
  // kube-sim bookmarks as a real server: only a watch whose resource changed since it started. Nothing
  // changes here, so nothing at all arrives; each watch lasts its 1–2 s timeout, several times the grace.
  const w = await startWatcher({ watchTimeoutSeconds: 1, stallGraceMs: 300 });
  await waitFor('each stream to have two watches ended by the server', () =>
    w.watcher.loops.every((l) => l.counters.restarts.closed >= 2),
  );
  const c = w.watcher.counters();
  assert.equal(c.events.BOOKMARK, 0, 'no bookmark came');
  assert.equal(c.restarts.stall, 0, JSON.stringify(c.restarts));
  assert.equal(c.relists, 2, 'only the start-up lists');
});

test('a silent stall (a connection that goes quiet) is restarted and the missed change is delivered', async () => {
  const proxy = new StallProxy(env.sim.port);
  const port = await proxy.listen();
  cleanups.push(() => proxy.close());
  const kubeConfig = kubeConfigFor(env.sim, 'watcher', port);
  await createPodSet(env.sim, 'stall-a');
  const w = await startWatcher({ kubeConfig, watchTimeoutSeconds: 1, stallGraceMs: 1000 });
  const frozen = proxy.freeze();
  assert.ok(frozen >= 2, `froze ${frozen} connections`);
  await scalePodSet(env.sim, 'stall-a', 2);
  await waitFor('stall-a after the stall', () => w.recording.has('default/stall-a', 'live'));
  assert.ok(w.watcher.counters().restarts.stall >= 1);
});

test("kube-sim's silent watch stall: the watch is restarted past its timeout and the change arrives", async () => {
  await createPodSet(env.sim, 'sim-stall');
  const w = await startWatcher({ watchTimeoutSeconds: 1, stallGraceMs: 1000 });
  // The watcher counts a watch opened when it sends the request; kube-sim registers it once the request
  // arrives. Stall until both are registered (each call stalls every watch open at that moment).
  await waitFor('both watches stalled', () => env.sim.faults.stallWatches() >= 2);
  await scalePodSet(env.sim, 'sim-stall', 3);
  await waitFor('sim-stall after the stall', () => w.recording.has('default/sim-stall', 'live'));
  assert.ok(w.watcher.counters().restarts.stall >= 1);
  assert.equal(w.watcher.counters().relists, 2, 'only the start-up lists');
});

test('429 with Retry-After and 5xx on watch are retried until the watch works again', async () => {
  const w = await startWatcher();
  const listsBefore = lists();
  // libs/kube retries a 429 itself a few times; more than that reaches the loop.
  env.sim.faults.addError({ verb: 'watch', code: 429, retryAfterSeconds: 0.1, times: 30 });
  env.sim.faults.addError({ verb: 'watch', code: 503, times: 2 });
  // Every connection dropped (the watch cache kept: no 410): every watch must reconnect through the faults.
  await pause();
  await resume();
  await createPodSet(env.sim, 'throttled');
  await waitFor('throttled requested', () => w.recording.has('default/throttled', 'live'));
  const c = w.watcher.counters();
  assert.ok(c.restarts.throttled >= 1, JSON.stringify(c.restarts));
  assert.ok(c.restarts['server-error'] >= 1, JSON.stringify(c.restarts));
  assert.equal(lists(), listsBefore, 'no relist for 429/5xx');
});

test('an API server restart: reconnects from the last RV, changes made while down are delivered live', async () => {
  const w = await startWatcher();
  const listsBefore = lists();
  await pause();
  createPodSetInStore(env.sim, 'while-down');
  await new Promise((r) => setTimeout(r, 300)); // reconnect attempts are refused meanwhile
  await resume();
  await waitFor('while-down requested', () => w.recording.has('default/while-down', 'live'));
  assert.equal(lists(), listsBefore);
  const r = w.watcher.counters().restarts;
  assert.ok(r.unreachable + r.closed + r.reset >= 1, JSON.stringify(r));
});

test('a restart resumes from the Redis checkpoint without a LIST; changes made while stopped are requested', async () => {
  const key = 'wt:test:resume:rv';
  const first = await startWatcher({ checkpointKey: key });
  await createPodSet(env.sim, 'resume-1');
  await waitFor('resume-1', () => first.recording.has('default/resume-1', 'live'));
  await first.stop(); // writes the last checkpoint
  assert.ok((await redis.hget(key, 'podsets/*')) !== null);
  await createPodSet(env.sim, 'resume-2'); // while no watcher runs
  const listsBefore = lists();
  const second = await startWatcher({ checkpointKey: key });
  await waitFor('resume-2 replayed', () => second.recording.has('default/resume-2', 'live'));
  assert.equal(lists(), listsBefore, 'no LIST after the restart');
  assert.equal(second.watcher.counters().relists, 0);
  assert.ok(!second.recording.has('default/resume-1'), 'nothing before the checkpoint is replayed');
});

test('Redis losing its data (flush) triggers a relist that requests every key again', async () => {
  const w = await startWatcher();
  const relists = w.watcher.counters().relists;
  const baseline = bulkCount(w.recording, 'default/live-a'); // from the start-up lists
  await redis.flushall();
  await waitFor('relist after data loss', () => w.watcher.counters().relists >= relists + 2);
  await waitFor('live-a requested again', () => bulkCount(w.recording, 'default/live-a') > baseline);
});

test('Redis restarted without persistence: the watcher notices on reconnect and requests every key again', async () => {
  const w = await startWatcher();
  const relists = w.watcher.counters().relists;
  const baseline = bulkCount(w.recording, 'default/live-a'); // from the start-up lists
  await env.redis.restart({ hard: true }); // no AOF: queue, checkpoints and sentinel are gone
  await waitFor('relist after the Redis restart', () => w.watcher.counters().relists >= relists + 2, 30_000);
  await waitFor('live-a requested again', () => bulkCount(w.recording, 'default/live-a') > baseline);
  // The requests reached the new, empty Redis: the queue holds a job for the key again.
  await waitFor('job re-created', async () => (await w.queue.currentJobId('default/live-a')) !== undefined);
  // And a live change still flows.
  await createPodSet(env.sim, 'after-redis-restart');
  await waitFor('live after the Redis restart', () => w.recording.has('default/after-redis-restart', 'live'));
});
