import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine, parseDuration, UsageError } from './args.ts';

test('the rollout actions with kubectl-style flags', () => {
  assert.deepEqual(parseCommandLine(['rollout', 'undo', 'web', '-n', 'team-a', '--to-revision=2']), {
    action: 'undo',
    name: 'web',
    namespace: 'team-a',
    toRevision: 2,
    timeoutMs: 0,
  });
  assert.deepEqual(parseCommandLine(['rollout', 'status', 'web', '--timeout', '1m30s', '--context=c']), {
    action: 'status',
    name: 'web',
    context: 'c',
    timeoutMs: 90_000,
  });
  assert.equal(parseCommandLine(['--help']), 'help');
  assert.equal(parseCommandLine([]), 'help');
});

test('mistakes are usage errors', () => {
  assert.throws(() => parseCommandLine(['scale', 'web']), UsageError);
  assert.throws(() => parseCommandLine(['rollout', 'rewind', 'web']), UsageError);
  assert.throws(() => parseCommandLine(['rollout', 'undo']), UsageError);
  assert.throws(() => parseCommandLine(['rollout', 'undo', 'web', '--to-revision=x']), UsageError);
  assert.throws(() => parseCommandLine(['rollout', 'undo', 'web', '--bogus']));
  assert.throws(() => parseDuration('5 minutes'), UsageError);
  assert.equal(parseDuration('30'), 30_000);
  assert.equal(parseDuration('0'), 0);
});
