import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArgs } from 'node:util';
import { controllerFlagOptions, controllerOptionsFromFlags } from './flags.ts';

function parse(args: string[]) {
  const { values } = parseArgs({ args, options: controllerFlagOptions, strict: true });
  return controllerOptionsFromFlags(values);
}

test('--lifecycle names the pod lifecycle; the kubelet pace has its flags', () => {
  assert.deepEqual(parse(['--lifecycle', 'fast']), { podLifecycle: 'fast' });
  assert.deepEqual(parse(['--lifecycle=off']), { podLifecycle: 'off' });
  assert.deepEqual(
    parse([
      '--lifecycle=kubelet',
      '--scheduler-bind-ms=5',
      '--kubelet-relist-ms=500',
      '--kubelet-status-write-ms=0',
    ]),
    {
      podLifecycle: 'kubelet',
      schedulerBindMs: 5,
      kubeletRelistMs: 500,
      kubeletStatusWriteMs: 0,
    },
  );
  assert.throws(
    () => parse(['--lifecycle', 'slow']),
    /--lifecycle must be one of kubelet, fast, off, got "slow"/,
  );
  assert.throws(() => parse(['--kubelet-relist-ms=-5']), /--kubelet-relist-ms/);
});

test('flags map to controller options; absent flags stay absent (defaults apply)', () => {
  assert.deepEqual(parse([]), {});
  assert.deepEqual(
    parse([
      '--nodes=5',
      '--startup-delay-ms',
      '10',
      '--startup-jitter-ms=0',
      '--fail-fraction=0.1',
      '--never-ready-fraction=0.2',
      '--container-exit-ms=50',
      '--succeed-after-ms=70',
      '--seed=7',
      '--job-backoff-ms=100',
      '--no-pod-events',
      '--no-gc',
      '--no-namespace-controller',
      '--no-service-account-controller',
      '--no-replication-controller',
      '--no-replicaset-controller',
      '--no-deployment-controller',
      '--no-statefulset-controller',
      '--no-job-controller',
    ]),
    {
      nodes: 5,
      startupDelayMs: 10,
      startupJitterMs: 0,
      failFraction: 0.1,
      neverReadyFraction: 0.2,
      containerExitMs: 50,
      succeedAfterMs: 70,
      seed: 7,
      jobBackoffMs: 100,
      podEvents: false,
      garbageCollector: false,
      namespaceController: false,
      serviceAccountController: false,
      replicationController: false,
      replicaSetController: false,
      deploymentController: false,
      statefulSetController: false,
      jobController: false,
    },
  );
  // Pod events are on by default; the old flag that turned them on is still accepted.
  assert.deepEqual(parse(['--pod-events']), { podEvents: true });
});

test('bad flag values are refused, naming the flag', () => {
  assert.throws(() => parse(['--nodes=three']), /--nodes must be a number/);
  assert.throws(() => parse(['--fail-fraction=2']), /--fail-fraction must be a number in \[0, 1\]/);
  assert.throws(
    () => parse(['--fail-fraction=0.7', '--never-ready-fraction=0.7']),
    /--fail-fraction \+ --never-ready-fraction/,
  );
  assert.throws(() => parse(['--container-exit-ms=-5']), /--container-exit-ms must be a non-negative/);
  assert.throws(() => parse(['--seed=1.5']), /--seed must be an integer/);
  assert.throws(() => parse(['--startup-delay-ms=']), /--startup-delay-ms must be a number/);
});
