// Deletions that take a while on a real cluster, with the real kubectl: a deleted CRD stays Terminating until
// its custom resources are gone (their own finalizers first), and a deleted namespace stays Terminating,
// refusing new content, until what is in it is gone.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKubeSim, type KubeObject, type KubeSim } from '../src/index.ts';
import { kubectl as runKubectl, waitFor } from '@podset/testkit';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const CRD = 'widgets.example.com';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
const conditions = (o: KubeObject | undefined): Condition[] =>
  ((o?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).filter(Boolean);
const condition = (o: KubeObject | undefined, type: string): Condition | undefined =>
  conditions(o).find((c) => c.type === type);

describe('deletion that waits for what depends on it (kubectl)', () => {
  let sim: KubeSim;
  let cacheDir: string;

  function kubectl(args: string[], input?: string) {
    return runKubectl(args, {
      kubeconfig: sim.kubeconfigPath,
      cacheDir,
      allowFail: true,
      timeoutMs: 60_000,
      ...(input === undefined ? {} : { input }),
    });
  }

  async function ok(args: string[], input?: string): Promise<string> {
    const r = await kubectl(args, input);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} exited ${r.code}:\n${r.stderr}${r.stdout}`);
    return r.stdout;
  }

  const widget = (name: string, finalizers?: string[]) =>
    JSON.stringify({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name, ...(finalizers ? { finalizers } : {}) },
      spec: { color: 'blue', replicas: 1 },
    });

  before(async () => {
    cacheDir = mkdtempSync(join(tmpdir(), 'kubectl-cache-'));
    sim = await startKubeSim({ controllerOptions: { podLifecycle: 'fast', nodes: 1 } });
  });

  after(async () => {
    await sim?.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  test('kubectl delete crd: Terminating until the last custom resource has lost its finalizers', async () => {
    await ok(['apply', '-f', join(FIXTURES, 'widget-crd.yaml')]);
    await ok(['wait', '--for=condition=Established', '--timeout=20s', `crd/${CRD}`]);
    await ok(['create', '-f', '-'], widget('held', ['example.com/cleanup']));
    await ok(['create', '-f', '-'], widget('free'));

    const deleted = await ok(['delete', 'crd', CRD, '--wait=false']);
    assert.match(deleted, /customresourcedefinition\.apiextensions\.k8s\.io "widgets\.example\.com" deleted/);
    // Each instance is deleted as a user's delete would: the one without finalizers goes, the other waits.
    await waitFor('the free widget gone', () => !sim.cluster.get(CRD, 'default', 'free'));
    const held = await waitFor('the held widget being deleted', () => {
      const w = sim.cluster.get(CRD, 'default', 'held');
      return w?.metadata.deletionTimestamp ? w : undefined;
    });
    assert.deepEqual(held.metadata.finalizers, ['example.com/cleanup']);

    const crd = sim.cluster.get('customresourcedefinitions.apiextensions.k8s.io', undefined, CRD);
    assert.ok(crd?.metadata.deletionTimestamp, 'the CRD has a deletionTimestamp');
    assert.deepEqual(crd.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    const terminating = condition(crd, 'Terminating');
    assert.equal(terminating?.status, 'True');
    assert.equal(terminating.reason, 'InstanceDeletionInProgress');
    assert.equal(terminating.message, 'CustomResource deletion is in progress');
    // Still served: the terminating widget is listed, and the condition shows through kubectl.
    assert.match(await ok(['get', 'widgets', '-o', 'name']), /widget\.example\.com\/held/);
    await ok(['wait', '--for=condition=Terminating', '--timeout=10s', `crd/${CRD}`]);
    const refused = await kubectl(['create', '-f', '-'], widget('late'));
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /create not allowed while custom resource definition is terminating/);

    // The finalizer's owner lets go: the widget goes, then the CRD.
    await ok(['patch', 'widget', 'held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await ok(['wait', '--for=delete', `crd/${CRD}`, '--timeout=30s']);
    assert.equal(sim.cluster.list(CRD).length, 0);
    const gone = await kubectl(['get', 'widgets']);
    assert.equal(gone.code, 1);
    // kubectl's discovery cache may still name the resource: then the list itself is a 404.
    assert.match(gone.stderr, /doesn't have a resource type "widgets"|could not find the requested resource/);
  });

  test('a deleted namespace: Terminating with the namespace controller conditions; creates refused, updates allowed', async () => {
    await ok(['create', 'namespace', 'team']);
    await ok(['-n', 'team', 'create', 'configmap', 'plain']);
    await ok(['-n', 'team', 'create', 'configmap', 'held']);
    await ok([
      '-n',
      'team',
      'patch',
      'cm',
      'held',
      '--type=merge',
      '-p',
      '{"metadata":{"finalizers":["example.com/hold"]}}',
    ]);

    await ok(['delete', 'namespace', 'team', '--wait=false']);
    assert.match(await ok(['get', 'namespace', 'team', '--no-headers']), /^team\s+Terminating\s/);
    const ns = sim.cluster.get('namespaces', undefined, 'team');
    assert.deepEqual((ns?.spec as { finalizers?: string[] }).finalizers, ['kubernetes']);

    const refused = await kubectl(['-n', 'team', 'create', 'configmap', 'late']);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /configmaps "late" is forbidden: unable to create new content in namespace team because it is being terminated/,
    );
    // Updates and deletes of what is there still work.
    await ok(['-n', 'team', 'label', 'configmap', 'held', 'touched=yes']);

    const terminating = await waitFor(
      'the namespace controller to report the finalizer that holds it',
      () => {
        const n = sim.cluster.get('namespaces', undefined, 'team');
        return condition(n, 'NamespaceFinalizersRemaining')?.status === 'True' ? n : undefined;
      },
    );
    assert.equal(
      sim.cluster.get('configmaps', 'team', 'plain'),
      undefined,
      'content without finalizers deleted',
    );
    assert.deepEqual(
      conditions(terminating).map((c) => [c.type, c.status, c.reason, c.message]),
      [
        [
          'NamespaceDeletionDiscoveryFailure',
          'False',
          'ResourcesDiscovered',
          'All resources successfully discovered',
        ],
        [
          'NamespaceDeletionGroupVersionParsingFailure',
          'False',
          'ParsedGroupVersions',
          'All legacy kube types successfully parsed',
        ],
        [
          'NamespaceDeletionContentFailure',
          'False',
          'ContentDeleted',
          'All content successfully deleted, may be waiting on finalization',
        ],
        [
          'NamespaceContentRemaining',
          'True',
          'SomeResourcesRemain',
          'Some resources are remaining: configmaps. has 1 resource instances',
        ],
        [
          'NamespaceFinalizersRemaining',
          'True',
          'SomeFinalizersRemain',
          'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
        ],
      ],
    );
    assert.match(
      await ok(['describe', 'namespace', 'team']),
      /NamespaceFinalizersRemaining\s+True\s+.*SomeFinalizersRemain/,
    );

    await ok(['-n', 'team', 'patch', 'cm', 'held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await ok(['wait', '--for=delete', 'namespace/team', '--timeout=30s']);
  });
});
