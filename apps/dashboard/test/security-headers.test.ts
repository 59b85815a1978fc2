// The dashboard's server over real HTTP, against a real Redis and a stand-in for the API: the security
// headers on every response.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BOARD_CSP, PAGE_CSP } from '../src/security-headers.ts';
import { bearer, html, useDashboardServer } from './support.ts';

const server = useDashboardServer();
const { dashboard } = server;

test('every response, the login page and errors included: CSP, no framing, no cross-site referrer', async () => {
  const d = await dashboard(true);
  const checks: [string, Record<string, string>, number, string][] = [
    ['/', { accept: 'text/html' }, 401, PAGE_CSP],
    ['/', html, 200, PAGE_CSP],
    ['/podsets/default/web', html, 200, PAGE_CSP],
    ['/nope', html, 404, PAGE_CSP],
    ['/api/overview', bearer, 200, PAGE_CSP],
    ['/metrics', bearer, 200, PAGE_CSP],
    ['/queues', html, 200, BOARD_CSP],
    ['/queues', {}, 401, BOARD_CSP],
    ['/queues/api/queues', bearer, 200, BOARD_CSP],
  ];
  for (const [path, headers, status, csp] of checks) {
    const res = await fetch(d.url + path, { headers, redirect: 'manual' });
    await res.arrayBuffer();
    assert.equal(res.status, status, path);
    assert.equal(res.headers.get('content-security-policy'), csp, `${path}: CSP`);
    assert.equal(res.headers.get('x-frame-options'), 'DENY', `${path}: X-Frame-Options`);
    assert.equal(res.headers.get('referrer-policy'), 'same-origin', `${path}: Referrer-Policy`);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `${path}: nosniff`);
  }
  const failedLogin = await fetch(`${d.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: 'wrong' }),
  });
  assert.equal(failedLogin.status, 401);
  assert.match(failedLogin.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  assert.match(PAGE_CSP, /default-src 'none'/, 'our pages run no script');
  // bull-board's page keeps its own scripts and drops the web fonts from another site.
  const board = await (await fetch(`${d.url}/queues`, { headers: html })).text();
  assert.match(board, /<script defer src="static\/js\//);
  assert.doesNotMatch(board, /fonts\.googleapis\.com/);
});
