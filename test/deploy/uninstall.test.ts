// The uninstall escape hatch (scripts/uninstall.ts, `npm run uninstall -- --remove-finalizers`): PodSets
// made by the real operator, the operator stopped, the PodSets deleted and stuck Terminating, then the
// CLI run as a user runs it against that kubeconfig.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createKube, loadKubeConfig, type PodSet } from '@podset/kube';
import { startKubeSim } from '@podset/kube-sim';
import { CLEANUP_FINALIZER } from '@podset/reconcile';
import {
  NODE,
  REPO,
  applyCrd,
  podSetManifest,
  startEnv,
  type OperatorEnv,
  type Proc,
} from '../e2e/support/harness.ts';
import { compileCacheEnv } from '@podset/testkit';
import { removeFinalizer, removalPatch } from '../../scripts/uninstall.ts';

const CLI = path.join(REPO, 'scripts/uninstall.ts');
const OTHER = 'example.com/other';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function uninstall(args: string[], kubeconfig: string): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      NODE,
      [CLI, ...args],
      {
        cwd: REPO,
        env: { PATH: process.env.PATH ?? '', HOME: env.dir, KUBECONFIG: kubeconfig, ...compileCacheEnv() },
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
const show = (o: Outcome) => `exit ${o.code}\nstdout:\n${o.stdout}\nstderr:\n${o.stderr}`;

let env: OperatorEnv;
const finalizers = (name: string, ns = 'default') => env.podSet(name, ns)?.metadata.finalizers ?? [];
const terminating = (name: string, ns = 'default') =>
  env.podSet(name, ns)?.metadata.deletionTimestamp !== undefined;

before(async () => {
  env = await startEnv({ name: 'uninstall' });
  await applyCrd(env);
  const operator: Proc[] = [env.startWatcher('watcher-0'), env.startWorker('worker-0')];
  await env.kubectl(['create', 'namespace', 'team-b']);
  await env.kubectl([
    'apply',
    '-f',
    env.writeManifest('podsets.yaml', [
      podSetManifest('a', 2),
      podSetManifest('keep', 1),
      podSetManifest('b', 1, { namespace: 'team-b' }),
    ]),
  ]);
  await env.waitConverged(['a', 'keep']);
  await env.waitConverged(['b'], { namespace: 'team-b' });
  // Another controller's finalizer before ours on b, so ours is not at index 0.
  await env.kubectl([
    'patch',
    'ps',
    'b',
    '-n',
    'team-b',
    '--type=json',
    '-p',
    JSON.stringify([{ op: 'add', path: '/metadata/finalizers/0', value: OTHER }]),
  ]);
  assert.deepEqual(finalizers('b', 'team-b'), [OTHER, CLEANUP_FINALIZER]);
  // The operator is removed first: the mistake the CLI is for.
  await Promise.all(operator.map((p) => p.stop(10_000)));
  await env.kubectl(['delete', 'ps', 'a', '--wait=false']);
  await env.kubectl(['delete', 'ps', 'b', '-n', 'team-b', '--wait=false']);
  assert.ok(terminating('a') && terminating('b', 'team-b'), 'deleted PodSets stay Terminating');
  assert.equal(env.pods().filter((p) => p.metadata.labels?.['podset.io/name'] === 'a').length, 2);
});
after(async () => {
  await env?.close();
});

test('the patch removes our finalizer at its index, guarded by a test of that entry', () => {
  const ps = { metadata: { finalizers: [OTHER, CLEANUP_FINALIZER] } } as PodSet;
  assert.deepEqual(removalPatch(ps), [
    { op: 'test', path: '/metadata/finalizers/1', value: CLEANUP_FINALIZER },
    { op: 'remove', path: '/metadata/finalizers/1' },
  ]);
  assert.equal(removalPatch({ metadata: { finalizers: [OTHER] } } as PodSet), undefined);
  assert.equal(removalPatch({ metadata: {} } as PodSet), undefined);
});

test('without --remove-finalizers it prints the usage and the ordinary order (exit 2)', async () => {
  const o = await uninstall([], env.kubeconfig);
  assert.equal(o.code, 2, show(o));
  assert.match(o.stderr, /kubectl wait --for=delete ps --all --all-namespaces/);
});

test('the dry run lists every PodSet with the finalizer and changes nothing', async () => {
  const o = await uninstall(['--remove-finalizers'], env.kubeconfig);
  assert.equal(o.code, 0, show(o));
  assert.match(o.stdout, /would remove podset\.io\/cleanup from default\/a \(Terminating/);
  assert.match(
    o.stdout,
    /would remove podset\.io\/cleanup from team-b\/b \(Terminating.*keeps example\.com\/other\)/,
  );
  assert.match(o.stdout, /would remove podset\.io\/cleanup from default\/keep \(not being deleted\)/);
  assert.match(o.stdout, /dry run: 3 PodSet\(s\)/);
  assert.deepEqual(finalizers('a'), [CLEANUP_FINALIZER]);
  assert.deepEqual(finalizers('b', 'team-b'), [OTHER, CLEANUP_FINALIZER]);
});

test('an identity that may not patch PodSets gets a clear error (exit 1), and nothing changes', async () => {
  const o = await uninstall(['--remove-finalizers', '--yes'], env.sim.kubeconfigFor('viewer'));
  assert.equal(o.code, 1, show(o));
  assert.match(o.stderr, /forbidden \(403\): this identity needs list, get and patch on podsets\.podset\.io/);
  assert.deepEqual(finalizers('a'), [CLEANUP_FINALIZER]);
});

test('an API server that does not answer is named (exit 1)', async () => {
  const dead = path.join(env.dir, 'dead-kubeconfig');
  writeFileSync(
    dead,
    readFileSync(env.kubeconfig, 'utf8').replace(/server: \S+/, 'server: https://127.0.0.1:1'),
  );
  const o = await uninstall(['--remove-finalizers'], dead);
  assert.equal(o.code, 1, show(o));
  assert.match(o.stderr, /cannot reach the API server at https:\/\/127\.0\.0\.1:1/);
});

test('a context that the kubeconfig lacks is a usage error (exit 2)', async () => {
  const o = await uninstall(['--remove-finalizers', '--context', 'nope'], env.kubeconfig);
  assert.equal(o.code, 2, show(o));
  assert.match(o.stderr, /no context "nope" in the kubeconfig/);
});

test('a finalizer list that changed since it was read: the test op refuses, the PodSet is read again', async () => {
  const kube = createKube(loadKubeConfig({ kubeconfig: env.kubeconfig }));
  try {
    const stale = await kube.podSets.get('default', 'keep');
    assert.deepEqual(stale.metadata.finalizers, [CLEANUP_FINALIZER]);
    await kube.podSets.patch(
      'default',
      'keep',
      [{ op: 'add', path: '/metadata/finalizers/0', value: OTHER }],
      {
        type: 'json',
      },
    );
    assert.equal(await removeFinalizer(kube, stale), true);
    assert.deepEqual(finalizers('keep'), [OTHER], 'the other finalizer, now at index 0, is kept');
    assert.equal(await removeFinalizer(kube, stale), false, 'nothing left to remove');
  } finally {
    await kube.client.close();
  }
});

test('--yes removes only podset.io/cleanup: a PodSet with no other finalizer goes, with its pods', async () => {
  const o = await uninstall(['--remove-finalizers', '--yes'], env.kubeconfig);
  assert.equal(o.code, 0, show(o));
  assert.match(o.stdout, /removed podset\.io\/cleanup from 2 PodSet\(s\)/);
  assert.equal(env.podSet('a'), undefined, 'a is deleted once its finalizer is gone');
  await env.waitFor('the pods of a to be garbage-collected', () =>
    env
      .pods()
      .filter(
        (p) => p.metadata.labels?.['podset.io/name'] === 'a' && p.metadata.deletionTimestamp === undefined,
      )
      .map((p) => `pod ${p.metadata.name} still there`),
  );
  assert.ok(terminating('b', 'team-b'), "b waits for the other controller's finalizer");
  assert.deepEqual(finalizers('b', 'team-b'), [OTHER]);
  const again = await uninstall(['--remove-finalizers', '--yes'], env.kubeconfig);
  assert.equal(again.code, 0, show(again));
  assert.match(again.stdout, /no PodSet carries podset\.io\/cleanup: nothing to do/);
});

test('a cluster without the PodSet CRD: nothing to do (exit 0)', async () => {
  const bare = await startKubeSim({ controllers: false });
  try {
    const o = await uninstall(['--remove-finalizers'], bare.kubeconfigPath);
    assert.equal(o.code, 0, show(o));
    assert.match(o.stdout, /the CRD podsets\.podset\.io is not installed\): nothing to do/);
  } finally {
    await bare.close();
  }
});
