import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '@podset/config';
import { parseWatcherConfig, redisKeys, retiredSettings } from './config.ts';

test('defaults: all namespaces, 10 min resync, 15 s lease', () => {
  const cfg = parseWatcherConfig({});
  assert.deepEqual(cfg.WATCH_NAMESPACES, []);
  assert.equal(cfg.RESYNC_PERIOD_SECONDS, 600);
  assert.equal(cfg.LEASE_DURATION_SECONDS, 15);
  assert.equal(cfg.KUBECONFIG, undefined);
  const keys = redisKeys(cfg);
  assert.ok(keys.checkpoint.startsWith(`${cfg.QUEUE_PREFIX}:${cfg.QUEUE_NAME}:`));
  assert.equal(keys.eventLog, `${cfg.QUEUE_PREFIX}:${cfg.QUEUE_NAME}:watcher:events`);
  assert.equal(cfg.HTTP_PORT, 8080);
});

test('WATCH_NAMESPACES is a comma list', () => {
  assert.deepEqual(parseWatcherConfig({ WATCH_NAMESPACES: 'a, b,,c' }).WATCH_NAMESPACES, ['a', 'b', 'c']);
});

test('every invalid variable is named', () => {
  assert.throws(
    () =>
      parseWatcherConfig({
        WATCH_NAMESPACES: 'Bad_NS',
        LEASE_DURATION_SECONDS: 'soon',
        REDIS_URL: 'http://x',
        WATCH_STALL_GRACE_SECONDS: '0',
      }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(err.problems.map((p) => p.variable).sort(), [
        'LEASE_DURATION_SECONDS',
        'REDIS_URL',
        'WATCH_NAMESPACES',
        'WATCH_STALL_GRACE_SECONDS',
      ]);
      return true;
    },
  );
});

test('a retired variable still set is named with what replaced it', () => {
  assert.deepEqual(retiredSettings({ LEASE_NAME: 'x' }), []);
  const [message, ...rest] = retiredSettings({ WATCHDOG_SECONDS: '120' });
  assert.equal(rest.length, 0);
  assert.match(message ?? '', /^WATCHDOG_SECONDS is no longer used .*WATCH_STALL_GRACE_SECONDS.*remove it$/);
});

test('STATUS_COLLAPSE_MS: 1 s by default, 0 turns it off, bounded to 10 s, a bad value named', () => {
  assert.equal(parseWatcherConfig({}).STATUS_COLLAPSE_MS, 1000);
  assert.equal(parseWatcherConfig({ STATUS_COLLAPSE_MS: '0' }).STATUS_COLLAPSE_MS, 0);
  for (const bad of ['-1', '10001', 'soon', '2.5']) {
    assert.throws(
      () => parseWatcherConfig({ STATUS_COLLAPSE_MS: bad }),
      (err: unknown) =>
        err instanceof ConfigError && err.problems.map((p) => p.variable).join() === 'STATUS_COLLAPSE_MS',
      bad,
    );
  }
});

test('POD_WATCH_READ_PAUSE_MS: 150 ms by default, 0 (unpaced) allowed, bounded to 1 s', () => {
  assert.equal(parseWatcherConfig({}).POD_WATCH_READ_PAUSE_MS, 150);
  assert.equal(parseWatcherConfig({ POD_WATCH_READ_PAUSE_MS: '0' }).POD_WATCH_READ_PAUSE_MS, 0);
  for (const bad of ['1001', '-1', 'soon']) {
    assert.throws(
      () => parseWatcherConfig({ POD_WATCH_READ_PAUSE_MS: bad }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.map((p) => p.variable).join() === 'POD_WATCH_READ_PAUSE_MS',
    );
  }
});

test('STATUS_COLLAPSE_PARTIAL_MS: 3 s by default, 0 allowed, bounded to 10 s', () => {
  assert.equal(parseWatcherConfig({}).STATUS_COLLAPSE_PARTIAL_MS, 3000);
  assert.equal(parseWatcherConfig({ STATUS_COLLAPSE_PARTIAL_MS: '0' }).STATUS_COLLAPSE_PARTIAL_MS, 0);
  assert.throws(
    () => parseWatcherConfig({ STATUS_COLLAPSE_PARTIAL_MS: '10001' }),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.problems.map((p) => p.variable).join() === 'STATUS_COLLAPSE_PARTIAL_MS',
  );
});
