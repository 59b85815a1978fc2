// `npm run bench -- converge --kubeconfig FILE` interrupted by Ctrl-C (SIGINT to its process group, as a
// terminal sends it) while its PodSets, held by the operator's finalizer, and their pods exist: it must stop,
// remove the finalizers, the PodSets, the pods, its namespace and the CRD it installed (not one that was
// there before), and exit 130. kube-sim runs no pod lifecycle here, so nothing converges by itself.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startKubeSim, type KubeSim } from '@podset/kube-sim';
import { CLEANUP_FINALIZER, podSetCrd } from '@podset/reconcile';
import { waitFor } from '@podset/testkit';
import { Client, type KubeObj } from '../../bench/lib/client.ts';
import { userEnv, within } from '../e2e/support/npm-run.ts';

const REPO = path.resolve(import.meta.dirname, '../..');
const NODE = path.join(REPO, 'node_modules/.bin/node');
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const CRD = `${CRDS}/podsets.podset.io`;

interface Bench {
  pid: number;
  output: () => string;
  exited: Promise<number | null>;
}

/** The bench as a user starts it, in a process group of its own (the terminal's, for Ctrl-C). */
function startBench(kubeconfig: string): Bench {
  const child = spawn(
    NODE,
    [
      path.join(REPO, 'bench/run.ts'),
      'converge',
      '--kubeconfig',
      kubeconfig,
      '--smoke',
      '--podsets',
      '2',
      '--replicas',
      '2',
      '--workers',
      '1',
      '--concurrency',
      '2',
      '--timeout-s',
      '600',
    ],
    { cwd: REPO, env: userEnv({}), stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  process.once('exit', () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  });
  return { pid: child.pid!, output: () => out, exited };
}

/** Whatever of the bench's group is still there after a failed assertion goes. */
function stopGroup(bench: Bench): void {
  try {
    process.kill(-bench.pid, 'SIGKILL');
  } catch {
    // gone
  }
}

describe('bench converge --kubeconfig, interrupted by Ctrl-C', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-interrupt-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  let sim: KubeSim;
  let api: Client;

  before(async () => {
    sim = await startKubeSim({
      kubeconfigPath: kubeconfig,
      controllerOptions: { podLifecycle: 'off', podEvents: false },
    });
    api = await Client.fromKubeconfig(kubeconfig);
  });
  after(async () => {
    api.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const list = async (p: string): Promise<KubeObj[]> => {
    const r = await api.call('GET', p);
    return r.status === 404 ? [] : (JSON.parse(r.body.toString()) as { items: KubeObj[] }).items;
  };
  const benchNamespaces = async (): Promise<string[]> =>
    (await list('/api/v1/namespaces'))
      .map((n) => n.metadata.name)
      .filter((n) => n.startsWith('podset-bench-'));
  const heldPodSets = async (): Promise<KubeObj[]> =>
    (await list('/apis/podset.io/v1/podsets')).filter((ps) =>
      (ps.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER),
    );
  const podsOf = async (prefix: string): Promise<KubeObj[]> =>
    (await list('/api/v1/pods')).filter((p) => p.metadata.name.startsWith(prefix));

  /** SIGINT to the bench's group; its exit code (within 4 minutes) and output. */
  const interrupt = async (bench: Bench): Promise<{ code: number | null | undefined; out: string }> => {
    process.kill(-bench.pid, 'SIGINT');
    const code = await within(bench.exited, 240_000);
    return { code, out: bench.output() };
  };

  /** Nothing of the bench is left in any namespace. */
  const assertNothingLeft = async (out: string): Promise<void> => {
    assert.deepEqual(await benchNamespaces(), [], out);
    assert.deepEqual(await podsOf('warmup'), [], out);
    assert.deepEqual(await podsOf('ps-'), [], out);
  };

  test('while its measured PodSets wait: finalizers, PodSets, pods, namespace and its CRD removed; exit 130', async () => {
    assert.equal((await api.call('GET', CRD)).status, 404, 'no PodSet CRD before the bench');
    const bench = startBench(kubeconfig);
    try {
      // The warm-up PodSet waits for its pod to be Ready, which no kubelet makes it here: the test does.
      const warm = await waitFor(
        'the warm-up pod',
        async () => (await podsOf('warmup-')).find((p) => p.metadata.namespace?.startsWith('podset-bench-')),
        { timeoutMs: 180_000, describe: bench.output },
      );
      const ready = await api.call(
        'PATCH',
        `/api/v1/namespaces/${warm.metadata.namespace}/pods/${warm.metadata.name}/status`,
        {
          status: {
            phase: 'Running',
            conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }],
          },
        },
        'application/merge-patch+json',
      );
      assert.equal(ready.status, 200, ready.body.toString());
      // The measured PodSets, held by the operator's finalizer, and their pods (never Ready).
      await waitFor(
        'PodSets ps-0 and ps-1 held by the finalizer, with their 4 pods',
        async () =>
          (await heldPodSets()).filter((ps) => ps.metadata.name.startsWith('ps-')).length === 2 &&
          (await podsOf('ps-')).length === 4,
        { timeoutMs: 120_000, describe: bench.output },
      );
      assert.equal((await api.call('GET', CRD)).status, 200);

      const { code, out } = await interrupt(bench);
      assert.equal(code, 130, out.slice(-4000));
      assert.match(out, /bench: SIGINT: stopping/, out);
      assert.match(out, /cleaning up namespace podset-bench-converge-\w+ .*the PodSet CRD it installed/, out);
      assert.match(out, /removing the finalizers of [1-9]\d* PodSets/, out);
      assert.doesNotMatch(out, /bench converge failed|cleanup failed/, out);
      await assertNothingLeft(out);
      assert.equal((await api.call('GET', CRD)).status, 404, `the CRD it installed is gone\n${out}`);
    } finally {
      stopGroup(bench);
    }
  });

  test('during the warm-up, on a cluster that had the CRD: the CRD is left, the rest removed', async () => {
    const created = await api.call('POST', CRDS, podSetCrd());
    assert.equal(created.status, 201, created.body.toString());
    const bench = startBench(kubeconfig);
    try {
      await waitFor(
        'the warm-up PodSet held by the finalizer, and its pod',
        async () =>
          (await heldPodSets()).some((ps) => ps.metadata.name === 'warmup') &&
          (await podsOf('warmup-')).length === 1,
        { timeoutMs: 180_000, describe: bench.output },
      );
      const { code, out } = await interrupt(bench);
      assert.equal(code, 130, out.slice(-4000));
      assert.match(out, /cleaning up namespace podset-bench-converge-\w+ /, out);
      assert.doesNotMatch(out, /the PodSet CRD it installed/, out);
      await assertNothingLeft(out);
      assert.equal((await api.call('GET', CRD)).status, 200, `the CRD that was there is left\n${out}`);
      assert.deepEqual(await list('/apis/podset.io/v1/podsets'), [], out);
    } finally {
      stopGroup(bench);
    }
  });

  test('a second Ctrl-C while the cleanup waits for the namespace: exits 130 at once, naming what is left', async () => {
    // The CRD the test before installed goes: this run installs its own.
    await api.call('DELETE', CRD);
    await waitFor('no PodSet CRD', async () => (await api.call('GET', CRD)).status === 404);
    const bench = startBench(kubeconfig);
    let ns: string | undefined;
    try {
      ns = await waitFor(
        'the warm-up PodSet',
        async () => (await heldPodSets()).find((ps) => ps.metadata.name === 'warmup')?.metadata.namespace,
        { timeoutMs: 180_000, describe: bench.output },
      );
      // Something of someone else's that holds the namespace: the first cleanup waits for it to go.
      const held = await api.call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        metadata: { name: 'hold', finalizers: ['test.podset.io/hold'] },
      });
      assert.equal(held.status, 201, held.body.toString());
      process.kill(-bench.pid, 'SIGINT');
      await waitFor(
        'the cleanup to wait for the namespace',
        () => /deleting its pods and the namespace/.test(bench.output()),
        { timeoutMs: 60_000, describe: bench.output },
      );
      process.kill(-bench.pid, 'SIGINT');
      const code = await within(bench.exited, 30_000);
      const out = bench.output();
      assert.equal(code, 130, out.slice(-4000));
      assert.match(
        out,
        new RegExp(`SIGINT again: exiting now; left as it is: namespace ${ns} .*the PodSet CRD it installed`),
        out,
      );
      assert.doesNotMatch(out, /cleaned up; exiting/, out);
      assert.equal((await api.call('GET', `/api/v1/namespaces/${ns}`)).status, 200, 'the namespace is left');
    } finally {
      stopGroup(bench);
      // What the bench left: the held namespace goes once the hold does; the CRD by hand.
      if (ns !== undefined)
        await api.call(
          'PATCH',
          `/api/v1/namespaces/${ns}/configmaps/hold`,
          { metadata: { finalizers: null } },
          'application/merge-patch+json',
        );
      await api.call('DELETE', CRD);
    }
  });
});
