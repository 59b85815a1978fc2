import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podSet, UID } from '../test/fixtures.ts';
import { podLabels, podManifest, podNamePrefix } from './pod-template.ts';
import { templateHash } from './template-hash.ts';

test('manifest: generateName, labels, ownerReference, spec from the template', () => {
  const ps = podSet();
  const m = podManifest(ps, templateHash(ps));
  assert.deepEqual(m, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: 'web-',
      namespace: 'default',
      labels: {
        tier: 'web',
        'podset.io/name': 'web',
        'app.kubernetes.io/managed-by': 'podset-operator',
        'podset.io/template-hash': templateHash(ps),
      },
      annotations: { note: 'x' },
      ownerReferences: [
        {
          apiVersion: 'podset.io/v1',
          kind: 'PodSet',
          name: 'web',
          uid: UID,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
  });
  m.spec.containers[0]!.image = 'changed';
  assert.equal(
    ps.spec?.template?.spec.containers[0]?.image,
    'nginx:1.27',
    'the manifest does not share the template',
  );
});

test('the PodSet labels win over template labels of the same key', () => {
  const ps = podSet();
  ps.spec!.template!.metadata!.labels = {
    'podset.io/name': 'spoof',
    'app.kubernetes.io/managed-by': 'me',
    'podset.io/template-hash': 'forged',
  };
  assert.deepEqual(podLabels(ps, 'h1'), {
    'podset.io/name': 'web',
    'app.kubernetes.io/managed-by': 'podset-operator',
    'podset.io/template-hash': 'h1',
  });
});

test('no template: the default busybox sleeping 3600; no annotations key when none', () => {
  const ps = podSet();
  delete ps.spec!.template;
  const m = podManifest(ps, templateHash(ps));
  assert.deepEqual(m.spec, {
    containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }],
  });
  assert.equal('annotations' in m.metadata, false);
});

test('generateName is cut to 58 characters as the API server does, so pod names fit in 63', () => {
  assert.equal(podNamePrefix('web'), 'web-');
  const long = 'a'.repeat(63);
  assert.equal(podNamePrefix(long).length, 58);
  assert.equal(podNamePrefix('b'.repeat(57)), `${'b'.repeat(57)}-`);
  assert.ok(podNamePrefix(long).length + 5 <= 63);
});
