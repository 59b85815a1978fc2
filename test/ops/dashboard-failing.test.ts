// A PodSet that can never work (a template label the API rejects) runs out of attempts and is parked;
// from then on its requests complete at once (they only wait out its backoff), so its last job says
// "completed". The dashboard must still call it failing — from the worker's ReplicaFailure condition —
// in /api/overview, its filter, its badge and its own page. Real watcher, worker and dashboard processes,
// kube-sim, Redis, kubectl and Chromium.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { applyCrd, podSetManifest, startEnv } from '../e2e/support/harness.ts';
import { dashboardUrl, newToken, startDashboardProc, waitForLog } from './support.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

interface OverviewJson {
  podSets: {
    key: string;
    lastReconcile?: { result: string; at: number };
    conditions: { type: string; status: string; reason?: string }[];
  }[];
}

test(
  'a parked, permanently failing PodSet shows as failing (not progressing) in the API, the filter and the pages',
  { timeout: 180_000 },
  async (t) => {
    const env = await startEnv({ name: 'dashboard-failing' });
    const open: { browser?: Browser } = {};
    t.after(async () => {
      await open.browser?.close().catch(() => undefined);
      await env.close();
    });
    await applyCrd(env);
    env.startWatcher('watcher-0');
    // Two attempts, then parked for an hour: within this test only the parked key's own waits run.
    const worker = env.startWorker('worker-0', { MAX_ATTEMPTS: '2', PARKED_RETRY_SECONDS: '3600' });
    const token = newToken();
    const url = await dashboardUrl(startDashboardProc(env, 'dashboard', { DASHBOARD_TOKEN: token }));
    const api = async (query = ''): Promise<OverviewJson> => {
      const res = await fetch(`${url}/api/overview${query}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(res.status, 200);
      return (await res.json()) as OverviewJson;
    };

    const bad = podSetManifest('bad', 2, { labels: { 'bad key!': 'x' } });
    await env.kubectl(['apply', '-f', env.writeManifest('bad.yaml', [bad])]);
    // Logged once the key is parked (after its ReplicaFailure and its ReconcileFailed Event).
    await waitForLog(worker, 'reconcile failed for good', 90_000);
    // Any request for it now ends as a completed job that only waits out its backoff: a label change
    // makes one, whatever else the queue does meanwhile.
    const parkedAt = Date.now();
    await env.kubectl(['label', 'ps', 'bad', 'touched=yes']);
    let row: OverviewJson['podSets'][number] | undefined;
    await env.waitFor('a completed reconcile of the parked PodSet', async () => {
      row = (await api()).podSets.find((r) => r.key === 'default/bad');
      const last = row?.lastReconcile;
      return last?.result === 'completed' && last.at >= parkedAt
        ? []
        : [`last reconcile ${JSON.stringify(last)}`];
    });
    assert.ok(
      row?.conditions.some((c) => c.type === 'ReplicaFailure' && c.status === 'True'),
      `the worker's ReplicaFailure is kept while it is parked: ${JSON.stringify(row?.conditions)}`,
    );

    assert.deepEqual(
      (await api('?status=failing')).podSets.map((r) => r.key),
      ['default/bad'],
    );
    assert.deepEqual((await api('?status=progressing')).podSets, [], 'failing, not progressing');

    if (!existsSync(CHROMIUM)) {
      t.diagnostic(`${CHROMIUM} is not installed: the pages were not looked at`);
      return;
    }
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    open.browser = browser;
    const context = await browser.newContext({
      viewport: { width: 1400, height: 900 },
      extraHTTPHeaders: { authorization: `Bearer ${token}` },
    });
    const page = await context.newPage();
    await page.goto(`${url}/`);
    const badge = page.locator('tr[data-key="default/bad"] [data-state]');
    assert.equal(await badge.getAttribute('data-state'), 'failing');
    assert.equal((await badge.innerText()).trim(), 'failing');
    assert.match(
      (await badge.getAttribute('title')) ?? '',
      /^FailedCreate: 1 of 2 pod creates rejected: 422 Invalid/,
    );
    await page.goto(`${url}/podsets/default/bad`);
    assert.equal(await page.locator('#summary [data-state]').getAttribute('data-state'), 'failing');
    assert.equal(await page.locator('#pods tr[data-pod]').count(), 0, 'no pod was ever created');
    env.assertAllRunning();
  },
);
