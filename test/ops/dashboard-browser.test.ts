// The dashboard in a real browser: Debian's Chromium driven by playwright-core against the dashboard
// process, with kube-sim, Redis, the watcher and a worker as the e2e harness starts them.
// Set UPDATE_DOCS_SCREENSHOT=1 to write docs/dashboard.png (the screenshot in docs/operations.md).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ReconcileQueue } from '@podset/queue';
import { chromium, type Browser } from 'playwright-core';
import { applyCrd, podSetManifest, REPO, startEnv } from '../e2e/support/harness.ts';
import { dashboardUrl, newToken, startDashboardProc, statusOf } from './support.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

test(
  'dashboard in Chromium: login, PodSets, queue, refusal without credentials, screenshot',
  {
    skip: existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed`,
    timeout: 240_000,
  },
  async (t) => {
    const env = await startEnv({ name: 'dashboard-browser' });
    // Closed after the test whatever happens (set below once started).
    const open: { browser?: Browser; queue?: ReconcileQueue } = {};
    t.after(async () => {
      await open.browser?.close().catch(() => undefined);
      await open.queue?.close().catch(() => undefined);
      await env.close();
    });
    await applyCrd(env);
    const token = newToken();
    env.startWatcher('watcher-0');
    env.startWorker('worker-0');
    const dash = startDashboardProc(env, 'dashboard', {
      DASHBOARD_TOKEN: token,
      DASHBOARD_USER: 'ops',
      DASHBOARD_PASSWORD: 'correct horse battery staple',
    });
    const url = await dashboardUrl(dash);

    await env.kubectl([
      'apply',
      '-f',
      env.writeManifest('podsets.yaml', [podSetManifest('web', 3), podSetManifest('api', 2)]),
    ]);
    // The watcher requests these reconciles; asking as well makes this test about the dashboard only
    // (requests for a pending key collapse into one).
    const queue = new ReconcileQueue({ connection: env.redis.url });
    open.queue = queue;
    for (const key of ['default/web', 'default/api'])
      await queue.request(key, { source: 'live', reason: 'test' });
    await env.waitConverged(['web', 'api'], { timeoutMs: 90_000 });

    // Without credentials every route answers 401: pages, API, probes, metrics and bull-board's assets.
    const board = await fetch(`${url}/queues`, { headers: { authorization: `Bearer ${token}` } });
    const boardHtml = await board.text();
    const found = /(?:src|href)="(?:\/queues\/)?(static\/[^"]+\.js)"/.exec(boardHtml)?.[1];
    const asset = found === undefined ? undefined : `/queues/${found}`;
    assert.ok(asset !== undefined, `bull-board page has a static asset: ${boardHtml.slice(0, 500)}`);
    for (const p of [
      '/',
      '/api/overview',
      '/queues',
      asset,
      '/queues/api/queues',
      '/metrics',
      '/healthz',
      '/readyz',
      '/nope',
    ]) {
      assert.equal(await statusOf(url + p), 401, `GET ${p} without credentials`);
      assert.equal(
        await statusOf(url + p, { authorization: 'Bearer wrong-token-wrong-token' }),
        401,
        `GET ${p} with a wrong token`,
      );
    }
    assert.equal(
      await statusOf(url + asset, { authorization: `Bearer ${token}` }),
      200,
      'asset with the token',
    );
    const basic = `Basic ${Buffer.from('ops:correct horse battery staple').toString('base64')}`;
    assert.equal(await statusOf(`${url}/`, { authorization: basic }), 200, 'basic auth');
    assert.equal(
      await statusOf(`${url}/`, { authorization: `Basic ${Buffer.from('ops:wrong').toString('base64')}` }),
      401,
      'basic auth with a wrong password',
    );
    // Read-only (the default): bull-board's write routes are refused even when authenticated.
    const retry = await fetch(`${url}/queues/api/queues/podset-reconcile/retry/failed`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(retry.status, 403, 'queue actions in read-only mode');

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    open.browser = browser;
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();

    // Unauthenticated: 401 and the login form; a wrong token stays out.
    const first = await page.goto(`${url}/`);
    assert.equal(first?.status(), 401);
    await page.fill('#token', 'not-the-token-not-the-token');
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Wrong credentials');
    assert.equal(await page.locator('#podsets').count(), 0, 'no overview after a failed login');

    // Log in with the token: the overview lists the PodSets with their numbers.
    await page.fill('#token', token);
    await Promise.all([page.waitForURL(`${url}/`), page.click('button[type=submit]')]);
    const webRow = page.locator('tr[data-key="default/web"]');
    await webRow.waitFor();
    assert.match(await webRow.innerText(), /web/);
    assert.equal((await webRow.locator('td[data-col=desired]').innerText()).trim(), '3');
    assert.equal((await webRow.locator('td[data-col=current]').innerText()).trim(), '3');
    assert.equal((await webRow.locator('td[data-col=ready]').innerText()).trim(), '3');
    const apiRow = page.locator('tr[data-key="default/api"]');
    assert.equal((await apiRow.locator('td[data-col=desired]').innerText()).trim(), '2');
    assert.equal((await apiRow.locator('td[data-col=ready]').innerText()).trim(), '2');
    // The last reconcile comes from BullMQ's completed jobs.
    assert.match(await webRow.innerText(), /completed/);
    assert.match(await page.locator('body').innerText(), /podset-reconcile/);

    // Take the screenshot once the event log has reached the page.
    await page.reload();
    await page.locator('tr[data-key="default/web"] .events li').first().waitFor({ timeout: 30_000 });
    const shot = path.join(env.dir, 'dashboard.png');
    await page.screenshot({ path: shot, fullPage: true });
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') {
      await page.screenshot({ path: path.join(REPO, 'docs', 'dashboard.png'), fullPage: false });
    }

    // A rollout to a template whose pods never get ready stops within its bounds (2 replicas: maxSurge 1,
    // maxUnavailable 0); the overview shows it rolling, with its progress.
    await env.kubectl([
      'patch',
      'ps',
      'api',
      '--type=merge',
      '-p',
      JSON.stringify({
        spec: { template: { metadata: { annotations: { 'kube-sim.podset.io/fate': 'never-ready' } } } },
      }),
    ]);
    // Where it stops: one new pod (the surge), not ready; the two old ones still serving.
    const stopped = '1/2 updated · 2 available';
    const rolling = page.locator('tr[data-key="default/api"] [data-role=rollout-text]');
    const shown = async () => ((await rolling.count()) === 0 ? '' : (await rolling.innerText()).trim());
    for (let i = 0; i < 60 && (await shown()) !== stopped; i++) {
      await new Promise((r) => setTimeout(r, 500));
      await page.reload();
    }
    assert.equal(await shown(), stopped);
    assert.equal(await page.locator('tr[data-key="default/api"] [data-role=rollout]').count(), 1);
    assert.equal((await apiRow.locator('td[data-col=updated]').innerText()).trim(), '1');
    assert.equal((await apiRow.locator('td[data-col=available]').innerText()).trim(), '2');

    // The PodSet's job link opens bull-board on that job.
    const jobHref = await webRow.locator('a').first().getAttribute('href');
    assert.ok(jobHref?.startsWith('/queues/queue/podset-reconcile/'), `job link: ${jobHref}`);
    await page.goto(url + jobHref);
    await page.waitForSelector('text=default/web', { timeout: 30_000 });

    // bull-board (same cookie session) shows the queue.
    await page.goto(`${url}/queues`);
    await page.waitForSelector('text=podset-reconcile', { timeout: 30_000 });
    await page.goto(`${url}/queues/queue/podset-reconcile?status=completed`);
    await page.waitForSelector('text=default/web', { timeout: 30_000 });
    await page.screenshot({ path: path.join(env.dir, 'queue.png') });

    // Logging out ends the cookie session.
    await page.goto(`${url}/`);
    await Promise.all([page.waitForURL(`${url}/`), page.click('text=Log out')]);
    const after = await page.goto(`${url}/`);
    assert.equal(after?.status(), 401);
    env.assertAllRunning();
  },
);
