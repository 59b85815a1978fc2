// A StatefulSet on the real kube-sim through the real kubectl: `kubectl rollout status` returns once its
// pods came up in order, a template change rolls out to it, a scale-down takes the highest ordinal; and the
// `default/kubernetes` Service, Endpoints and EndpointSlice point at the server itself.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../src/index.ts';
import { useKubeSim } from './support/sim-kubectl.ts';

const k = useKubeSim('statefulsets', {
  controllerOptions: { podLifecycle: 'fast', startupDelayMs: 0, startupJitterMs: 20, containerExitMs: 20 },
});

const manifest = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'db', namespace: 'default' },
  spec: {
    replicas: 3,
    serviceName: 'db',
    selector: { matchLabels: { app: 'db' } },
    template: {
      metadata: { labels: { app: 'db' } },
      spec: { containers: [{ name: 'redis', image: 'redis:7' }] },
    },
  },
};

const ready = (p: KubeObject | undefined): boolean =>
  (p?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions?.some(
    (c) => c.type === 'Ready' && c.status === 'True',
  ) === true;

describe('StatefulSets through kubectl', () => {
  test('kubectl rollout status returns once db-0, db-1, db-2 came up in order; a new image rolls out; scale down takes db-2', async () => {
    // Each pod created, and whether the one below it was ready then.
    const created: { name: string; belowReady: boolean }[] = [];
    const stop = k.sim.cluster.subscribe((e) => {
      if (e.resource !== 'pods' || e.type !== 'ADDED') return;
      const name = e.object.metadata.name ?? '';
      const n = Number(name.slice('db-'.length));
      const below = n > 0 ? k.sim.cluster.get('pods', 'default', `db-${n - 1}`) : undefined;
      created.push({ name, belowReady: n === 0 || ready(below) });
    });
    try {
      assert.equal((await k.withManifest(['apply'], manifest)).code, 0);
      const out = await k.ok(['rollout', 'status', 'statefulset/db', '--timeout=60s']);
      assert.match(out, /roll out complete: 3 new pods have been updated/);
      assert.deepEqual(created, [
        { name: 'db-0', belowReady: true },
        { name: 'db-1', belowReady: true },
        { name: 'db-2', belowReady: true },
      ]);
      const table = await k.ok(['get', 'statefulset', 'db', '--no-headers']);
      assert.match(table, /^db\s+3\/3\s/);

      await k.ok(['set', 'image', 'statefulset/db', 'redis=redis:8']);
      await k.ok(['rollout', 'status', 'statefulset/db', '--timeout=60s']);
      const images = await k.ok([
        'get',
        'pods',
        '-l',
        'app=db',
        '-o',
        'jsonpath={range .items[*]}{.metadata.name}={.spec.containers[0].image} {end}',
      ]);
      assert.equal(images.trim(), 'db-0=redis:8 db-1=redis:8 db-2=redis:8');

      await k.ok(['scale', 'statefulset/db', '--replicas=2']);
      await k.ok(['wait', '--for=delete', 'pod/db-2', '--timeout=30s']);
      await k.ok(['rollout', 'status', 'statefulset/db', '--timeout=60s']);
      const names = await k.ok(['get', 'pods', '-l', 'app=db', '-o', 'name']);
      assert.deepEqual(names.trim().split('\n'), ['pod/db-0', 'pod/db-1']);
    } finally {
      stop();
    }
  });
});

describe('default/kubernetes', () => {
  test('the Service, Endpoints and EndpointSlice point at the server; a deleted one is made again', async () => {
    const port = String(k.sim.port);
    assert.equal(
      await k.ok([
        'get',
        'endpoints',
        'kubernetes',
        '-n',
        'default',
        '-o',
        'jsonpath={.subsets[*].addresses[*].ip}',
      ]),
      '127.0.0.1',
    );
    assert.equal(
      await k.ok([
        'get',
        'endpoints',
        'kubernetes',
        '-n',
        'default',
        '-o',
        'jsonpath={.subsets[0].ports[0].port}',
      ]),
      port,
    );
    assert.equal(
      await k.ok([
        'get',
        'service',
        'kubernetes',
        '-n',
        'default',
        '-o',
        'jsonpath={.spec.clusterIP} {.spec.ports[0].name} {.spec.ports[0].port} {.spec.ports[0].targetPort}',
      ]),
      `10.96.0.1 https 443 ${port}`,
    );
    assert.equal(
      await k.ok([
        'get',
        'endpointslices',
        '-n',
        'default',
        '-l',
        'kubernetes.io/service-name=kubernetes',
        '-o',
        'jsonpath={.items[*].addressType} {.items[*].endpoints[*].addresses[*]} {.items[*].ports[*].port}',
      ]),
      `IPv4 127.0.0.1 ${port}`,
    );
    await k.ok(['delete', 'endpoints', 'kubernetes', '-n', 'default']);
    await k.ok(['wait', '--for=create', 'endpoints/kubernetes', '-n', 'default', '--timeout=10s']);
  });
});
