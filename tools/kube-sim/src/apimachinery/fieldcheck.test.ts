import assert from 'node:assert/strict';
import { test } from 'node:test';
import { knowsKind, unknownBuiltinFields } from './fieldcheck.ts';

test('built-in kinds: every known field passes, including embedded structs, lists and maps', () => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', whatever: 'metadata is checked elsewhere' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
      template: {
        metadata: { labels: { a: 'b' } },
        spec: {
          containers: [
            {
              name: 'c',
              image: 'i',
              readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 }, // ProbeHandler inline
              env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }], // LocalObjectReference inline
              resources: { limits: { cpu: '1' } },
            },
          ],
          volumes: [{ name: 'v', configMap: { name: 'c' } }], // VolumeSource inline
        },
      },
    },
    status: { replicas: 1 },
  };
  assert.deepEqual(unknownBuiltinFields('apps', 'Deployment', deployment), []);
  const ingress = {
    spec: {
      rules: [
        {
          host: 'a',
          http: {
            paths: [
              { path: '/', pathType: 'Prefix', backend: { service: { name: 's', port: { number: 80 } } } },
            ],
          },
        },
      ],
    },
  };
  assert.deepEqual(unknownBuiltinFields('networking.k8s.io', 'Ingress', ingress), []);
});

test('built-in kinds: unknown fields are named by their path', () => {
  const pod = {
    spec: {
      containers: [
        { name: 'a', image: 'i' },
        { name: 'b', imagee: 'i', ports: [{ containerPort: 80, hostPortt: 1 }] },
      ],
      restartPolicyy: 'Always',
    },
    extra: 1,
  };
  assert.deepEqual(unknownBuiltinFields('', 'Pod', pod).sort(), [
    'extra',
    'spec.containers[1].imagee',
    'spec.containers[1].ports[0].hostPortt',
    'spec.restartPolicyy',
  ]);
  assert.deepEqual(unknownBuiltinFields('', 'ConfigMap', { data: { any: 'key' }, dataa: {} }), ['dataa']);
  // A claim template is a whole PersistentVolumeClaim: apiVersion and kind are its fields (not a pod's).
  const claim = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'd' }, spec: {} };
  const sts = {
    spec: { volumeClaimTemplates: [claim], template: { spec: { containers: [{ kind: 'x' }] } } },
  };
  assert.deepEqual(unknownBuiltinFields('apps', 'StatefulSet', sts), [
    'spec.template.spec.containers[0].kind',
  ]);
  assert.equal(knowsKind('apps', 'Deployment'), true);
  assert.equal(knowsKind('example.io', 'Widget'), false);
  assert.deepEqual(unknownBuiltinFields('example.io', 'Widget', { anything: 1 }), []);
});
