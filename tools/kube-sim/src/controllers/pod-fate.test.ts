import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../apimachinery/types.ts';
import {
  EXIT_DELAY_ANNOTATION,
  FATE_ANNOTATION,
  STARTUP_DELAY_ANNOTATION,
  chooseFate,
  removalDelayOf,
  startupDelayOf,
} from './pod-fate.ts';

const pod = (o: {
  annotations?: Record<string, string>;
  restartPolicy?: string;
  nodeName?: string;
  grace?: number;
  phase?: string;
}): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'default',
      uid: 'u-1',
      ...(o.annotations ? { annotations: o.annotations } : {}),
      ...(o.grace !== undefined
        ? { deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: o.grace }
        : {}),
    },
    spec: {
      containers: [{ name: 'app', image: 'nginx' }],
      ...(o.restartPolicy ? { restartPolicy: o.restartPolicy } : {}),
      ...(o.nodeName ? { nodeName: o.nodeName } : {}),
    },
    ...(o.phase ? { status: { phase: o.phase } } : {}),
  }) as unknown as KubeObject;

const none = { failFraction: 0, neverReadyFraction: 0 };

test('fate: the annotation wins over the fractions; an unknown value is ignored', () => {
  for (const fate of ['ready', 'fail', 'never-ready', 'succeed'])
    assert.equal(
      chooseFate(pod({ annotations: { [FATE_ANNOTATION]: fate } }), none, () => 0),
      fate,
    );
  assert.equal(
    chooseFate(pod({ annotations: { [FATE_ANNOTATION]: 'bogus' } }), none, () => 0),
    'ready',
  );
  const always = { failFraction: 1, neverReadyFraction: 0 };
  assert.equal(
    chooseFate(pod({ annotations: { [FATE_ANNOTATION]: 'ready' } }), always, () => 0),
    'ready',
  );
});

test('fate: by the fractions, else succeed for restartPolicy Never/OnFailure, else ready', () => {
  const o = { failFraction: 0.2, neverReadyFraction: 0.3 };
  assert.equal(
    chooseFate(pod({}), o, () => 0.1),
    'fail',
  );
  assert.equal(
    chooseFate(pod({}), o, () => 0.4),
    'never-ready',
  );
  assert.equal(
    chooseFate(pod({}), o, () => 0.6),
    'ready',
  );
  assert.equal(
    chooseFate(pod({ restartPolicy: 'Never' }), o, () => 0.6),
    'succeed',
  );
  assert.equal(
    chooseFate(pod({ restartPolicy: 'OnFailure' }), o, () => 0.6),
    'succeed',
  );
  assert.equal(
    chooseFate(pod({ restartPolicy: 'Always' }), o, () => 0.6),
    'ready',
  );
});

test('startup delay: the annotation, else the delay plus a jitter in [0, jitter]', () => {
  const o = { startupDelayMs: 200, startupJitterMs: 600 };
  assert.equal(
    startupDelayOf(pod({ annotations: { [STARTUP_DELAY_ANNOTATION]: '5000' } }), o, () => 0.9),
    5000,
  );
  assert.equal(
    startupDelayOf(pod({}), o, () => 0),
    200,
  );
  assert.equal(
    startupDelayOf(pod({}), o, () => 0.9999),
    800,
  );
  // A negative or non-numeric annotation is not a delay.
  assert.equal(
    startupDelayOf(pod({ annotations: { [STARTUP_DELAY_ANNOTATION]: '-1' } }), o, () => 0),
    200,
  );
});

test('removal delay: the containers exit time, never longer than the grace period', () => {
  assert.equal(removalDelayOf(pod({ nodeName: 'n1', grace: 30 }), 300), 300);
  assert.equal(removalDelayOf(pod({ nodeName: 'n1', grace: 0 }), 300), 0);
  // Not on a node, or finished: nothing to stop.
  assert.equal(removalDelayOf(pod({ grace: 30 }), 300), 0);
  assert.equal(removalDelayOf(pod({ nodeName: 'n1', grace: 30, phase: 'Failed' }), 300), 0);
  const slow = { [EXIT_DELAY_ANNOTATION]: '60000' };
  assert.equal(removalDelayOf(pod({ nodeName: 'n1', grace: 2, annotations: slow }), 300), 2000);
});
