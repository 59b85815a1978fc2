import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseOptions } from './options.ts';

test('defaults: room for 10,000 pods (100 nodes × 110), no client limit, every namespace, kube-sim’s pod timings', () => {
  const o = parseOptions([]);
  assert.ok(o);
  assert.equal(o.nodes, 100);
  assert.ok(o.nodes * o.maxPods >= 10_000);
  assert.equal(o.qps, 0);
  assert.deepEqual(o.namespaces, []);
  assert.equal(o.startupDelayMs, 200);
  assert.equal(o.containerExitMs, 300);
  assert.equal(o.maxPods, 110);
});

test('flags: kubeconfig, nodes, repeated namespaces, fractions', () => {
  const o = parseOptions([
    '--kubeconfig=/tmp/kc',
    '--nodes=5',
    '--namespace=a',
    '--namespace',
    'b',
    '--fail-fraction=0.25',
    '--never-ready-fraction=0.5',
    '--qps=50',
  ]);
  assert.equal(o?.qps, 50);
  assert.deepEqual(
    [o?.kubeconfig, o?.nodes, o?.namespaces, o?.failFraction, o?.neverReadyFraction],
    ['/tmp/kc', 5, ['a', 'b'], 0.25, 0.5],
  );
  assert.equal(parseOptions(['--help']), undefined);
});

test('bad input is named: flag and value', () => {
  assert.throws(() => parseOptions(['--nodes=0']), /--nodes must be an integer in \[1, 1000\], got "0"/);
  assert.throws(() => parseOptions(['--nodes=two']), /--nodes must be an integer/);
  assert.throws(
    () => parseOptions(['--fail-fraction=2']),
    /--fail-fraction must be a number in \[0, 1\], got "2"/,
  );
  assert.throws(
    () => parseOptions(['--fail-fraction=0.6', '--never-ready-fraction=0.6']),
    /--fail-fraction \+ --never-ready-fraction must be at most 1/,
  );
  assert.throws(
    () => parseOptions(['--namespace=Bad_NS']),
    /--namespace must be a namespace name, got "Bad_NS"/,
  );
  assert.throws(() => parseOptions(['--node-prefix=X']), /--node-prefix/);
  assert.throws(() => parseOptions(['--log-level=loud']), /--log-level must be one of/);
  assert.throws(() => parseOptions(['--qps=-1']), /--qps must be a number >= 0, got "-1"/);
  assert.throws(() => parseOptions(['--bogus']), /Unknown option '--bogus'/);
});

test("--qps is the agent's client limit, bursts of twice that; 0 leaves it unlimited", async () => {
  const { clientRate } = await import('./agent.ts');
  assert.deepEqual(clientRate(parseOptions(['--qps=50'])!), { qps: 50, burst: 100 });
  assert.equal(clientRate(parseOptions([])!).qps, 0);
});
