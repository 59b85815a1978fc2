import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConfigError } from '@podset/config';
import { aclRules } from '@podset/redis';
import { redisAclFileText } from './redis-acl-file.ts';

const ENV = {
  REDIS_ACL_FILE: '/tmp/users.acl',
  QUEUE_PREFIX: '{podset}',
  QUEUE_NAME: 'podset-reconcile',
  REDIS_WATCHER_PASSWORD: 'watcher-password-0123456789',
  REDIS_WORKER_PASSWORD: 'worker-password-0123456789',
  REDIS_DASHBOARD_PASSWORD: 'dashboard-password-0123456789',
  REDIS_HEALTH_PASSWORD: 'health-password-0123456789',
  REDIS_SCRIPTS_PASSWORD: 'scripts-password-0123456789',
  REDIS_OPS_PASSWORD: 'ops-password-0123456789',
};

const lineOf = (text: string, user: string) => text.split('\n').find((l) => l.startsWith(`user ${user} `));

test("the file: default off, each user with its password and acl.ts's rules, the probes' user PING only", () => {
  const text = redisAclFileText(ENV);
  assert.match(text, /^user default off /m);
  const scope = { prefix: '{podset}', queueName: 'podset-reconcile', dashboardWrites: false };
  for (const app of ['watcher', 'worker', 'dashboard'] as const) {
    const password = ENV[`REDIS_${app.toUpperCase()}_PASSWORD` as keyof typeof ENV];
    assert.equal(
      lineOf(text, `podset-${app}`),
      ['user', `podset-${app}`, 'on', `>${password}`, ...aclRules(app, scope)].join(' '),
    );
  }
  assert.equal(
    lineOf(text, 'podset-health'),
    'user podset-health on >health-password-0123456789 resetkeys resetchannels -@all +ping',
  );
  assert.equal(
    lineOf(text, 'podset-scripts'),
    'user podset-scripts on >scripts-password-0123456789 resetkeys resetchannels -@all +ping +hello +auth ' +
      '+info +script|load +script|exists',
  );
  assert.match(
    lineOf(text, 'podset-ops') ?? '',
    /^user podset-ops on >ops-password-0123456789 resetkeys .*\+script\|kill/,
  );
});

test("DASHBOARD_READ_ONLY=false gives the dashboard's user the job writes; the queue's settings are used", () => {
  const text = redisAclFileText({ ...ENV, DASHBOARD_READ_ONLY: 'false', QUEUE_PREFIX: 'ops' });
  const scope = { prefix: 'ops', queueName: 'podset-reconcile', dashboardWrites: true };
  assert.equal(
    lineOf(text, 'podset-dashboard'),
    [
      'user',
      'podset-dashboard',
      'on',
      `>${ENV.REDIS_DASHBOARD_PASSWORD}`,
      ...aclRules('dashboard', scope),
    ].join(' '),
  );
});

test('a missing password, or one the file syntax would split, is refused naming the variable', () => {
  assert.throws(
    () => redisAclFileText({ ...ENV, REDIS_WORKER_PASSWORD: undefined }),
    (err: ConfigError) => err.problems.some((p) => p.variable === 'REDIS_WORKER_PASSWORD'),
  );
  for (const bad of ['with a space-0123456789', 'quote"0123456789', 'short']) {
    assert.throws(
      () => redisAclFileText({ ...ENV, REDIS_HEALTH_PASSWORD: bad }),
      (err: ConfigError) => err.problems.some((p) => p.variable === 'REDIS_HEALTH_PASSWORD'),
      bad,
    );
  }
});
