import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validatePodUpdate } from './pod-update-validation.ts';
import type { JsonObject } from '../../apimachinery/types.ts';

const spec = (extra: JsonObject = {}, image = 'nginx:1.26'): JsonObject => ({
  containers: [{ name: 'a', image }],
  tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
  ...extra,
});
const text = (old: JsonObject, next: JsonObject) =>
  validatePodUpdate(old, next).map((c) => `${c.field}: ${c.message.split('\n')[0]}`);

test('what a pod update may change', () => {
  assert.deepEqual(text(spec(), spec({}, 'nginx:1.27')), []);
  assert.deepEqual(text(spec(), spec({ activeDeadlineSeconds: 60 })), []);
  assert.deepEqual(text(spec({ activeDeadlineSeconds: 60 }), spec({ activeDeadlineSeconds: 30 })), []);
  const more = spec();
  more.tolerations = [
    { key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 },
    { key: 'new', operator: 'Exists' },
  ];
  assert.deepEqual(text(spec(), more), []);
  assert.deepEqual(
    text(spec({ terminationGracePeriodSeconds: -1 }), spec({ terminationGracePeriodSeconds: 1 })),
    [],
  );
});

test("what it may not, in the API server's words", () => {
  assert.deepEqual(text(spec({ activeDeadlineSeconds: 30 }), spec({ activeDeadlineSeconds: 60 })), [
    'spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value',
  ]);
  assert.deepEqual(text(spec({ activeDeadlineSeconds: 30 }), spec()), [
    'spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value',
  ]);
  assert.deepEqual(text(spec(), spec({ tolerations: [] })), [
    'spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
  ]);
  assert.deepEqual(text(spec(), spec({}, '')), ['spec.containers[0].image: Required value']);
  const causes = validatePodUpdate(spec(), spec({ nodeName: 'n1' }));
  assert.equal(causes.length, 1);
  assert.equal(
    causes[0]?.message,
    'Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n  core.PodSpec{\n+ \tNodeName: "n1",\n  }',
  );
});
