// The dashboard's server over real HTTP, against a real Redis and a stand-in for the API: the login cookie
// and its redirect, and writes that must come from our own origin.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { COOKIE_NAME, nowSeconds, sessionValue } from '../src/auth.ts';
import { bearer, TOKEN, useDashboardServer } from './support.ts';

const server = useDashboardServer();
const { dashboard, jobState } = server;
let failedJobId: string;
before(async () => {
  failedJobId = await server.failedJobId;
});

test('writes with Basic auth need the same origin too (a browser sends cached Basic credentials cross-site)', async () => {
  const d = await dashboard(false, { basic: { user: 'ops', password: 'a long enough password' } });
  const authorization = `Basic ${Buffer.from('ops:a long enough password').toString('base64')}`;
  const retryUrl = `${d.url}/queues/api/queues/podset-reconcile/${encodeURIComponent(failedJobId)}/retry`;
  const crossSite = await fetch(retryUrl, {
    method: 'PUT',
    headers: { authorization, origin: 'https://evil.example' },
  });
  assert.equal(crossSite.status, 403);
  assert.match(await crossSite.text(), /cross-site/);
  const fetchSite = await fetch(retryUrl, {
    method: 'PUT',
    headers: { authorization, 'sec-fetch-site': 'cross-site' },
  });
  assert.equal(fetchSite.status, 403);
  // A sandboxed frame sends the opaque origin "null": refused as cross-site, not an error.
  const opaque = await fetch(retryUrl, { method: 'PUT', headers: { authorization, origin: 'null' } });
  assert.equal(opaque.status, 403);
  assert.match(await opaque.text(), /cross-site/);
  assert.equal(await jobState(), 'failed');
  // A bearer token is never attached by a browser on its own: no Origin needed.
  const t = await dashboard(false);
  const noOrigin = await fetch(`${t.url}/queues/api/queues/podset-reconcile/pause`, {
    method: 'PUT',
    headers: { ...bearer, origin: 'https://evil.example' },
  });
  assert.ok(noOrigin.ok, `a bearer request is not a cross-site one: ${noOrigin.status}`);
  await fetch(`${t.url}/queues/api/queues/podset-reconcile/resume`, { method: 'PUT', headers: bearer });
});

test('the login redirect stays on our origin; the cookie is Secure when asked and expires server-side', async () => {
  const d = await dashboard(true, { token: TOKEN }, { secureCookie: true, sessionMaxAgeSeconds: 600 });
  const loginWith = (next: string) =>
    fetch(`${d.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: TOKEN, next }),
    });
  // The form body is decoded once: "%09" arrives as a tab, which a browser drops from a Location.
  for (const next of ['/\t/evil.example', '/\\evil.example', '//evil.example', '/\n/evil.example']) {
    const res = await loginWith(next);
    assert.equal(res.status, 303, JSON.stringify(next));
    assert.equal(res.headers.get('location'), '/', JSON.stringify(next));
  }
  const ok = await loginWith('/podsets/default/web?x=1');
  assert.equal(ok.headers.get('location'), '/podsets/default/web?x=1');
  const setCookie = ok.headers.get('set-cookie') ?? '';
  assert.match(setCookie, /; Secure/);
  assert.match(setCookie, /Max-Age=600/);
  const cookie = setCookie.split(';')[0]!;
  assert.equal((await fetch(`${d.url}/`, { headers: { cookie } })).status, 200);

  // A cookie the browser kept past its Max-Age (or a copied one) is refused by the server.
  const issued = nowSeconds() - 601;
  const expired = `${COOKIE_NAME}=${sessionValue(`token:${TOKEN}`, issued)}`;
  assert.equal((await fetch(`${d.url}/`, { headers: { cookie: expired } })).status, 401);
  // Its issue time cannot be moved forward: the HMAC covers it.
  const moved = expired.replace(`=${issued}.`, `=${nowSeconds()}.`);
  assert.notEqual(moved, expired);
  assert.equal((await fetch(`${d.url}/`, { headers: { cookie: moved } })).status, 401);
});

// Last: it retries the failed job the other tests read.
test('login cookie: wrong token 401, right token sets it; writes need the same origin; logout ends it', async () => {
  const d = await dashboard(false);
  const form = (token: string) =>
    fetch(`${d.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, next: '/queues' }),
    });
  const wrong = await form('not-the-token');
  assert.equal(wrong.status, 401);
  assert.equal(wrong.headers.get('set-cookie'), null);
  const right = await form(TOKEN);
  assert.equal(right.status, 303);
  assert.equal(right.headers.get('location'), '/queues');
  const setCookie = right.headers.get('set-cookie') ?? '';
  assert.match(setCookie, /HttpOnly/);
  assert.match(setCookie, /SameSite=Strict/);
  assert.ok(!setCookie.includes(TOKEN), 'the cookie does not carry the token');
  const cookie = setCookie.split(';')[0]!;
  assert.equal((await fetch(`${d.url}/`, { headers: { cookie } })).status, 200);

  const retryUrl = `${d.url}/queues/api/queues/podset-reconcile/${encodeURIComponent(failedJobId)}/retry`;
  const crossSite = await fetch(retryUrl, {
    method: 'PUT',
    headers: { cookie, origin: 'https://evil.example' },
  });
  assert.equal(crossSite.status, 403);
  assert.equal(await jobState(), 'failed');
  // Writes allowed (DASHBOARD_READ_ONLY=false), from our own origin: the retry goes through.
  const own = await fetch(retryUrl, { method: 'PUT', headers: { cookie, origin: d.url } });
  assert.ok(own.status >= 200 && own.status < 300, `retry: ${own.status} ${await own.text()}`);
  assert.ok(['waiting', 'prioritized'].includes(await jobState()), 'the job is queued again');

  const logout = await fetch(`${d.url}/logout`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: d.url },
  });
  assert.equal(logout.status, 303);
  assert.match(logout.headers.get('set-cookie') ?? '', /Max-Age=0/);
});
