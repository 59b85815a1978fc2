import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  authenticate,
  COOKIE_NAME,
  login,
  parseCookies,
  safeNext,
  sessionValue,
  type SessionClock,
} from './auth.ts';
import { credentialsOf } from './config.ts';

const TOKEN = 'a-long-enough-token-0123456789';
const both = { token: TOKEN, basic: { user: 'ops', password: 'pw:with:colons' } };
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

test('bearer token, basic auth and the login cookie authenticate; anything else does not', () => {
  assert.equal(authenticate({ authorization: `Bearer ${TOKEN}` }, both), 'bearer');
  assert.equal(authenticate({ authorization: `bearer   ${TOKEN}` }, both), 'bearer');
  assert.equal(authenticate({ authorization: basic('ops', 'pw:with:colons') }, both), 'basic');
  const cookie = login({ token: TOKEN }, both);
  assert.ok(cookie !== undefined);
  assert.notEqual(cookie, TOKEN, 'the cookie is not the token itself');
  assert.equal(authenticate({ cookie: `other=1; ${COOKIE_NAME}=${cookie}` }, both), 'cookie');

  assert.equal(authenticate({}, both), undefined);
  assert.equal(authenticate({ authorization: `Bearer ${TOKEN}x` }, both), undefined);
  assert.equal(authenticate({ authorization: `Bearer ${TOKEN.slice(0, -1)}` }, both), undefined);
  assert.equal(authenticate({ authorization: TOKEN }, both), undefined);
  assert.equal(authenticate({ authorization: basic('ops', 'wrong') }, both), undefined);
  assert.equal(authenticate({ authorization: basic('root', 'pw:with:colons') }, both), undefined);
  assert.equal(authenticate({ authorization: `Basic ${TOKEN}` }, both), undefined);
  assert.equal(authenticate({ cookie: `${COOKIE_NAME}=${TOKEN}` }, both), undefined, 'raw token as cookie');
  assert.equal(authenticate({ cookie: `${COOKIE_NAME}=` }, both), undefined);
  // A scheme that is not configured is refused even with the right secret.
  assert.equal(authenticate({ authorization: `Bearer ${TOKEN}` }, { basic: both.basic }), undefined);
  assert.equal(authenticate({ authorization: basic('ops', 'pw:with:colons') }, { token: TOKEN }), undefined);
});

test('the login form: token or user/password; the cookie changes when the secret changes', () => {
  assert.equal(login({ token: 'nope' }, both), undefined);
  assert.equal(login({ user: 'ops', password: 'nope' }, both), undefined);
  assert.equal(login({}, both), undefined);
  const viaBasic = login({ user: 'ops', password: 'pw:with:colons' }, both);
  assert.ok(viaBasic !== undefined);
  assert.equal(authenticate({ cookie: `${COOKIE_NAME}=${viaBasic}` }, both), 'cookie');
  const old = login({ token: TOKEN }, both)!;
  assert.equal(authenticate({ cookie: `${COOKIE_NAME}=${old}` }, { token: `${TOKEN}-rotated` }), undefined);
  assert.notEqual(sessionValue('token:a', 1), sessionValue('token:b', 1));
});

test('a cookie expires server-side after the max age; its issue time is signed', () => {
  const issued = 1_700_000_000;
  const cookie = login({ token: TOKEN }, both, issued)!;
  const at = (seconds: number): SessionClock => ({ nowSeconds: issued + seconds, maxAgeSeconds: 3600 });
  const auth = (value: string, seconds: number) =>
    authenticate({ cookie: `${COOKIE_NAME}=${value}` }, both, at(seconds));
  assert.equal(auth(cookie, 0), 'cookie');
  assert.equal(auth(cookie, 3599), 'cookie');
  assert.equal(auth(cookie, 3600), undefined, 'expired at the max age');
  assert.equal(auth(cookie, 86_400), undefined);
  // Issued well in the future (beyond a small clock skew between replicas): not ours.
  assert.equal(auth(cookie, -30), 'cookie');
  assert.equal(auth(cookie, -3600), undefined);
  // The issue time is under the HMAC: moving it forward breaks the cookie.
  const mac = cookie.slice(cookie.indexOf('.') + 1);
  assert.equal(auth(`${issued + 3000}.${mac}`, 3600), undefined);
  for (const bad of [mac, `.${mac}`, `x.${mac}`, `${issued}`, `${issued}.`]) {
    assert.equal(auth(bad, 0), undefined, bad);
  }
});

test('parseCookies and safeNext', () => {
  assert.deepEqual(
    [...parseCookies('a=1; b = 2;c=x=y')],
    [
      ['a', '1'],
      ['b', '2'],
      ['c', 'x=y'],
    ],
  );
  const origin = 'http://127.0.0.1:3000';
  assert.equal(safeNext('/queues/queue/x?status=failed', origin), '/queues/queue/x?status=failed');
  assert.equal(safeNext('/podsets/default/web#pods', origin), '/podsets/default/web#pods');
  // Encoded characters stay encoded (a path, not a host): the browser does not decode a Location.
  assert.equal(safeNext('/%2F%2Fevil.example', origin), '/%2F%2Fevil.example');
  assert.equal(safeNext('/%09/evil.example', origin), '/%09/evil.example');
  assert.equal(safeNext('/%5Cevil.example', origin), '/%5Cevil.example');
  for (const bad of [
    undefined,
    '',
    'https://evil.example/',
    '//evil.example/',
    '/\\evil',
    '/\\/evil',
    '\\/evil',
    '/\t/evil.example',
    '/\n/evil.example',
    '/\r/evil.example',
    '\t//evil.example',
    '/.//evil.example',
    'javascript:alert(1)',
    'http://127.0.0.1:3000/x',
  ]) {
    assert.equal(safeNext(bad, origin), '/', JSON.stringify(bad));
  }
});

test('credentials are required, and each problem names its variable', () => {
  const none = credentialsOf({
    DASHBOARD_TOKEN: undefined,
    DASHBOARD_USER: undefined,
    DASHBOARD_PASSWORD: undefined,
  });
  assert.equal(none.problems.length, 1);
  assert.match(none.problems[0]!.message, /DASHBOARD_TOKEN, or DASHBOARD_USER and DASHBOARD_PASSWORD/);
  const half = credentialsOf({
    DASHBOARD_TOKEN: undefined,
    DASHBOARD_USER: 'ops',
    DASHBOARD_PASSWORD: undefined,
  });
  assert.deepEqual(
    half.problems.map((p) => p.variable),
    ['DASHBOARD_PASSWORD'],
  );
  const short = credentialsOf({
    DASHBOARD_TOKEN: 'short',
    DASHBOARD_USER: undefined,
    DASHBOARD_PASSWORD: undefined,
  });
  assert.deepEqual(
    short.problems.map((p) => p.variable),
    ['DASHBOARD_TOKEN'],
  );
  const shortPassword = credentialsOf({
    DASHBOARD_TOKEN: undefined,
    DASHBOARD_USER: 'ops',
    DASHBOARD_PASSWORD: 'hunter2',
  });
  assert.deepEqual(shortPassword.problems, [
    { variable: 'DASHBOARD_PASSWORD', message: 'must be at least 12 characters long' },
  ]);
  assert.equal(shortPassword.credentials.basic, undefined);
  const password = 'twelve-chars';
  const ok = credentialsOf({ DASHBOARD_TOKEN: TOKEN, DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: password });
  assert.deepEqual(ok.problems, []);
  assert.deepEqual(ok.credentials, { token: TOKEN, basic: { user: 'ops', password } });
});
