// Acceptance: @kubernetes/client-node 2.0.1 against kube-sim — Watch: resume, selectors, bookmarks, 410 Gone.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  PatchStrategy,
  setHeaderOptions,
  type CoreV1Api,
  type KubeConfig,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import type { KubeSim } from '../../src/index.ts';
import { waitFor } from '@podset/testkit';
import type { StatusBody, WatchEvent } from './support.ts';
import {
  apiError,
  type Cleanup,
  cm,
  connect,
  disconnect,
  endOf,
  NS,
  recordWatch,
  statusOf,
} from './support.ts';

describe('@kubernetes/client-node against kube-sim', () => {
  let sim: KubeSim;
  let kc: KubeConfig;
  let core: CoreV1Api;
  const cleanups: Cleanup[] = [];

  before(async () => {
    ({ sim, kc, core } = await connect());
  });
  after(async () => {
    await disconnect(sim, cleanups);
  });

  test('Watch: events strictly after a resourceVersion, selector entry/exit as ADDED/DELETED, bookmarks', async () => {
    const rv0 = (await core.listNamespacedConfigMap({ namespace: NS })).metadata?.resourceVersion;
    const path = `/api/v1/namespaces/${NS}/configmaps`;
    const all = await recordWatch(kc, path, { resourceVersion: rv0, allowWatchBookmarks: true });
    const sel = await recordWatch(kc, path, { resourceVersion: rv0, labelSelector: 'watched=yes' });
    cleanups.push(all.abort, sel.abort);

    await core.createNamespacedConfigMap({ namespace: NS, body: cm('w-a', { n: '1' }) });
    await core.patchNamespacedConfigMap(
      { name: 'w-a', namespace: NS, body: { metadata: { labels: { watched: 'yes' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await core.patchNamespacedConfigMap(
      { name: 'w-a', namespace: NS, body: { data: { n: '2' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await core.patchNamespacedConfigMap(
      { name: 'w-a', namespace: NS, body: { metadata: { labels: { watched: 'no' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await core.deleteNamespacedConfigMap({ name: 'w-a', namespace: NS });

    const changes = (w: { events: WatchEvent[] }) => w.events.filter((e) => e.type !== 'BOOKMARK');
    await waitFor(
      `5 events on the plain watch (got ${JSON.stringify(all.events)})`,
      () => changes(all).length >= 5,
    );
    assert.deepEqual(
      changes(all).map((e) => e.type),
      ['ADDED', 'MODIFIED', 'MODIFIED', 'MODIFIED', 'DELETED'],
    );
    const rvs = changes(all).map((e) => Number(e.object.metadata?.resourceVersion));
    assert.ok(
      rvs.every((rv, i) => rv > Number(rv0) && (i === 0 || rv > (rvs[i - 1] ?? 0))),
      `increasing ${rvs}`,
    );
    await waitFor(
      `3 events on the selector watch (got ${JSON.stringify(sel.events)})`,
      () => sel.events.length >= 3,
    );
    assert.deepEqual(
      sel.events.map((e) => `${e.type}:${(e.object as V1ConfigMap).data?.n}`),
      ['ADDED:1', 'MODIFIED:2', 'DELETED:2'],
      'enters the selector as ADDED, leaves as DELETED',
    );
    await waitFor('a BOOKMARK (interval 200 ms)', () => all.events.some((e) => e.type === 'BOOKMARK'), 5_000);
    const bm = all.events.find((e) => e.type === 'BOOKMARK');
    assert.equal(bm?.object.kind, 'ConfigMap');
    assert.match(bm?.object.metadata?.resourceVersion ?? '', /^\d+$/);
    assert.equal(sel.events.filter((e) => e.type === 'BOOKMARK').length, 0, 'no bookmarks unless asked');
    all.abort();
    sel.abort();
  });

  test('Watch: 410 Gone when the resourceVersion is older than the retained window', async () => {
    const path = `/api/v1/namespaces/${NS}/configmaps`;
    const old = (await core.listNamespacedConfigMap({ namespace: NS })).metadata?.resourceVersion;
    await core.createNamespacedConfigMap({ namespace: NS, body: cm('expiry-1') });
    await core.createNamespacedConfigMap({ namespace: NS, body: cm('expiry-2') });
    // Within the window: the events after `old` are replayed.
    const ok = await recordWatch(kc, path, { resourceVersion: old });
    await waitFor('the replay', () => ok.events.length >= 2);
    assert.deepEqual(
      ok.events.map((e) => `${e.type}:${e.object.metadata?.name}`),
      ['ADDED:expiry-1', 'ADDED:expiry-2'],
    );
    ok.abort();

    // The server forgets its history (etcd compaction): the same resourceVersion is now too old.
    sim.faults.compactHistory();
    const gone = await recordWatch(kc, path, { resourceVersion: old });
    const err = await endOf(gone);
    assert.equal(err, null, 'the stream ends cleanly after the ERROR event');
    assert.equal(gone.events.length, 1);
    const [ev] = gone.events;
    assert.equal(ev?.type, 'ERROR');
    const status = ev?.object as unknown as StatusBody;
    assert.equal(status.kind, 'Status');
    assert.equal(status.code, 410);
    assert.equal(status.reason, 'Expired');
    assert.match(status.message, /too old resource version/);

    // A list at that resourceVersion (Exact) is 410 too.
    const list = await apiError(
      core.listNamespacedConfigMap({ namespace: NS, resourceVersion: old, resourceVersionMatch: 'Exact' }),
    );
    assert.equal(list.code, 410);
    assert.equal(statusOf(list).reason, 'Expired');

    // A shrunk retained window: only the last 3 events are kept, so a resourceVersion 5 changes back is too old.
    sim.faults.setHistoryLimit(3);
    try {
      const from = (await core.listNamespacedConfigMap({ namespace: NS })).metadata?.resourceVersion;
      for (let i = 0; i < 5; i++) {
        await core.patchNamespacedConfigMap(
          { name: 'expiry-1', namespace: NS, body: { data: { i: String(i) } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
      }
      const shrunk = await recordWatch(kc, path, { resourceVersion: from });
      await endOf(shrunk);
      assert.deepEqual(
        shrunk.events.map((e) => [e.type, (e.object as unknown as StatusBody).code]),
        [['ERROR', 410]],
      );
    } finally {
      sim.faults.setHistoryLimit(20_000);
    }

    // The fault that answers the next watch with 410, whatever its resourceVersion.
    const now = (await core.listNamespacedConfigMap({ namespace: NS })).metadata?.resourceVersion;
    sim.faults.expireNextWatch();
    const forced = await recordWatch(kc, path, { resourceVersion: now });
    await endOf(forced);
    assert.deepEqual(
      forced.events.map((e) => [e.type, (e.object as unknown as StatusBody).code]),
      [['ERROR', 410]],
    );
    // Only the next one: a watch after it works.
    const after = await recordWatch(kc, path, { resourceVersion: now });
    await core.deleteNamespacedConfigMap({ name: 'expiry-1', namespace: NS });
    await core.deleteNamespacedConfigMap({ name: 'expiry-2', namespace: NS });
    await waitFor('events after a forced 410', () => after.events.length >= 2);
    assert.deepEqual(
      after.events.map((e) => e.type),
      ['DELETED', 'DELETED'],
    );
    after.abort();
  });
});
