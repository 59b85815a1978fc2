import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validatePodSpec } from './pod-validation.ts';
import { ApiError, type Json } from '../../apimachinery/types.ts';

const text = (spec: Json | undefined) => validatePodSpec(spec).map((c) => `${c.field}: ${c.message}`);
const ok = { containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] };

test('a valid pod spec has no causes', () => {
  assert.deepEqual(text(ok), []);
  assert.deepEqual(text({ ...ok, restartPolicy: 'OnFailure' }), []);
});

test('the causes a real API server gives, worded as it words them', () => {
  assert.deepEqual(text({ containers: [] }), ['spec.containers: Required value']);
  assert.deepEqual(text(undefined), ['spec.containers: Required value']);
  assert.deepEqual(text({ ...ok, restartPolicy: 'Sometimes' }), [
    'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
  ]);
  assert.deepEqual(
    text({
      containers: [
        { name: 'Bad_Name', image: 'x' },
        { name: 'dup', image: '' },
        {
          name: 'dup',
          image: 'y',
          ports: [{ containerPort: 70000 }, { containerPort: 0 }, { containerPort: 1, protocol: 'HTTP' }],
        },
      ],
    }),
    [
      `spec.containers[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      'spec.containers[1].image: Required value',
      'spec.containers[2].name: Duplicate value: "dup"',
      'spec.containers[2].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.containers[2].ports[1].containerPort: Required value',
      'spec.containers[2].ports[2].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    ],
  );
  assert.deepEqual(text({ initContainers: [{ name: 'app', image: 'x' }], ...ok }), [
    'spec.containers[0].name: Duplicate value: "app"',
  ]);
});

test('a port that is not a number cannot be decoded: 400, as a real server answers', () => {
  assert.throws(
    () => validatePodSpec({ containers: [{ name: 'a', image: 'x', ports: [{ containerPort: '80' }] }] }),
    (e: unknown) =>
      e instanceof ApiError &&
      e.code === 400 &&
      e.message ===
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32',
  );
});
