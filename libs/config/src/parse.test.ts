import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bool, int, list, num, oneOf, optionalInt, optionalOneOf, optionalStr, str, url } from './vars.ts';
import { ConfigError, describeEnv, parseEnv } from './parse.ts';

const spec = {
  REDIS_URL: url({
    description: 'Redis',
    default: 'redis://127.0.0.1:6379',
    protocols: ['redis:', 'rediss:'],
  }),
  WORKER_CONCURRENCY: int({ description: 'parallel reconciles', default: 8, min: 1, max: 1000 }),
  KUBE_QPS: num({ description: 'requests/s', default: 50, min: 0.1 }),
  DRY: bool({ description: 'dry run', default: false }),
  LOG_LEVEL: oneOf(['info', 'debug', 'warn'] as const, { description: 'log level', default: 'info' }),
  WATCH_NAMESPACES: list({ description: 'namespaces', item: /^[a-z0-9-]+$/ }),
  KUBECONFIG: optionalStr({ description: 'kubeconfig path' }),
  TOKEN: str({ description: 'a token', required: true }),
};

test('defaults apply and values are typed', () => {
  const config = parseEnv(spec, { TOKEN: 't' });
  assert.equal(config.REDIS_URL, 'redis://127.0.0.1:6379');
  assert.equal(config.WORKER_CONCURRENCY, 8);
  assert.equal(config.KUBE_QPS, 50);
  assert.equal(config.DRY, false);
  assert.equal(config.LOG_LEVEL, 'info');
  assert.deepEqual(config.WATCH_NAMESPACES, []);
  assert.equal(config.KUBECONFIG, undefined);
});

test('values are parsed', () => {
  const config = parseEnv(spec, {
    TOKEN: 't',
    WORKER_CONCURRENCY: '16',
    KUBE_QPS: '2.5',
    DRY: 'yes',
    LOG_LEVEL: 'debug',
    WATCH_NAMESPACES: 'a, b,,c',
    KUBECONFIG: '/tmp/kc',
    REDIS_URL: 'rediss://r:6380/1',
  });
  assert.equal(config.WORKER_CONCURRENCY, 16);
  assert.equal(config.KUBE_QPS, 2.5);
  assert.equal(config.DRY, true);
  assert.equal(config.LOG_LEVEL, 'debug');
  assert.deepEqual(config.WATCH_NAMESPACES, ['a', 'b', 'c']);
  assert.equal(config.KUBECONFIG, '/tmp/kc');
});

test('every problem is reported, each naming its variable', () => {
  assert.throws(
    () =>
      parseEnv(spec, {
        WORKER_CONCURRENCY: '0',
        KUBE_QPS: 'fast',
        DRY: 'maybe',
        LOG_LEVEL: 'loud',
        WATCH_NAMESPACES: 'ok,Bad_NS',
        REDIS_URL: 'http://x',
      }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      const named = err.problems.map((p) => p.variable).sort();
      assert.deepEqual(named, [
        'DRY',
        'KUBE_QPS',
        'LOG_LEVEL',
        'REDIS_URL',
        'TOKEN',
        'WATCH_NAMESPACES',
        'WORKER_CONCURRENCY',
      ]);
      assert.match(err.message, /WORKER_CONCURRENCY: must be at least 1, got 0/);
      assert.match(err.message, /KUBE_QPS: must be a number, got "fast"/);
      assert.match(err.message, /TOKEN: is required/);
      assert.match(err.message, /REDIS_URL: must use redis: or rediss:/);
      return true;
    },
  );
});

test('fractional and padded integers are rejected', () => {
  assert.throws(
    () => parseEnv(spec, { TOKEN: 't', WORKER_CONCURRENCY: '1.5' }),
    /WORKER_CONCURRENCY: must be a whole number/,
  );
});

test('describeEnv renders one README row per variable', () => {
  const rows = describeEnv(spec);
  assert.equal(rows.length, Object.keys(spec).length);
  assert.ok(rows.includes('| `WORKER_CONCURRENCY` | `8` | parallel reconciles |'));
  assert.ok(rows.includes('| `TOKEN` | *(required)* | a token |'));
});

test('optionalInt: unset is undefined (a default derived elsewhere); set, it is checked like int', () => {
  const spec = { N: optionalInt({ description: 'n', min: 1, max: 10 }) };
  assert.equal(parseEnv(spec, {}).N, undefined);
  assert.equal(parseEnv(spec, { N: '' }).N, undefined);
  assert.equal(parseEnv(spec, { N: '7' }).N, 7);
  for (const bad of ['0', '11', '2.5', 'x']) {
    assert.throws(
      () => parseEnv(spec, { N: bad }),
      (err: unknown) => err instanceof ConfigError && err.problems[0]?.variable === 'N',
      `N=${bad} is refused, naming N`,
    );
  }
});

test('optionalOneOf: unset is undefined (nothing said); set, it must be one of the values, naming them', () => {
  const spec = { MODE: optionalOneOf(['port-only', 'confined'] as const, { description: 'm' }) };
  assert.equal(parseEnv(spec, {}).MODE, undefined);
  assert.equal(parseEnv(spec, { MODE: '' }).MODE, undefined);
  assert.equal(parseEnv(spec, { MODE: ' confined ' }).MODE, 'confined');
  assert.throws(
    () => parseEnv(spec, { MODE: 'open' }),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.problems[0]?.variable === 'MODE' &&
      /must be one of port-only, confined, got "open"/.test(err.message),
  );
});
