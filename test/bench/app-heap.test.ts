// The heap the bench's apps run with (bench/lib/app-heap.ts): the shipped manifests' NODE_OPTIONS, with
// the old space a container's memory limit gives, read from k8s/base so the bench cannot drift from them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  containerHeapFlags,
  quantityBytes,
  shippedHeapFlags,
  shippedHeapOf,
} from '../../bench/lib/app-heap.ts';

const REPO = path.resolve(import.meta.dirname, '../..');

test('a percentage of the memory limit becomes the old space a container gets; other flags pass as they are', () => {
  assert.deepEqual(
    containerHeapFlags('--max-semi-space-size=16 --max-old-space-size-percentage=40', '320Mi'),
    ['--max-semi-space-size=16', '--max-old-space-size=128'],
  );
  assert.deepEqual(containerHeapFlags(' --max-old-space-size-percentage=50  --stack-size=900 ', '1Gi'), [
    '--max-old-space-size=512',
    '--stack-size=900',
  ]);
  // Rounded down to whole MiB, as a limit in bytes or decimal units gives.
  assert.deepEqual(containerHeapFlags('--max-old-space-size-percentage=33.3', '300M'), [
    '--max-old-space-size=95',
  ]);
  assert.equal(quantityBytes('268435456'), 256 * 1024 ** 2);
  assert.throws(
    () => containerHeapFlags('--max-old-space-size-percentage=40', '320 MiB'),
    /not a memory quantity: 320 MiB/,
  );
});

const deployment = (container: string) => `apiVersion: v1
kind: ServiceAccount
metadata: {name: x}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  template:
    spec:
      containers:
${container}`;

test("the app's container is found in a multi-document manifest; one without the flags or the limit is named", () => {
  const both = `        - name: watcher
          env: [{name: A, value: b}, {name: NODE_OPTIONS, value: --max-semi-space-size=2}]
          resources: {limits: {memory: 64Mi}}`;
  assert.deepEqual(shippedHeapOf(deployment(both), 'watcher', 'w.yaml'), {
    nodeOptions: '--max-semi-space-size=2',
    memory: '64Mi',
  });
  assert.throws(
    () => shippedHeapOf(deployment(both), 'worker', 'w.yaml'),
    /w\.yaml: no Deployment with a container named worker/,
  );
  const noFlags = `        - name: worker
          resources: {limits: {memory: 64Mi}}`;
  assert.throws(
    () => shippedHeapOf(deployment(noFlags), 'worker', 'k.yaml'),
    /k\.yaml: the worker container has no NODE_OPTIONS/,
  );
  const noLimit = `        - name: worker
          env: [{name: NODE_OPTIONS, value: --max-semi-space-size=2}]`;
  assert.throws(
    () => shippedHeapOf(deployment(noLimit), 'worker', 'k.yaml'),
    /the worker container has no memory limit/,
  );
});

test('the flags the bench gives each app are the ones k8s/base ships, with the old space of its limit', () => {
  for (const app of ['watcher', 'worker'] as const) {
    const text = readFileSync(path.join(REPO, 'k8s/base', `${app}.yaml`), 'utf8');
    // Read here another way than app-heap.ts does: the text's one NODE_OPTIONS value and its memory limit.
    const options = /name: NODE_OPTIONS\n\s+value: (.+)\n/.exec(text)?.[1];
    const limits = /limits:\n(?:\s+\w+: .+\n)*?\s+memory: (\d+)Mi\n/.exec(text)?.[1];
    assert.ok(options !== undefined && limits !== undefined, `${app}: NODE_OPTIONS and a limit in MiB`);
    const semi = /--max-semi-space-size=\d+/.exec(options)?.[0];
    const pct = Number(/--max-old-space-size-percentage=(\d+)/.exec(options)?.[1]);
    assert.deepEqual(
      shippedHeapFlags(REPO, app).sort(),
      [`--max-old-space-size=${Math.floor((pct * Number(limits)) / 100)}`, semi].sort(),
    );
  }
});
