import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactUrl } from './redact.ts';
import { list, url } from './vars.ts';

test('userinfo is replaced in well-formed and malformed URLs alike', () => {
  const cases: [string, string][] = [
    ['redis://:hunter2@redis:6379/0', 'redis://***@redis:6379/0'],
    ['rediss://app:hunter2@redis.example:6380', 'rediss://***@redis.example:6380'],
    ['redis://:p@ss@word@host:6379', 'redis://***@host:6379'],
    ['redis:/:hunter2@host', 'redis:/***@host'],
    [':hunter2@host:6379 oops', '***@host:6379 oops'],
    ['redis://host:6379', 'redis://host:6379'],
    ['localhost:6379 please', 'localhost:6379 please'],
  ];
  for (const [raw, shown] of cases) assert.equal(redactUrl(raw), shown, raw);
});

test("url()'s error for a URL that does not parse never echoes its password", () => {
  const spec = url({ description: 'd', protocols: ['redis:'] });
  for (const raw of ['redis://:hunter2@host:port', 'redis//:hunter2@host:6379', 'http://u:hunter2@h']) {
    assert.throws(
      () => spec.parse(raw),
      (err: Error) => !err.message.includes('hunter2') && /must/.test(err.message),
      raw,
    );
  }
});

test("list()'s error for an item that is not host:port never echoes a password in it", () => {
  // REDIS_SENTINELS and REDIS_CLUSTER_NODES take host:port; a URL with a password is a likely mistake.
  const spec = list({ description: 'd', item: /^[a-z0-9.-]+:\d+$/ });
  for (const raw of ['s1:26379,redis://:hunter2@s2:26379', 'user:hunter2@node:7000']) {
    assert.throws(
      () => spec.parse(raw),
      (err: Error) => !err.message.includes('hunter2') && /must match/.test(err.message),
      raw,
    );
  }
});
