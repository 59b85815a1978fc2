import assert from 'node:assert/strict';
import { test } from 'node:test';
import { leaderHtml, messagePage, overviewPage, type PageContext } from './html.ts';
import { podSetPage } from './podset-page.ts';
import type { PodSetDetail } from './podset.ts';

const ctx: PageContext = {
  boardPath: '/queues',
  queueName: 'podset-reconcile',
  readOnly: true,
  cookieSession: false,
};
const evil = '<script>alert(1)</script>';
const NOW = Date.parse('2026-01-01T00:10:00Z');

function detail(extra: Partial<PodSetDetail> = {}): PodSetDetail {
  return {
    generatedAt: NOW,
    namespace: 'default',
    name: 'web',
    key: 'default/web',
    podSet: {
      namespace: 'default',
      name: 'web',
      key: 'default/web',
      desired: 3,
      current: 3,
      ready: 2,
      updated: 3,
      available: 2,
      conditions: [
        {
          type: 'Available',
          status: 'False',
          reason: 'MinimumReplicasUnavailable',
          message: evil,
          lastTransitionTime: '2026-01-01T00:09:00Z',
        },
        { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' },
        { type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'quota' },
      ],
      lastError: { jobId: 'j1', message: evil, at: NOW - 1000, attempt: 2 },
      events: [],
      uid: 'u-1',
      createdAt: 'not a date',
      images: ['nginx:1.27', evil],
      strategy: 'RollingUpdate (maxSurge 25%, maxUnavailable 25%)',
      templateHash: 'abc123def0',
    },
    pods: [
      {
        name: 'web-old11',
        phase: 'Running',
        ready: true,
        createdAt: '2026-01-01T00:05:00Z',
        node: 'node-1',
        templateHash: '0000000000',
      },
      { name: `web-${evil}`, phase: 'Pending', ready: false, templateHash: 'abc123def0' },
    ],
    podCount: 3,
    notFound: false,
    jobs: [
      {
        id: 'default~web~1',
        state: 'failed',
        reasons: ['ADDED', evil],
        source: 'live',
        addedAt: NOW - 5000,
        startedAt: NOW - 4000,
        finishedAt: NOW - 3000,
        durationMs: 1000,
        attempts: 2,
        failedReason: evil,
      },
      {
        id: `x"><img src=x>`,
        state: 'completed',
        reasons: [],
        addedAt: NOW - 9000,
        attempts: 1,
        requeueAfterMs: 500,
      },
    ],
    events: [
      {
        id: '1-0',
        t: '2026-01-01T00:09:59Z',
        type: 'MODIFIED',
        kind: 'Pod',
        key: 'default/web',
        name: evil,
        rv: '42',
        phase: 'Running',
        ready: 'true',
      },
    ],
    warnings: [
      { reason: 'FailedCreate', message: evil, count: 4, lastAt: NOW - 60_000, source: 'podset-worker' },
    ],
    errors: [],
    ...extra,
  };
}

test('the PodSet page shows conditions, warnings, reconciles and watch events, all escaped', () => {
  const html = podSetPage(detail(), ctx);
  assert.ok(!html.includes('<script>alert'), 'no raw script');
  assert.ok(!html.includes('<img src=x>'), 'no attribute break-out');
  assert.match(
    html,
    /<tr data-condition="Available"><td><b>Available<\/b><\/td><td><span class="badge b-bad">False<\/span>/,
  );
  assert.match(
    html,
    /data-condition="ReplicaFailure"><td><b>ReplicaFailure<\/b><\/td><td><span class="badge b-bad">True/,
  );
  assert.match(
    html,
    /data-condition="Progressing"><td><b>Progressing<\/b><\/td><td><span class="badge b-bad">False/,
  );
  assert.match(html, /<section id="warnings">.*FailedCreate.*&lt;script&gt;.*<td class="num">4<\/td>/s);
  assert.match(html, /<section id="jobs">.*badge b-failed">failed.*1\.00 s.*ADDED, &lt;script&gt;/s);
  assert.match(html, /href="\/queues\/queue\/podset-reconcile\/x%22%3E%3Cimg%20src%3Dx%3E"/);
  assert.match(html, /requeue 500 ms/);
  assert.match(
    html,
    /<section id="events">.*MODIFIED · Pod &lt;script&gt;.* · Running · ready.*<code>42<\/code>/s,
  );
  assert.match(html, /data-role="replicas">3 desired · 3 current · 2 ready · 3 up-to-date · 2 available/);
  assert.match(html, /href="\/" data-role="back"/);
  assert.match(html, /data-role="images"><code>nginx:1\.27<\/code>, <code>&lt;script&gt;/);
  assert.match(html, /data-role="strategy">RollingUpdate \(maxSurge 25%, maxUnavailable 25%\).*abc123def0/);
  assert.match(html, /<h2>Pods \(2 of 3\)<\/h2>/);
  assert.match(
    html,
    /<tr data-pod="web-old11">.*Running.*ready.*5m 0s ago.*node-1.*0000000000<\/code> <span class="muted">\(old\)/s,
  );
  assert.match(
    html,
    /data-pod="web-&lt;script&gt;.*Pending.*not ready.*not scheduled.*abc123def0<\/code><\/td>/s,
  );
  assert.doesNotMatch(html, /not-found/);
});

test('the PodSet page of a deleted PodSet: a banner, and the history that remains', () => {
  const { podSet: _gone, ...rest } = detail();
  const html = podSetPage({ ...rest, notFound: true, errors: [`event log: ${evil}`] }, ctx);
  assert.match(html, /data-role="not-found">No PodSet default\/web in the API \(deleted\?\)/);
  assert.doesNotMatch(html, /id="conditions"/);
  assert.match(html, /id="jobs"/);
  assert.match(html, /Could not read event log: &lt;script&gt;/);
  const empty = podSetPage({ ...rest, notFound: true, jobs: [], events: [], warnings: [] }, ctx);
  assert.match(empty, /No PodSet default\/web in the API\.<\/div>/);
  assert.match(empty, /No Warning Events/);
});

test('the leader line, the filter form and the error page escape what they show', () => {
  const leading = leaderHtml(
    { lease: 'ops/podset-watcher', state: 'leading', holder: evil, renewedAt: NOW - 2000, transitions: 1 },
    NOW,
  );
  assert.ok(!leading.includes('<script>'));
  assert.match(leading, /data-state="leading">Watcher leader: <b data-role="leader-holder">&lt;script&gt;/);
  assert.match(leading, /renewed 2s ago.*1 leader change</s);
  assert.match(leaderHtml({ lease: 'a/b', state: 'none' }, NOW), /no leader.*does not exist/);
  assert.match(
    leaderHtml({ lease: 'a/b', state: 'expired', holder: 'w-0', renewedAt: NOW - 60_000 }, NOW),
    /no leader.*w-0.*expired/,
  );
  const o = overviewPage(
    { generatedAt: NOW, podSets: [], orphanKeys: [], counts: {}, recentEvents: [], errors: [] },
    ctx,
    { filter: { q: `"><script>`, namespace: 'shop', status: 'failing' }, total: 7, namespaces: ['default'] },
  );
  assert.ok(!o.includes('"><script>'));
  assert.match(o, /<input type="search" id="q" name="q" value="&quot;&gt;&lt;script&gt;"/);
  assert.match(o, /<option value="shop" selected>shop<\/option>/);
  assert.match(o, /<option value="failing" selected>failing<\/option>/);
  assert.match(o, /data-role="shown">0 of 7 PodSets/);
  assert.match(o, /No PodSet matches the filter/);
  const m = messagePage(ctx, 'Bad PodSet name', `${evil}: not a valid PodSet name.`);
  assert.ok(!m.includes('<script>alert'));
  assert.match(m, /<h1 class="title">Bad PodSet name<\/h1>/);
});
