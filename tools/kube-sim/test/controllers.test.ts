// The in-process controllers against the real kube-sim store and server: in process (ClusterAccess), over
// HTTP (fetch with a bearer token), and through the real kubectl.
import { after, before, describe, test } from 'node:test';
import path from 'node:path';
import assert from 'node:assert/strict';
import { startKubeSim, type KubeObject, type KubeSim } from '../src/index.ts';
import { kubectl, waitFor } from '@podset/testkit';

interface PodStatus {
  phase?: string;
  podIP?: string;
  conditions?: { type: string; status: string }[];
}
const phase = (p: KubeObject | undefined) => (p?.status as PodStatus | undefined)?.phase;
const ready = (p: KubeObject | undefined) =>
  (p?.status as PodStatus | undefined)?.conditions?.find((c) => c.type === 'Ready')?.status;

function podBody(name: string, extra: { [k: string]: unknown } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(extra.metadata as object) },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
  };
}

describe('controllers on the real kube-sim', () => {
  let sim: KubeSim;
  const errors: string[] = [];

  async function http(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: KubeObject & { items?: KubeObject[] } }> {
    const res = await fetch(sim.url + path, {
      method,
      headers: {
        authorization: `Bearer ${sim.tokens.admin}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as KubeObject & { items?: KubeObject[] } };
  }

  before(async () => {
    sim = await startKubeSim({
      controllerOptions: {
        podLifecycle: 'fast',
        startupDelayMs: 0,
        startupJitterMs: 20,
        containerExitMs: 50,
        namespaceRecheckMs: 100,
        crashLoopBackoffMs: 100,
        podEvents: true,
        onError: (err: unknown, ctx: string) => errors.push(`${ctx}: ${String(err)}`),
      },
    });
  });
  after(async () => {
    await sim.close();
  });

  test('three Ready simulated nodes are served', async () => {
    const { status, json } = await http('GET', '/api/v1/nodes');
    assert.equal(status, 200);
    const names = (json.items ?? []).map((n) => n.metadata.name).sort();
    assert.deepEqual(names, ['sim-node-1', 'sim-node-2', 'sim-node-3']);
    for (const n of json.items ?? []) {
      const conditions = (n.status as { conditions: { type: string; status: string }[] }).conditions;
      assert.equal(conditions.find((c) => c.type === 'Ready')?.status, 'True');
    }
  });

  test('a pod created over HTTP becomes Running and Ready; a delete removes it after its containers exit', async () => {
    const created = await http('POST', '/api/v1/namespaces/default/pods', podBody('web'));
    assert.equal(created.status, 201);
    const running = await waitFor('pod web Running and Ready', async () => {
      const { json } = await http('GET', '/api/v1/namespaces/default/pods/web');
      return phase(json) === 'Running' && ready(json) === 'True' ? json : undefined;
    });
    assert.match(String((running.spec as { nodeName?: string }).nodeName), /^sim-node-/);
    assert.ok((running.status as PodStatus).podIP);
    const deleted = await http('DELETE', '/api/v1/namespaces/default/pods/web');
    assert.equal(deleted.status, 200);
    assert.ok(deleted.json.metadata.deletionTimestamp, 'Terminating: kept for its grace period');
    await waitFor(
      'pod gone',
      async () => (await http('GET', '/api/v1/namespaces/default/pods/web')).status === 404,
      10_000,
    );
  });

  test('fate annotations work through the real store', async () => {
    for (const fate of ['fail', 'never-ready']) {
      const body = podBody(`fate-${fate}`, {
        metadata: { annotations: { 'kube-sim.podset.io/fate': fate } },
      });
      // Failed only when not restarted: with restartPolicy Always a failing pod crash-loops (below).
      if (fate === 'fail') (body.spec as { restartPolicy?: string }).restartPolicy = 'Never';
      await http('POST', '/api/v1/namespaces/default/pods', body);
    }
    await waitFor(
      'fate-fail Failed',
      () => phase(sim.cluster.get('pods', 'default', 'fate-fail')) === 'Failed',
    );
    await waitFor(
      'fate-never-ready Running',
      () => phase(sim.cluster.get('pods', 'default', 'fate-never-ready')) === 'Running',
    );
    assert.equal(ready(sim.cluster.get('pods', 'default', 'fate-never-ready')), 'False');
    // A Failed pod is deleted at once (no running containers).
    const del = await http('DELETE', '/api/v1/namespaces/default/pods/fate-fail');
    assert.equal(del.status, 200);
    assert.equal(sim.cluster.get('pods', 'default', 'fate-fail'), undefined);
    await http('DELETE', '/api/v1/namespaces/default/pods/fate-never-ready?gracePeriodSeconds=0');
    assert.equal(sim.cluster.get('pods', 'default', 'fate-never-ready'), undefined);
  });

  test('kubectl: a failing pod with restartPolicy Always crash-loops (Running, CrashLoopBackOff, restarts), Never fails', async () => {
    const kc = {
      kubeconfig: sim.kubeconfigPath,
      cacheDir: path.join(path.dirname(sim.kubeconfigPath), 'kube-cache'),
    };
    await kubectl(['run', 'crash', '--image=busybox', '--annotations=kube-sim.podset.io/fate=fail'], kc);
    await kubectl(
      ['run', 'once', '--image=busybox', '--restart=Never', '--annotations=kube-sim.podset.io/fate=fail'],
      kc,
    );
    const restarts = (p: KubeObject | undefined) =>
      (p?.status as { containerStatuses?: { restartCount?: number }[] } | undefined)?.containerStatuses?.[0]
        ?.restartCount ?? 0;
    await waitFor(
      'crash restarted three times',
      () => restarts(sim.cluster.get('pods', 'default', 'crash')) >= 3,
    );
    await waitFor('once Failed', () => phase(sim.cluster.get('pods', 'default', 'once')) === 'Failed');
    const crash = sim.cluster.get('pods', 'default', 'crash');
    assert.equal(phase(crash), 'Running');
    assert.equal(ready(crash), 'False');
    const row = (await kubectl(['get', 'pod', 'crash', '--no-headers'], kc)).stdout;
    assert.match(row, /^crash\s+0\/1\s+(CrashLoopBackOff|Error)\s+\d+ \(\S+ ago\)\s+/);
    assert.match(
      (await kubectl(['get', 'pod', 'once', '--no-headers'], kc)).stdout,
      /^once\s+0\/1\s+Error\s+0\s+/,
    );
    await kubectl(
      [
        'wait',
        '--for=jsonpath={.status.containerStatuses[0].state.waiting.reason}=CrashLoopBackOff',
        'pod/crash',
        '--timeout=20s',
      ],
      kc,
    );
    const described = (await kubectl(['describe', 'pod', 'crash'], kc)).stdout;
    assert.match(described, /Status:\s+Running/);
    assert.match(described, /Last State:\s+Terminated\s+Reason:\s+Error\s+Exit Code:\s+1/);
    assert.match(described, /BackOff\s.*Back-off restarting failed container crash in pod crash_default/);
    await kubectl(['delete', 'pod', 'crash', 'once', '--wait=true', '--timeout=20s'], kc);
  });

  async function ownerWithDependents(name: string): Promise<KubeObject> {
    const owner = (
      await http('POST', '/api/v1/namespaces/default/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name },
      })
    ).json;
    const ownerReferences = [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name,
        uid: owner.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ];
    for (let i = 0; i < 3; i++) {
      const r = await http(
        'POST',
        '/api/v1/namespaces/default/pods',
        podBody(`${name}-${i}`, { metadata: { ownerReferences } }),
      );
      assert.equal(r.status, 201);
    }
    await waitFor('three dependents Running', () =>
      [0, 1, 2].every((i) => phase(sim.cluster.get('pods', 'default', `${name}-${i}`)) === 'Running'),
    );
    return owner;
  }
  const dependents = (name: string) =>
    [0, 1, 2].map((i) => sim.cluster.get('pods', 'default', `${name}-${i}`));

  test('garbage collection, background: deleting the owner deletes its pods', async () => {
    await ownerWithDependents('bg');
    const r = await http('DELETE', '/api/v1/namespaces/default/configmaps/bg', {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Background',
    });
    assert.equal(r.status, 200);
    await waitFor('dependents gone', () => dependents('bg').every((p) => p === undefined), 10_000);
  });

  test('garbage collection, foreground: the owner stays until its blocking pods are gone', async () => {
    await ownerWithDependents('fg');
    const r = await http('DELETE', '/api/v1/namespaces/default/configmaps/fg', {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Foreground',
    });
    assert.equal(r.status, 200);
    assert.ok(r.json.metadata.finalizers?.includes('foregroundDeletion'));
    // While any pod remains, the owner must exist; check at each step until all are gone.
    await waitFor(
      'dependents gone',
      () => {
        const pods = dependents('fg').filter(Boolean);
        if (pods.length > 0)
          assert.ok(sim.cluster.get('configmaps', 'default', 'fg'), 'owner removed before its dependents');
        return pods.length === 0;
      },
      10_000,
    );
    await waitFor('owner gone', () => !sim.cluster.get('configmaps', 'default', 'fg'), 10_000);
  });

  test('garbage collection, orphan: pods lose the reference and keep running', async () => {
    await ownerWithDependents('or');
    const r = await http('DELETE', '/api/v1/namespaces/default/configmaps/or', {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Orphan',
    });
    assert.equal(r.status, 200);
    await waitFor('owner gone', () => !sim.cluster.get('configmaps', 'default', 'or'), 10_000);
    for (const p of dependents('or')) {
      assert.equal(phase(p), 'Running');
      assert.equal(p?.metadata.ownerReferences, undefined);
    }
    for (let i = 0; i < 3; i++)
      await http('DELETE', `/api/v1/namespaces/default/pods/or-${i}?gracePeriodSeconds=0`);
  });

  test('deleting a namespace deletes its content, then the namespace', async () => {
    assert.equal(
      (
        await http('POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: 'team' },
        })
      ).status,
      201,
    );
    await http('POST', '/api/v1/namespaces/team/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm' },
    });
    await http('POST', '/api/v1/namespaces/team/pods', podBody('p'));
    await waitFor('team/p Running', () => phase(sim.cluster.get('pods', 'team', 'p')) === 'Running');
    const r = await http('DELETE', '/api/v1/namespaces/team');
    assert.equal(r.status, 200);
    await waitFor(
      'namespace gone',
      async () => (await http('GET', '/api/v1/namespaces/team')).status === 404,
      10_000,
    );
    assert.equal(sim.cluster.list('configmaps', 'team').length, 0);
    assert.equal(sim.cluster.list('pods', 'team').length, 0);
  });

  test('kubectl: run a pod, see it Running, delete it without waiting out the grace period', async () => {
    const kc = {
      kubeconfig: sim.kubeconfigPath,
      cacheDir: path.join(path.dirname(sim.kubeconfigPath), 'kube-cache'),
    };
    // A pod that is not restarted would run its course (Succeeded after succeedAfterMs): pin it running.
    await kubectl(
      ['run', 'kc', '--image=nginx:1.27', '--restart=Never', '--annotations=kube-sim.podset.io/fate=ready'],
      kc,
    );
    await kubectl(['wait', '--for=condition=Ready', 'pod/kc', '--timeout=30s'], kc);
    const { stdout } = await kubectl(['get', 'pods', 'kc', '--no-headers'], kc);
    assert.match(stdout, /^kc\s+1\/1\s+Running\s+0\s+/);
    const described = (await kubectl(['describe', 'pod', 'kc'], kc)).stdout;
    assert.match(described, /Status:\s+Running/);
    assert.match(described, /Scheduled\s.*Successfully assigned default\/kc to sim-node-\d/);
    assert.match(described, /Started\s.*Started container kc/);
    // `kubectl delete` waits for the pod to be gone; the 30 s default grace period would exceed the 20 s bound.
    await kubectl(['delete', 'pod', 'kc', '--timeout=20s'], kc);
    assert.equal(sim.cluster.get('pods', 'default', 'kc'), undefined);
  });

  test('no unexpected controller errors', () => {
    assert.deepEqual(errors, []);
  });
});
