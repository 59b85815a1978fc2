// kube-sim's REST semantics over HTTP: watch: resume, selectors, bookmarks, watch-list, timeout, 410 Gone.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openWatch, useServer } from './support.ts';

describe('kube-sim server', () => {
  const server = useServer();
  const { call } = server;

  test('watch: initial ADDED, resume strictly after an RV, selector enter/leave, bookmarks, timeout', async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'watching' } });
    const c1 = await call('POST', '/api/v1/namespaces/watching/configmaps', {
      metadata: { name: 'w1', labels: { app: 'x' } },
    });
    const w = await openWatch(server.sim, '/api/v1/namespaces/watching/configmaps?watch=true');
    const first = await w.next();
    assert.equal(first?.type, 'ADDED');
    assert.equal(
      server.sim.audit.query({ verb: 'watch', resource: 'configmaps', namespace: 'watching' }).length,
      1,
      'audited at start',
    );
    assert.equal(first?.object.metadata.name, 'w1');
    const w2 = await call('POST', '/api/v1/namespaces/watching/configmaps', {
      metadata: { name: 'w2', labels: { app: 'y' } },
    });
    const ev = await w.next();
    assert.equal(ev?.type, 'ADDED');
    assert.equal(ev?.object.metadata.resourceVersion, w2.body.metadata.resourceVersion);
    w.close();

    // strictly after: from w1's RV, the first event is w2
    const r = await openWatch(
      server.sim,
      `/api/v1/namespaces/watching/configmaps?watch=1&resourceVersion=${c1.body.metadata.resourceVersion}`,
    );
    const resumed = await r.next();
    assert.equal(resumed?.object.metadata.name, 'w2');
    r.close();

    // selector: leaving the selector is DELETED, entering is ADDED
    const s = await openWatch(
      server.sim,
      `/api/v1/namespaces/watching/configmaps?watch=1&labelSelector=app%3Dx&resourceVersion=${w2.body.metadata.resourceVersion}&allowWatchBookmarks=true`,
    );
    const cur = (await call('GET', '/api/v1/namespaces/watching/configmaps/w1')).body;
    await call('PUT', '/api/v1/namespaces/watching/configmaps/w1', {
      ...cur,
      metadata: { ...cur.metadata, labels: { app: 'z' } },
    });
    const cur2 = (await call('GET', '/api/v1/namespaces/watching/configmaps/w2')).body;
    await call('PUT', '/api/v1/namespaces/watching/configmaps/w2', {
      ...cur2,
      metadata: { ...cur2.metadata, labels: { app: 'x' } },
    });
    const types: string[] = [];
    for (;;) {
      const e = await s.next();
      if (e?.type === 'BOOKMARK') {
        assert.match(e.object.metadata.resourceVersion, /^\d+$/);
        types.push('BOOKMARK');
        if (types.filter((t) => t !== 'BOOKMARK').length === 2) break;
        continue;
      }
      types.push(`${e?.type} ${e?.object.metadata.name}`);
      if (types.filter((t) => t !== 'BOOKMARK').length === 2 && types.includes('BOOKMARK')) break;
      if (types.filter((t) => t !== 'BOOKMARK').length === 2) continue;
    }
    assert.deepEqual(
      types.filter((t) => t !== 'BOOKMARK'),
      ['DELETED w1', 'ADDED w2'],
    );
    s.close();

    // watch-list: initial events, then a bookmark marking their end
    const wl = await openWatch(
      server.sim,
      '/api/v1/namespaces/watching/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
    );
    const initial: string[] = [];
    for (;;) {
      const e = await wl.next();
      if (e?.type === 'BOOKMARK') {
        assert.equal(e.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
        break;
      }
      initial.push(`${e?.type} ${e?.object.metadata.name}`);
    }
    assert.deepEqual(initial, ['ADDED w1', 'ADDED w2']);
    wl.close();

    // timeoutSeconds ends the stream
    const t = await openWatch(
      server.sim,
      `/api/v1/namespaces/watching/configmaps?watch=1&timeoutSeconds=1&resourceVersion=${server.sim.resourceVersion()}`,
    );
    assert.equal(await t.next(5000), undefined);
  });

  test('watch: 410 Gone as an ERROR event when the RV is older than the retained window', async () => {
    const old = server.sim.resourceVersion();
    await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'gone-1' } });
    server.sim.faults.compactHistory();
    const w = await openWatch(
      server.sim,
      `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${old}`,
    );
    const e = await w.next();
    assert.equal(e?.type, 'ERROR');
    assert.equal(e?.object.kind, 'Status');
    assert.equal(e?.object.code, 410);
    assert.equal(e?.object.reason, 'Expired');
    assert.equal(await w.next(), undefined);
    const list = await call(
      'GET',
      `/api/v1/namespaces/default/configmaps?resourceVersion=${old}&resourceVersionMatch=Exact`,
    );
    assert.equal(list.status, 410);
  });

  test("watch: a resume far behind is replayed at the client's pace, the live events after it, not dropped as slow", async () => {
    // 40 MB of events after the resume point: more than a watcher may fall behind (32 MiB) before it is
    // dropped. Written at once, the whole replay sat in the socket's buffer and the watch was cut before the
    // client got any of it, at every resume.
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'replay' } });
    const start = await call('POST', '/api/v1/namespaces/replay/configmaps', { metadata: { name: 'start' } });
    const big = 'x'.repeat(100_000);
    const names = Array.from({ length: 400 }, (_, i) => `cm-${String(i).padStart(3, '0')}`);
    for (const name of names) {
      const r = await call('POST', '/api/v1/namespaces/replay/configmaps', {
        metadata: { name },
        data: { big },
      });
      assert.equal(r.status, 201);
    }
    const w = await openWatch(
      server.sim,
      `/api/v1/namespaces/replay/configmaps?watch=1&resourceVersion=${start.body.metadata.resourceVersion}`,
    );
    // Made while the client reads nothing yet and the replay waits on it: it comes after the replay.
    await call('POST', '/api/v1/namespaces/replay/configmaps', { metadata: { name: 'live' } });
    const seen = await eventsUntil(w, 'live');
    w.close();
    assert.deepEqual(
      seen.map((e) => e.name),
      [...names, 'live'],
    );

    // A watch from now on (no resourceVersion) starts with every object as ADDED: 40 MB again, the same way.
    const fresh = await openWatch(server.sim, '/api/v1/namespaces/replay/configmaps?watch=1');
    await call('POST', '/api/v1/namespaces/replay/configmaps', { metadata: { name: 'live-2' } });
    const initial = await eventsUntil(fresh, 'live-2');
    fresh.close();
    assert.deepEqual(
      initial.map((e) => `${e.type} ${e.name}`),
      // In the list's order (by name), then the one made meanwhile.
      [...names, 'live', 'start', 'live-2'].map((n) => `ADDED ${n}`),
    );
  });
});

/** A watch's events (bookmarks left out) up to and with the one of the object named `last`. */
async function eventsUntil(
  w: Awaited<ReturnType<typeof openWatch>>,
  last: string,
): Promise<{ type: string; name: string }[]> {
  const seen: { type: string; name: string }[] = [];
  for (;;) {
    const ev = await w.next(20_000);
    assert.ok(ev !== undefined, `the watch ended after ${seen.length} events`);
    if (ev.type === 'BOOKMARK') continue;
    seen.push({ type: ev.type, name: ev.object.metadata.name });
    if (ev.object.metadata.name === last) return seen;
  }
}
