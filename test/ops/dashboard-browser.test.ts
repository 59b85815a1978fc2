// The dashboard in a real browser: Debian's Chromium driven by playwright-core against the dashboard
// process, with kube-sim, Redis, the watcher and a worker as the e2e harness starts them.
// SCREENSHOTS=1 also writes docs/dashboard.png, docs/dashboard-podset.png and docs/dashboard-queue.png
// (the screenshots in docs/operations.md); otherwise they go to the run's temporary directory only.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { EventLog } from '@podset/event-log';
import { eventLogKeyOf } from '@podset/redis';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME, ReconcileQueue } from '@podset/queue';
import { urlConnector } from '@podset/redis';
import { chromium, type Browser, type Page } from 'playwright-core';
import { activePodsOf } from '../e2e/support/check.ts';
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

const DOCS_SCREENSHOTS = process.env.SCREENSHOTS === '1';

/** sRGB channels (0-255) and alpha of a computed CSS colour, rgb()/rgba() as Chromium reports them. */
function rgba(css: string): [number, number, number, number] {
  const m = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/.exec(css.trim());
  assert.ok(m, `a computed colour: ${css}`);
  return [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])];
}

/** WCAG 2 contrast ratio of two opaque colours. */
function contrast(a: string, b: string): number {
  const lum = (css: string) => {
    const [r, g, bl] = rgba(css).map((c) => {
      const s = c / 255;
      return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The element's text colour and the first opaque background behind it, as the page computes them. */
async function colours(page: Page, selector: string): Promise<{ color: string; background: string }> {
  // Runs in the page; this project's TypeScript has no DOM types, hence the narrow casts.
  interface Styled {
    parentElement: Styled | null;
  }
  return await page
    .locator(selector)
    .first()
    .evaluate((el: Styled) => {
      const style = (e: Styled) =>
        (
          globalThis as unknown as { getComputedStyle(e: Styled): { color: string; backgroundColor: string } }
        ).getComputedStyle(e);
      const color = style(el).color;
      for (let e: Styled | null = el; e !== null; e = e.parentElement) {
        const bg = style(e).backgroundColor;
        if (bg !== 'transparent' && !/rgba\(.*,\s*0\)$/.test(bg)) return { color, background: bg };
      }
      return { color, background: 'rgb(255, 255, 255)' };
    });
}

async function screenshot(page: Page, dir: string, file: string): Promise<void> {
  await page.screenshot({ path: path.join(dir, file), fullPage: true });
  if (DOCS_SCREENSHOTS) await page.screenshot({ path: path.join(REPO, 'docs', file), fullPage: false });
}

test('contrast: the WCAG ratio of known pairs', () => {
  assert.equal(contrast('rgb(0, 0, 0)', 'rgb(255, 255, 255)'), 21);
  assert.equal(contrast('rgb(29, 35, 48)', 'rgb(29, 35, 48)'), 1);
  assert.ok(Math.abs(contrast('rgb(118, 118, 118)', 'rgb(255, 255, 255)') - 4.54) < 0.01);
});

test(
  'dashboard in Chromium: login, PodSets, filter, a PodSet page and its pods, a long name, the leader, queue under its CSP, refusal without credentials, screenshots',
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
    // Every CSP violation is reported on the console ("Refused to … because it violates … Content
    // Security Policy"), and as a securitypolicyviolation event the page cannot hide.
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    page.on('pageerror', (err) => violations.push(`page error: ${err.message}`));

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

    // The leading watcher, from its Lease.
    const leader = page.locator('[data-role=leader]');
    assert.equal(await leader.getAttribute('data-state'), 'leading');
    assert.equal((await leader.locator('[data-role=leader-holder]').innerText()).trim(), 'watcher-0');
    // The header's read-only mark is readable (WCAG AA for normal text: 4.5).
    const mode = await colours(page, '[data-role=mode]');
    assert.ok(contrast(mode.color, mode.background) >= 4.5, `read-only mark: ${JSON.stringify(mode)}`);

    // Two failed pod creates: the worker records a FailedCreate Warning Event on web, then converges.
    env.sim.faults.set({ errors: [{ verb: 'create', resource: 'pods', code: 500, rate: 1, times: 2 }] });
    await env.kubectl(['scale', 'podset', 'web', '--replicas=4']);
    await env.waitConverged(['web'], { timeoutMs: 90_000 });
    // A pod with web's label, named as web's own would be, that web does not own: another object controls
    // it, so the operator never adopts it (it adopts only pods with no controller). The watcher files its
    // events under web's key all the same; web's page must leave them out.
    const stray = 'web-stray1';
    await env.kubectl(['create', 'configmap', 'stray-owner']);
    const ownerUid = (
      await env.kubectl(['get', 'configmap', 'stray-owner', '-o', 'jsonpath={.metadata.uid}'])
    ).stdout.trim();
    const strayPod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: stray,
        namespace: 'default',
        labels: { 'podset.io/name': 'web' },
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'stray-owner', uid: ownerUid, controller: true },
        ],
      },
      spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] },
    };
    await env.kubectl(['apply', '-f', env.writeManifest('stray.yaml', [strayPod])]);
    const logClient = urlConnector(env.redis.url).client();
    try {
      const log = new EventLog({
        redis: logClient,
        key: eventLogKeyOf({ QUEUE_PREFIX: DEFAULT_PREFIX, QUEUE_NAME: DEFAULT_QUEUE_NAME }),
      });
      await env.waitFor("the stray pod's watch event filed under web", async () =>
        (await log.recent(1000)).some((e) => e.key === 'default/web' && e.name === stray)
          ? []
          : ['not in the event log yet'],
      );
    } finally {
      logClient.disconnect();
    }

    // The filter (a plain GET form): by name, then by status.
    await page.goto(`${url}/`);
    await page.fill('#q', 'api');
    await Promise.all([page.waitForURL(/\?.*q=api/), page.press('#q', 'Enter')]);
    assert.equal(await page.locator('tr[data-key="default/api"]').count(), 1);
    assert.equal(await page.locator('tr[data-key="default/web"]').count(), 0, 'web is filtered out');
    assert.equal((await page.locator('[data-role=shown]').innerText()).trim(), '1 of 2 PodSets');
    await page.fill('#q', '');
    await page.selectOption('#filter-status', 'rolling-out');
    await Promise.all([page.waitForURL(/status=rolling-out/), page.click('.filter button[type=submit]')]);
    assert.equal(await page.locator('tr[data-key]').count(), 0, 'nothing is rolling out');
    await Promise.all([page.waitForURL(`${url}/`), page.click('[data-role=clear-filter]')]);

    // Take the overview's screenshot once the event log has reached the page.
    await page.locator('tr[data-key="default/web"] .events li').first().waitFor({ timeout: 30_000 });
    await screenshot(page, env.dir, 'dashboard.png');

    // web's own page: its conditions, the Warning Event, its reconciles and its watch events.
    await Promise.all([
      page.waitForURL(`${url}/podsets/default/web`),
      page.click('tr[data-key="default/web"] a.podset'),
    ]);
    assert.equal(await page.locator('#conditions tr[data-condition=Available]').count(), 1);
    assert.match(
      await page.locator('#summary [data-role=replicas]').innerText(),
      /^4 desired · 4 current · 4 ready/,
    );
    assert.match(await page.locator('#warnings').innerText(), /FailedCreate/);
    // Its own pods, with phase, readiness, node and template hash; what the template runs.
    const podRows = page.locator('#pods tr[data-pod]');
    assert.equal(await podRows.count(), 4, 'its four pods');
    const ownPods = activePodsOf(env.podSet('web')!, env.pods())
      .map((p) => p.metadata.name)
      .sort();
    assert.ok(!ownPods.includes(stray));
    assert.deepEqual(
      (
        await podRows.evaluateAll((rows) =>
          rows.map((r) => (r as unknown as { dataset: { pod: string } }).dataset.pod),
        )
      ).sort(),
      ownPods,
    );
    assert.match(await podRows.first().innerText(), /Running\s+ready\s+\d+[sm].* ago\s+\S+\s+[0-9a-f]{10}/s);
    assert.equal((await page.locator('[data-role=images]').innerText()).trim(), 'busybox:1.36');
    assert.match(
      await page.locator('[data-role=strategy]').innerText(),
      /^RollingUpdate \(maxSurge 25%, maxUnavailable 25%\)/,
    );
    const jobs = page.locator('#jobs tr[data-job]');
    assert.ok((await jobs.count()) >= 2, 'web was reconciled more than once');
    assert.match(await page.locator('#jobs').innerText(), /completed/);
    assert.ok((await page.locator('#events tbody tr').count()) >= 1, 'watch events from the event log');
    assert.match(await page.locator('#events').innerText(), /Pod web-/);
    assert.doesNotMatch(await page.locator('#events').innerText(), /web-stray1/, 'a pod it does not own');
    await env.kubectl(['delete', 'pod', stray, '--wait=false']);
    await screenshot(page, env.dir, 'dashboard-podset.png');
    // A 63-character name (the longest there is) wraps: no page gets wider than the window.
    const longName = `long-${'n'.repeat(53)}-name`;
    assert.equal(longName.length, 63);
    await env.kubectl(['apply', '-f', env.writeManifest('long.yaml', [podSetManifest(longName, 2)])]);
    await env.waitConverged([longName], { timeoutMs: 90_000 });
    const fitsWindow = async (what: string) => {
      const [scrollWidth, innerWidth] = await page.evaluate(() => {
        const doc = globalThis as unknown as {
          document: { documentElement: { scrollWidth: number } };
          innerWidth: number;
        };
        return [doc.document.documentElement.scrollWidth, doc.innerWidth];
      });
      assert.ok(scrollWidth <= innerWidth, `${what}: ${scrollWidth} px wide in a ${innerWidth} px window`);
    };
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(`${url}/`);
    // With its pods' watch events in the row (their names are longer still).
    const longRow = page.locator(`tr[data-key="default/${longName}"]`);
    await longRow.locator('.events li').first().waitFor({ timeout: 30_000 });
    assert.equal(await longRow.locator('a.podset').getAttribute('title'), `default/${longName}`);
    await fitsWindow('the overview');

    await page.goto(`${url}/podsets/default/${longName}`);
    await page.locator('#pods tr[data-pod]').first().waitFor();
    await fitsWindow("the long-named PodSet's page");

    await page.setViewportSize({ width: 1440, height: 900 });
    // Gone again (with its finished jobs), so that the queue's pages below show web's and api's.
    await env.kubectl(['delete', 'ps', longName]);

    // An unknown PodSet and a bad name answer with a page that says so.
    const unknown = await page.goto(`${url}/podsets/default/nope`);
    assert.equal(unknown?.status(), 404);
    assert.match(await page.locator('[data-role=not-found]').innerText(), /No PodSet default\/nope/);
    const bad = await page.goto(`${url}/podsets/default/Not_A_Name`);
    assert.equal(bad?.status(), 400);
    assert.match(await page.locator('[data-role=message]').innerText(), /not a valid PodSet name/);
    await page.goto(`${url}/`);

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
    const jobHref = await webRow.locator('a[href^="/queues/"]').first().getAttribute('href');
    assert.ok(jobHref?.startsWith('/queues/queue/podset-reconcile/'), `job link: ${jobHref}`);
    await page.goto(url + jobHref);
    await page.waitForSelector('text=default/web', { timeout: 30_000 });

    // bull-board (same cookie session) shows the queue.
    await page.goto(`${url}/queues`);
    await page.waitForSelector('text=podset-reconcile', { timeout: 30_000 });
    await page.goto(`${url}/queues/queue/podset-reconcile?status=completed`);
    // Its first page holds the newest jobs: api's, requeued every 0.5 s while its rollout waits, may
    // have pushed web's off it.
    await page.waitForSelector('text=/default\\/(web|api)/', { timeout: 30_000 });
    // bull-board's read-only badge is readable: light text on its dark background.
    const badge = page.locator('[class*=envBadge]');
    await badge.waitFor();
    assert.equal((await badge.innerText()).trim(), 'read-only');
    const badgeColours = await colours(page, '[class*=envBadge]');
    const ratio = contrast(badgeColours.color, badgeColours.background);
    assert.ok(ratio >= 4.5, `read-only badge contrast ${ratio.toFixed(2)}: ${JSON.stringify(badgeColours)}`);
    await screenshot(page, env.dir, 'dashboard-queue.png');
    // bull-board ran under its CSP (its scripts drew the page above) without a single violation, and
    // neither did our pages.
    assert.deepEqual(violations, [], 'no CSP violation on the console');
    // The way back to the overview.
    await Promise.all([page.waitForURL(`${url}/`), page.click('#podset-overview-link')]);
    await page.locator('#podsets').waitFor();

    // Logging out ends the cookie session.
    await page.goto(`${url}/`);
    await Promise.all([page.waitForURL(`${url}/`), page.click('text=Log out')]);
    const after = await page.goto(`${url}/`);
    assert.equal(after?.status(), 401);
    env.assertAllRunning();
  },
);
