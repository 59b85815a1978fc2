// Watches as kube-apiserver's watch cache serves them: bookmarks only once the watched resource has changed
// since the watch's start, carrying that resource's resourceVersion, one more just before timeoutSeconds ends
// the watch, and a restart that answers 410 to watches resumed from before it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { waitFor } from '@podset/testkit';
import { type KubeSim, startKubeSim } from '../src/index.ts';

interface WatchEvent {
  type: string;
  object: { metadata: { resourceVersion?: string; name?: string }; code?: number };
}

async function call(sim: KubeSim, method: string, path: string, body?: unknown) {
  const res = await fetch(sim.url + path, {
    method,
    headers: {
      authorization: `Bearer ${sim.tokens.admin}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as { metadata: { resourceVersion: string } } };
}

/** A watch read in the background: every event lands in `events`; `ended` once the server ends it. */
async function recordWatch(sim: KubeSim, path: string) {
  const ac = new AbortController();
  const res = await fetch(sim.url + path, {
    headers: { authorization: `Bearer ${sim.tokens.admin}` },
    signal: ac.signal,
  });
  assert.equal(res.status, 200);
  const w = { events: [] as WatchEvent[], ended: false, close: () => ac.abort() };
  void (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as ReadableStream<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim() !== '') w.events.push(JSON.parse(line) as WatchEvent);
        }
      }
    } catch {
      // aborted by close()
    }
    w.ended = true;
  })();
  return w;
}

const bookmarks = (w: { events: WatchEvent[] }) => w.events.filter((e) => e.type === 'BOOKMARK');
const rvOf = (e: WatchEvent | undefined) => e?.object.metadata.resourceVersion;

describe('kube-sim watch cache', () => {
  let sim: KubeSim;
  const open: { close(): void }[] = [];
  before(async () => {
    sim = await startKubeSim({ controllers: false, bookmarkIntervalMs: 150 });
    await call(sim, 'POST', '/api/v1/namespaces', { metadata: { name: 'bm' } });
  });
  after(async () => {
    for (const w of open) w.close();
    await sim.close();
  });
  const watch = async (path: string) => {
    const w = await recordWatch(sim, path);
    open.push(w);
    return w;
  };

  test('periodic bookmarks: none while the resource is unchanged since the start, then its own resourceVersion', async () => {
    const rv0 = sim.resourceVersion();
    const q = `watch=1&allowWatchBookmarks=true&resourceVersion=${rv0}`;
    // Opened first: at every period its bookmark timer fires before the busy watch's.
    const quiet = await watch(`/api/v1/namespaces/bm/secrets?${q}`);
    const busy = await watch(`/api/v1/namespaces/bm/configmaps?${q}`);
    const cm = await call(sim, 'POST', '/api/v1/namespaces/bm/configmaps', { metadata: { name: 'c1' } });
    await waitFor('two bookmarks on the watch whose resource changed', () => bookmarks(busy).length >= 2);
    assert.equal(
      rvOf(bookmarks(busy)[0]),
      cm.body.metadata.resourceVersion,
      "the configmaps' resourceVersion",
    );
    assert.equal(quiet.events.length, 0, 'the unchanged resource got no bookmark in as many periods');

    const secret = await call(sim, 'POST', '/api/v1/namespaces/bm/secrets', { metadata: { name: 's1' } });
    await call(sim, 'POST', '/api/v1/namespaces/bm/configmaps', { metadata: { name: 'c2' } });
    await waitFor('a bookmark once a secret changed', () => bookmarks(quiet).length >= 1);
    assert.equal(quiet.events[0]?.type, 'ADDED');
    assert.equal(
      rvOf(bookmarks(quiet)[0]),
      secret.body.metadata.resourceVersion,
      "the secrets' own resourceVersion, not the store's later one",
    );
    assert.ok(Number(rvOf(bookmarks(quiet)[0])) < sim.resourceVersion());
  });

  test('a restart answers 410 to a watch resumed from before it; one from a list after it resumes', async () => {
    const before = await call(sim, 'POST', '/api/v1/namespaces/bm/configmaps', { metadata: { name: 'r1' } });
    const rv = before.body.metadata.resourceVersion;
    const cut = await watch(`/api/v1/namespaces/bm/configmaps?watch=1&resourceVersion=${rv}`);
    // Another resource changes: the store moves past the configmaps' last change, as a cluster's does.
    await call(sim, 'POST', '/api/v1/namespaces/bm/secrets', { metadata: { name: 'r1' } });
    await sim.restart();
    await waitFor('the open watch to end with the restart', () => cut.ended);

    const resumed = await watch(`/api/v1/namespaces/bm/configmaps?watch=1&resourceVersion=${rv}`);
    await waitFor('the resumed watch to end', () => resumed.ended);
    assert.deepEqual(
      resumed.events.map((e) => `${e.type} ${e.object.code}`),
      ['ERROR 410'],
    );
    // Reads at the older resourceVersion still work (etcd kept its history; only the cache restarted).
    const old = await call(
      sim,
      'GET',
      `/api/v1/namespaces/bm/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`,
    );
    assert.equal(old.status, 200);

    const list = await call(sim, 'GET', '/api/v1/namespaces/bm/configmaps');
    const fresh = await watch(
      `/api/v1/namespaces/bm/configmaps?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`,
    );
    await call(sim, 'POST', '/api/v1/namespaces/bm/configmaps', { metadata: { name: 'r2' } });
    await waitFor('the change after the restart', () => fresh.events.length >= 1);
    assert.deepEqual(
      fresh.events.map((e) => `${e.type} ${e.object.metadata.name}`),
      ['ADDED r2'],
    );
  });
});

/**
 * A watch of 3 s with bookmarks, one change made in it, read to its end: what it sent (type and RV) and the
 * change's RV. `opened` runs once the watch is open, before the change.
 */
async function oneChangeToTimeout(opened: () => void = () => {}) {
  const sim = await startKubeSim({ controllers: false });
  try {
    const rv = sim.resourceVersion();
    const w = await recordWatch(
      sim,
      `/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=${rv}`,
    );
    opened();
    const cm = await call(sim, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'x' } });
    await waitFor('the watch to end at its timeout', () => w.ended, { timeoutMs: 10_000 });
    return { sent: w.events.map((e) => `${e.type} ${rvOf(e)}`), changeRv: cm.body.metadata.resourceVersion };
  } finally {
    await sim.close();
  }
}

test('one last bookmark just before timeoutSeconds ends the watch, as kube-apiserver sends it', async () => {
  // The default bookmark period (a minute) is far longer than this watch: only the pre-timeout one comes.
  const { sent, changeRv } = await oneChangeToTimeout();
  assert.deepEqual(sent, [`ADDED ${changeRv}`, `BOOKMARK ${changeRv}`]);
});

test('the pre-timeout bookmark comes once even when its timer fires before the clock reaches its time', async (t) => {
  // Timers may fire a little before Date.now() reaches the time they were set for. Here the clock is held
  // back 300 ms once the watch is open, so the bookmark's timer fires "early" every time: a tick that
  // rescheduled from there would send the pre-timeout bookmark a second time, 300 ms later.
  const realNow = Date.now.bind(Date);
  const { sent, changeRv } = await oneChangeToTimeout(() => {
    t.mock.method(Date, 'now', () => realNow() - 300);
  });
  assert.deepEqual(sent, [`ADDED ${changeRv}`, `BOOKMARK ${changeRv}`]);
});

test('a stalled watch sends nothing, not even its end at timeoutSeconds', async () => {
  const sim = await startKubeSim({ controllers: false });
  const q = 'watch=1&allowWatchBookmarks=true&timeoutSeconds=1';
  const stalled = await recordWatch(sim, `/api/v1/namespaces/default/configmaps?${q}`);
  try {
    await waitFor('the watch registered and stalled', () => sim.faults.stallWatches() === 1);
    await call(sim, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'unseen' } });
    // Opened after it with the same timeout: once this one has ended, the stalled one's timeout has passed.
    const witness = await recordWatch(sim, `/api/v1/namespaces/default/configmaps?${q}`);
    await waitFor('the later watch to end at its timeout', () => witness.ended, { timeoutMs: 10_000 });
    assert.equal(stalled.ended, false, 'the stalled watch is still open');
    assert.equal(stalled.events.length, 0, JSON.stringify(stalled.events));
  } finally {
    stalled.close();
    await sim.close();
  }
});
