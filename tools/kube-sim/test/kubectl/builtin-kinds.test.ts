// Acceptance: the real kubectl against kube-sim — built-in kinds: run a pod, create each kind, apply -k of a
// kustomization, the client-side apply's size limit. Each step asserts on kubectl's output AND on the server's
// state.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { KubeSim } from '../../src/index.ts';
import { waitFor } from '@podset/testkit';
import { FIXTURES, useKubectlSim } from './support.ts';

describe('kubectl against kube-sim', () => {
  const k = useKubectlSim();
  const { kubectl, ok } = k;
  let sim: KubeSim;

  before(async () => {
    sim = k.sim;
  });

  test('run a pod and see it Running in get pods', async () => {
    assert.match(await ok(['run', 'web', '--image=nginx:1.27', '--labels=app=web']), /^pod\/web created$/m);
    await ok(['wait', '--for=condition=Ready', '--timeout=20s', 'pod/web']);
    const out = await ok(['get', 'pods', '-l', 'app=web']);
    const [header, row] = out.trimEnd().split('\n');
    assert.match(header ?? '', /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    assert.match(row ?? '', /^web\s+1\/1\s+Running\s+0\s+\d+s$/);
    const pod = sim.cluster.get('pods', 'default', 'web')!;
    assert.equal((pod.status as { phase?: string }).phase, 'Running');
    assert.match(String((pod.spec as { nodeName?: string }).nodeName), /^sim-node-/);
    const wide = await ok(['get', 'pod', 'web', '-o', 'wide']);
    assert.match(wide, /sim-node-\d/);
    // Deleting shows it Terminating, then it is gone.
    await ok(['delete', 'pod', 'web', '--wait=true', '--timeout=20s']);
    assert.equal(sim.cluster.get('pods', 'default', 'web'), undefined);
  });

  test('kubectl create of built-in kinds (kubectl sends these as protobuf)', async () => {
    await ok(['create', 'namespace', 'made']);
    const cmds: [string[], string, string, string][] = [
      [
        ['create', 'deployment', 'd1', '--image=nginx:1.27', '--replicas=2'],
        'deployment.apps/d1 created',
        'deployments.apps',
        'd1',
      ],
      [['create', 'service', 'clusterip', 's1', '--tcp=80:8080'], 'service/s1 created', 'services', 's1'],
      [
        ['create', 'role', 'r1', '--verb=get,list', '--resource=pods'],
        'role.rbac.authorization.k8s.io/r1 created',
        'roles.rbac.authorization.k8s.io',
        'r1',
      ],
      [
        ['create', 'rolebinding', 'rb1', '--role=r1', '--user=jane'],
        'rolebinding.rbac.authorization.k8s.io/rb1 created',
        'rolebindings.rbac.authorization.k8s.io',
        'rb1',
      ],
      [['create', 'job', 'j1', '--image=busybox:1.36'], 'job.batch/j1 created', 'jobs.batch', 'j1'],
      [
        ['create', 'secret', 'generic', 'sec1', '--from-literal=password=s3cret'],
        'secret/sec1 created',
        'secrets',
        'sec1',
      ],
      [['create', 'configmap', 'cm1', '--from-literal=a=b'], 'configmap/cm1 created', 'configmaps', 'cm1'],
      [['create', 'serviceaccount', 'sa1'], 'serviceaccount/sa1 created', 'serviceaccounts', 'sa1'],
    ];
    const failures: string[] = [];
    for (const [args, expected, resource, name] of cmds) {
      const r = await kubectl([...args, '-n', 'made']);
      if (r.code !== 0 || !r.stdout.includes(expected)) {
        failures.push(`kubectl ${args.join(' ')}: ${r.stderr.trim() || r.stdout.trim()}`);
        continue;
      }
      if (!sim.cluster.get(resource, 'made', name)) failures.push(`${resource}/${name} not stored`);
    }
    assert.deepEqual(failures, []);
    const d1 = sim.cluster.get('deployments.apps', 'made', 'd1')!;
    assert.equal((d1.spec as { replicas?: number }).replicas, 2);
    const sec = sim.cluster.get('secrets', 'made', 'sec1')!;
    assert.equal((sec.data as Record<string, string>).password, Buffer.from('s3cret').toString('base64'));
  });

  test('apply -k of a small kustomization (Deployment, Service, ConfigMap, ServiceAccount, Role)', async () => {
    const dir = join(FIXTURES, 'kustomize');
    const out = await ok(['apply', '-k', dir]);
    for (const line of [
      'namespace/shop created',
      'serviceaccount/shop created',
      'role.rbac.authorization.k8s.io/shop-reader created',
      'rolebinding.rbac.authorization.k8s.io/shop-reader created',
      'configmap/shop-config created',
      'service/shop created',
      'deployment.apps/shop created',
    ]) {
      assert.ok(out.includes(line), `"${line}" in:\n${out}`);
    }
    const get = (resource: string, name: string) => sim.cluster.get(resource, 'shop', name);
    for (const [resource, name] of [
      ['serviceaccounts', 'shop'],
      ['roles.rbac.authorization.k8s.io', 'shop-reader'],
      ['rolebindings.rbac.authorization.k8s.io', 'shop-reader'],
      ['configmaps', 'shop-config'],
      ['services', 'shop'],
      ['deployments.apps', 'shop'],
    ] as const) {
      const o = get(resource, name);
      assert.ok(o, `${resource}/${name} stored in namespace shop`);
      assert.equal(o.metadata.labels?.['app.kubernetes.io/part-of'], 'shop', `${resource} labelled`);
    }
    // The Deployment controller writes the Deployment (revision, status) until it has rolled out.
    await waitFor('the Deployment rolled out', () =>
      (
        (get('deployments.apps', 'shop')?.status as { conditions?: { reason?: string }[] } | undefined)
          ?.conditions ?? []
      ).some((c) => c.reason === 'NewReplicaSetAvailable'),
    );
    const deploy = get('deployments.apps', 'shop')!;
    assert.equal((deploy.spec as { replicas?: number }).replicas, 2);
    // The same kustomization again: nothing changes.
    const again = await ok(['apply', '-k', dir]);
    assert.doesNotMatch(again, /created|configured/, again);
    assert.match(again, /deployment\.apps\/shop unchanged/);
    assert.equal(get('deployments.apps', 'shop')!.metadata.resourceVersion, deploy.metadata.resourceVersion);
    const listed = await ok(['get', 'deploy,svc,cm,sa,role', '-n', 'shop', '-o', 'name']);
    for (const n of [
      'deployment.apps/shop',
      'service/shop',
      'configmap/shop-config',
      'serviceaccount/shop',
      'role.rbac.authorization.k8s.io/shop-reader',
    ]) {
      assert.ok(listed.includes(n), `${n} listed`);
    }
    // delete -k removes everything (kubectl waits for the namespace to be gone). kustomize puts the Namespace
    // first; as on a cluster, the namespace controller starts emptying it only after a few seconds, so
    // kubectl's own deletes of what is in it find every object still there: no NotFound, exit 0.
    const del = await kubectl(['delete', '-k', dir, '--timeout=60s'], { timeoutMs: 90_000 });
    assert.equal(del.code, 0, `kubectl delete -k exited ${del.code}:\n${del.stderr}${del.stdout}`);
    assert.doesNotMatch(del.stderr, /NotFound/, del.stderr);
    const deleted = del.stdout;
    assert.match(deleted, /namespace "shop" deleted/);
    assert.match(deleted, /deployment\.apps "shop" deleted/);
    assert.equal(sim.cluster.get('namespaces', undefined, 'shop'), undefined);
    assert.equal(sim.cluster.list('deployments.apps', 'shop').length, 0);
    assert.equal(sim.cluster.list('configmaps', 'shop').length, 0);
  });

  test('a client-side apply whose last-applied copy passes 256 KiB of annotations is refused; server-side applies it', async () => {
    const big = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big', namespace: 'default' },
      data: { blob: 'x'.repeat(300 * 1024) },
    };
    const client = await kubectl(['apply', '-f', '-'], { input: JSON.stringify(big) });
    assert.notEqual(client.code, 0, client.stdout);
    assert.match(client.stderr, /metadata\.annotations: Too long: must have at most 262144 bytes/);
    assert.equal(sim.cluster.get('configmaps', 'default', 'big'), undefined, 'nothing stored');
    await ok(['apply', '--server-side', '-f', '-'], JSON.stringify(big));
    assert.ok(sim.cluster.get('configmaps', 'default', 'big'), 'stored by the server-side apply');
    await ok(['delete', 'configmap', 'big']);
  });
});
