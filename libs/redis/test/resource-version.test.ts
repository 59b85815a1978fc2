import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useRedis } from '@podset/testkit';
import { compareRv, rvMax, rvNewer, RV_NEWER_LUA } from '../src/rules/resource-version.ts';

const CASES: [string, string | undefined][] = [
  ['10', '9'],
  ['9', '10'],
  ['9', '9'],
  ['900719925474099312', '900719925474099311'],
  ['007', '7'],
  ['7', '007'],
  ['0', '00'],
  ['abc', '10'],
  ['10', 'abc'],
  ['1', undefined],
];

test('compareRv orders decimal resourceVersions numerically, without precision loss', () => {
  assert.equal(compareRv('10', '9'), 1);
  assert.equal(compareRv('9', '10'), -1);
  assert.equal(compareRv('007', '7'), 0);
  assert.equal(compareRv('900719925474099312', '900719925474099311'), 1);
  assert.equal(compareRv('abc', '10'), undefined);
});

test('rvNewer: numerically newer, or the later one when either is opaque', () => {
  assert.equal(rvNewer('10', '9'), true);
  assert.equal(rvNewer('9', '10'), false);
  assert.equal(rvNewer('9', '9'), false);
  assert.equal(rvNewer('007', '7'), false);
  assert.equal(rvNewer('abc', '10'), true, 'opaque: the newer one wins');
  assert.equal(rvNewer('1', undefined), true);
});

test('rvMax keeps the newer decimal resourceVersion, ignoring non-decimal ones', () => {
  assert.equal(rvMax('9', '10'), '10');
  assert.equal(rvMax('10', '9'), '10');
  assert.equal(rvMax('123456789012345678901', '99'), '123456789012345678901');
  assert.equal(rvMax(undefined, '5'), '5');
  assert.equal(rvMax('abc', '5'), '5');
  assert.equal(rvMax('5', undefined), '5');
  assert.equal(rvMax(undefined, undefined), undefined);
});

const server = useRedis();
const redis = server.client;

test('the Lua rvNewer the scripts run in Redis agrees with the TypeScript one', async () => {
  const script = `${RV_NEWER_LUA.source}\nif rvNewer(ARGV[1], ARGV[2] ~= '' and ARGV[2] or nil) then return 1 end\nreturn 0`;
  for (const [candidate, current] of CASES) {
    const lua = await redis.eval(script, 0, candidate, current ?? '');
    assert.equal(lua === 1, rvNewer(candidate, current), `rvNewer(${candidate}, ${String(current)})`);
  }
});
