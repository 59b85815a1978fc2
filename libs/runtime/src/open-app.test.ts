import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { ConfigError, int } from '@podset/config';
import { kubeAccessEnv } from '@podset/kube';
import { queueEnv } from '@podset/queue';
import { redisEnv } from '@podset/redis';
import { logEnv } from './log.ts';
import { loadApp } from './open-app.ts';

const spec = {
  ...kubeAccessEnv,
  ...redisEnv,
  ...queueEnv,
  ...logEnv,
  THINGS: int({ description: 'things', default: 1, min: 1 }),
} as const;

const dir = mkdtempSync(path.join(os.tmpdir(), 'open-app-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(server: string): string {
  const file = path.join(dir, `kc-${Math.random().toString(36).slice(2)}`);
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "' + server + '"}}]',
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
    ].join('\n'),
  );
  return file;
}

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.problems.map((p) => p.variable);
  }
  assert.fail('expected a ConfigError');
}

test('opens config, Redis connector and kubeconfig from the environment', () => {
  const app = loadApp(spec, {
    env: {
      KUBECONFIG: kubeconfig('https://kube.example:6443'),
      REDIS_URL: 'redis://127.0.0.1:6390',
      THINGS: '3',
    },
  });
  assert.equal(app.config.THINGS, 3);
  assert.equal(app.config.LOG_LEVEL, 'info');
  assert.equal(app.kubeConfig.getCurrentCluster()?.server, 'https://kube.example:6443');
  assert.match(app.redis.target, /127\.0\.0\.1:6390/);
});

test('tracing: an OTLP protocol this build cannot speak is a usage error, when tracing is on', () => {
  const env = {
    KUBECONFIG: kubeconfig('https://kube.example:6443'),
    REDIS_URL: 'redis://127.0.0.1:6390',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
  };
  assert.deepEqual(
    problemsOf(() =>
      loadApp(spec, { tracing: true, env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317' } }),
    ),
    ['OTEL_EXPORTER_OTLP_PROTOCOL'],
  );
  // No endpoint (tracing off), or an app that does not trace: the setting is not read.
  assert.ok(loadApp(spec, { tracing: true, env }));
  assert.ok(loadApp(spec, { env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317' } }));
});

test("a variable's own problems are reported before anything is opened", () => {
  assert.deepEqual(
    problemsOf(() => loadApp(spec, { env: { THINGS: '0', LOG_LEVEL: 'loud', KUBECONFIG: '/nonexistent' } })),
    ['LOG_LEVEL', 'THINGS'],
  );
});

test('Redis, kubeconfig and app checks: every problem named in one error', () => {
  const variables = problemsOf(() =>
    loadApp(spec, {
      env: { KUBECONFIG: '/nonexistent/kubeconfig', REDIS_SENTINEL_NAME: 'mymaster' },
      check: (c) => (c.THINGS < 2 ? [{ variable: 'THINGS', message: 'needs at least 2 here' }] : []),
    }),
  );
  assert.deepEqual(variables, ['THINGS', 'REDIS_SENTINELS', 'KUBECONFIG']);
});

test('a check may throw its ConfigError instead of returning the problems', () => {
  const variables = problemsOf(() =>
    loadApp(spec, {
      env: { KUBECONFIG: '/nonexistent/kubeconfig' },
      check: () => {
        throw new ConfigError([{ variable: 'THINGS', message: 'not today' }]);
      },
    }),
  );
  assert.deepEqual(variables, ['THINGS', 'KUBECONFIG']);
});

test('the kubeconfig problem says what is wrong with the file', () => {
  try {
    loadApp(spec, { env: { KUBECONFIG: path.join(dir, 'missing') } });
    assert.fail('expected a ConfigError');
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    assert.match(err.message, /KUBECONFIG: .*missing/);
  }
});
