// The operator end to end on any cluster: create, scale, Progressing True when healthy, a scale's status
// seen climbing and falling pass by pass, a rollout within its bounds, a progress deadline, Events, the
// leading watcher SIGKILLed, a pod relabelled out of its PodSet (released) and back (adopted), deletion with
// garbage collection (background, foreground, and orphan: the pods stay) — run twice, as deployed (the
// shipped RBAC, a ServiceAccount token per app) and as a developer runs it (the admin kubeconfig), each in a
// namespace of its own that is removed at the end.
//
// The cluster: PODSET_TEST_CLUSTER_KUBECONFIG (`npm run test:cluster -- --kubeconfig PATH`), else a kube-sim
// this file starts from its CLI (what `npm test` and CI run). KUBECONFIG is never read here. Everything is
// observed through the API (list+watch, kubectl), never through kube-sim's insides; scenarios that need
// kube-sim's fault injection are skipped on other clusters. See docs/testing.md.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { waitFor } from '@podset/testkit';
import type { KubeObject } from '@podset/kube-sim';
import {
  activePodsOf,
  controlledBy,
  isActive,
  isReady,
  podSetProblems,
  specReplicas,
} from '../e2e/support/check.ts';
import { NamespaceView } from './support/observe.ts';
import { Operator, type Identity } from './support/operator.ts';
import { openTarget, Target } from './support/target.ts';

/** Generous: on a real cluster pods pull an image and start for real. */
const CONVERGE_MS = 120_000;
const HASH_LABEL = 'podset.io/template-hash';
const NEEDS_KUBE_SIM = 'needs kube-sim (fault injection through its control API)';

let target: Target;
before(async () => {
  target = await openTarget();
  await target.ensureCrd();
});
after(async () => {
  await target?.close();
});

/** A PodSet with a cheap template: pods that sleep, stop at once, and take 1 s to be killed on a kubelet. */
function podSet(
  name: string,
  namespace: string,
  replicas: number,
  opts: { revision?: string; neverReady?: boolean; progressDeadlineSeconds?: number } = {},
): Record<string, unknown> {
  const container: Record<string, unknown> = {
    name: 'app',
    image: 'busybox:1.36',
    command: ['sleep', '3600'],
    env: [{ name: 'REVISION', value: opts.revision ?? '1' }],
    // What the `restricted` Pod Security Standard asks, so namespaces that enforce it admit the pods.
    securityContext: {
      runAsNonRoot: true,
      runAsUser: 65534,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    },
  };
  // A kubelet runs the probe (it always fails); kube-sim and the node agent read the fate annotation.
  if (opts.neverReady) container.readinessProbe = { exec: { command: ['false'] }, periodSeconds: 1 };
  return {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name, namespace },
    spec: {
      replicas,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } },
      ...(opts.progressDeadlineSeconds ? { progressDeadlineSeconds: opts.progressDeadlineSeconds } : {}),
      template: {
        metadata: {
          labels: { app: name },
          ...(opts.neverReady ? { annotations: { 'kube-sim.podset.io/fate': 'never-ready' } } : {}),
        },
        spec: { terminationGracePeriodSeconds: 1, containers: [container] },
      },
    },
  };
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface PodSetStatus {
  replicas?: number;
  templateHash?: string;
  updatedReplicas?: number;
  availableReplicas?: number;
  conditions?: Condition[];
}
interface EventView {
  type: string;
  reason: string;
  message: string;
  involvedObject: { kind?: string; name?: string };
  source?: { component?: string };
}

for (const identity of ['deployed', 'developer'] as const satisfies Identity[]) {
  const title =
    identity === 'deployed'
      ? 'as deployed (the shipped RBAC, a ServiceAccount token per app)'
      : 'as a developer runs it (the admin kubeconfig)';
  describe(title, () => {
    let namespace: string | undefined;
    let op: Operator | undefined;
    let view: NamespaceView | undefined;
    const ns = (): string => namespace as string;
    const operator = (): Operator => op as Operator;
    const seen = (): NamespaceView => view as NamespaceView;

    before(async () => {
      const name = Target.namespaceName(identity);
      await target.createNamespace(name);
      namespace = name;
      op = await Operator.start(target, identity, namespace);
      view = await NamespaceView.open(target.kubeconfig, namespace);
    });
    after(async () => {
      await view?.close();
      if (namespace !== undefined) await target.removeNamespace(namespace, async () => await op?.stop());
      else await op?.stop();
    });

    /** Waits until `check` reports no problems; on timeout says what was still wrong and how the apps are. */
    async function until(what: string, check: () => string[], timeoutMs = CONVERGE_MS): Promise<void> {
      let last: string[] = [];
      await waitFor(
        what,
        () => {
          last = check();
          return last.length === 0;
        },
        {
          timeoutMs,
          intervalMs: 100,
          describe: () => `still wrong:\n  ${last.slice(0, 20).join('\n  ')}\n${operator().describe()}`,
        },
      );
    }
    const converged = (...names: string[]) =>
      until(`${names.join(', ')} in ${ns()} to converge`, () =>
        names.flatMap((n) => podSetProblems(seen().podSet(n), seen().pods(), n)),
      );
    const statusOf = (name: string) =>
      (seen().podSet(name) as unknown as { status?: PodSetStatus } | undefined)?.status;
    const condition = (name: string, type: string) =>
      statusOf(name)?.conditions?.find((c) => c.type === type);
    const apply = (name: string, objects: unknown[]) =>
      target.kubectl(['apply', '-f', target.writeManifest(`${ns()}-${name}.yaml`, objects)]);

    if (identity === 'deployed') {
      test("each app's token is its ServiceAccount's: allowed what its Role grants, in this namespace only", async () => {
        const canI = async (app: 'watcher' | 'worker', args: string[]) => {
          const r = await target.kubectl(['auth', 'can-i', ...args], {
            kubeconfig: operator().kubeconfigs[app],
            allowFail: true,
          });
          return `${app} ${args.join(' ')}: ${r.stdout.trim().split(/\s/)[0]}`;
        };
        const answers = [
          await canI('watcher', ['watch', 'pods', '-n', ns()]),
          await canI('watcher', ['watch', 'pods', '--all-namespaces']),
          await canI('watcher', ['create', 'pods', '-n', ns()]),
          await canI('worker', ['create', 'pods', '-n', ns()]),
          await canI('worker', ['create', 'pods', '-n', 'default']),
        ];
        assert.deepEqual(answers, [
          `watcher watch pods -n ${ns()}: yes`,
          'watcher watch pods --all-namespaces: no',
          `watcher create pods -n ${ns()}: no`,
          `worker create pods -n ${ns()}: yes`,
          'worker create pods -n default: no',
        ]);
      });
    }

    test('create: the PodSet converges and becomes Available', async () => {
      await apply('web', [podSet('web', ns(), 3)]);
      await converged('web');
      await target.kubectl(['wait', `podset/web`, '-n', ns(), '--for=condition=Available', '--timeout=60s']);
      assert.equal(condition('web', 'Available')?.status, 'True');
      operator().assertRunning();
    });

    test('kubectl scale up and down', async () => {
      for (const replicas of [5, 4]) {
        await target.kubectl(['scale', 'podset', 'web', '-n', ns(), `--replicas=${replicas}`]);
        await converged('web');
      }
      operator().assertRunning();
    });

    test('Progressing stays True on a healthy PodSet: kubectl wait for False times out, for True returns', async () => {
      await converged('web');
      await target.kubectl([
        'wait',
        'podset/web',
        '-n',
        ns(),
        '--for=condition=Progressing=True',
        '--timeout=30s',
      ]);
      const r = await target.kubectl(
        ['wait', 'podset/web', '-n', ns(), '--for=condition=Progressing=False', '--timeout=3s'],
        { allowFail: true },
      );
      assert.notEqual(
        r.code,
        0,
        `kubectl wait for Progressing=False on a healthy PodSet: ${r.stdout}${r.stderr}`,
      );
      assert.equal(condition('web', 'Progressing')?.reason, 'PodSetAvailable');
      operator().assertRunning();
    });

    test('a scale to 300 pods and back: status.replicas seen climbing and falling in steps, Progressing True', async () => {
      // A pass creates or deletes what the worker's client sends in about two seconds (100 pods at the
      // default 50 requests/s), then writes the status: 300 pods take several passes, each one seen.
      await apply('many', [podSet('many', ns(), 0)]);
      await until('many to report 0 replicas', () =>
        statusOf('many')?.conditions === undefined ? ['no status yet'] : [],
      );
      for (const [to, from] of [
        [300, 0],
        [0, 300],
      ] as const) {
        const replicas: number[] = [];
        const notProgressing: string[] = [];
        const stop = seen().watchingPodSets((ps) => {
          if (ps.metadata.name !== 'many') return;
          const st = (ps as unknown as { status?: PodSetStatus }).status;
          const n = st?.replicas ?? 0;
          if (replicas.at(-1) !== n) replicas.push(n);
          const p = st?.conditions?.find((c) => c.type === 'Progressing');
          if (p?.status !== 'True') notProgressing.push(JSON.stringify(p));
        });
        try {
          await target.kubectl(['scale', 'podset', 'many', '-n', ns(), `--replicas=${to}`]);
          await until(`many's status to say ${to} replicas`, () =>
            replicas.at(-1) === to ? [] : [`status.replicas so far: ${replicas.join(' → ')}`],
          );
        } finally {
          stop();
        }
        const between = replicas.filter((n) => n !== to && n !== from);
        assert.ok(
          between.length >= 2,
          `status.replicas from ${from} to ${to} in steps: ${replicas.join(' → ')}`,
        );
        assert.deepEqual(notProgressing, [], 'Progressing True all along');
      }
      await target.kubectl(['delete', 'podset', 'many', '-n', ns(), '--wait=true', '--timeout=120s']);
      operator().assertRunning();
    });

    test('a rollout stays within maxSurge 1 / maxUnavailable 1, seen by watching the pods', async () => {
      const before = statusOf('web')?.templateHash;
      assert.match(before ?? '', /^[0-9a-f]{10}$/, 'status.templateHash before the rollout');
      const uid = seen().podSet('web')?.metadata.uid;
      let samples = 0;
      let maxActive = 0;
      let minReady = Infinity;
      const stop = seen().sampling((pods) => {
        const active = pods.filter((p) => controlledBy(p, uid) && isActive(p));
        samples++;
        maxActive = Math.max(maxActive, active.length);
        minReady = Math.min(minReady, active.filter(isReady).length);
      });
      try {
        await apply('web', [podSet('web', ns(), 4, { revision: '2' })]);
        await until('web to roll out its new template to 4 pods', () => {
          const ps = seen().podSet('web');
          const st = statusOf('web');
          const problems = podSetProblems(ps, seen().pods(), 'web');
          if (st?.templateHash === undefined || st.templateHash === before)
            problems.push(`status.templateHash still ${st?.templateHash}`);
          const stale = ps
            ? activePodsOf(ps, seen().pods()).filter(
                (p) => p.metadata.labels?.[HASH_LABEL] !== st?.templateHash,
              )
            : [];
          if (stale.length > 0) problems.push(`${stale.length} active pods of the old template`);
          if (st?.updatedReplicas !== 4) problems.push(`updatedReplicas ${st?.updatedReplicas}`);
          if (st?.availableReplicas !== 4) problems.push(`availableReplicas ${st?.availableReplicas}`);
          const progressing = condition('web', 'Progressing')?.reason;
          if (progressing !== 'PodSetAvailable') problems.push(`Progressing reason ${progressing}`);
          return problems;
        });
      } finally {
        stop();
      }
      // Each replaced pod is at least a create, a ready and a deletion: 4 pods make at least 12 changes.
      assert.ok(samples >= 12, `watched every pod change of the rollout (saw ${samples})`);
      assert.ok(maxActive <= 5, `never more than 4 + maxSurge 1 = 5 active pods, saw ${maxActive}`);
      assert.ok(minReady >= 3, `never fewer than 4 - maxUnavailable 1 = 3 ready pods, saw ${minReady}`);
      operator().assertRunning();
    });

    test('a template that never gets ready stops at Progressing=False, ProgressDeadlineExceeded', async () => {
      await apply('stuck', [podSet('stuck', ns(), 2, { neverReady: true, progressDeadlineSeconds: 3 })]);
      await target.kubectl([
        'wait',
        'podset/stuck',
        '-n',
        ns(),
        '--for=condition=Progressing=False',
        '--timeout=90s',
      ]);
      assert.equal(condition('stuck', 'Progressing')?.reason, 'ProgressDeadlineExceeded');
      assert.equal(condition('stuck', 'Available')?.status, 'False');
      // The pods are kept where they are, not ready.
      const ps = seen().podSet('stuck');
      assert.ok(ps, 'the PodSet is there');
      const active = activePodsOf(ps, seen().pods());
      assert.equal(active.length, 2, 'its 2 pods are kept');
      assert.equal(active.filter(isReady).length, 0, 'none of them is ready');
      operator().assertRunning();
    });

    test('Events are recorded on the PodSets', async () => {
      const events = (await target.getJson<{ items: EventView[] }>(['events', '-n', ns()])).items;
      const reasons = (name: string, type: string) =>
        events
          .filter(
            (e) => e.involvedObject.kind === 'PodSet' && e.involvedObject.name === name && e.type === type,
          )
          .map((e) => e.reason);
      for (const reason of ['SuccessfulCreate', 'SuccessfulDelete', 'RolloutStarted', 'RolloutComplete']) {
        assert.ok(
          reasons('web', 'Normal').includes(reason),
          `web: Normal ${reason} among ${reasons('web', 'Normal')}`,
        );
      }
      assert.ok(
        reasons('stuck', 'Warning').includes('ProgressDeadlineExceeded'),
        `stuck: Warning ProgressDeadlineExceeded among ${reasons('stuck', 'Warning')}`,
      );
      const ours = events.filter((e) => e.involvedObject.kind === 'PodSet');
      assert.deepEqual(
        [...new Set(ours.map((e) => e.source?.component))],
        ['podset-operator'],
        'the operator reports them',
      );
    });

    test('watcher failover: the leader SIGKILLed, the standby takes the Lease, a change still converges', async () => {
      const leader = await operator().leader();
      const standby = operator().watchers.find((w) => w !== leader);
      assert.ok(standby, 'a standby watcher');
      await operator().kill(leader);
      await waitFor(
        `${standby.name} to take the Lease from ${leader.name}`,
        async () => (await operator().leaseHolder()) === standby.name,
        { timeoutMs: 60_000, intervalMs: 250, describe: () => operator().describe() },
      );
      await target.kubectl(['scale', 'podset', 'web', '-n', ns(), '--replicas=2']);
      await converged('web');
      operator().assertRunning();
    });

    test('an API server restart: every watch resumes and a change after it converges', async (t) => {
      // Whether the target is kube-sim is known only once the suite's `before` has asked it.
      if (!target.isKubeSim) {
        t.skip(NEEDS_KUBE_SIM);
        return;
      }
      const leader = await operator().leader();
      const before = operator().watchRestarts(leader);
      await target.kubectl(['create', '--raw', '/kube-sim/restart', '-f', '-'], { input: '{}' });
      // kube-sim restarts just after answering: the leader's two watches (pods, PodSets) end and resume.
      await waitFor(
        `${leader.name}'s two watches to end with the restart`,
        () => operator().watchRestarts(leader) >= before + 2,
        {
          timeoutMs: 30_000,
          intervalMs: 100,
          describe: () => operator().describe(),
        },
      );
      await waitFor(
        'the API server to answer again',
        async () => (await target.kubectl(['get', '--raw', '/readyz'], { allowFail: true })).code === 0,
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      await target.kubectl(['scale', 'podset', 'web', '-n', ns(), '--replicas=3']);
      await converged('web');
      operator().assertRunning();
    });

    test('kubectl label pod P podset.io/name-: P is released and replaced; labelled back, it is adopted', async () => {
      const ps = seen().podSet('web');
      assert.ok(ps, 'web exists');
      const uid = ps.metadata.uid;
      const p = activePodsOf(ps, seen().pods())[0];
      assert.ok(p, 'a pod of web');
      const name = p.metadata.name as string;
      const owners = () =>
        (
          seen()
            .pods()
            .find((x) => x.metadata.name === name)?.metadata.ownerReferences ?? []
        ).map((r) => r.uid);
      await target.kubectl(['label', 'pod', name, '-n', ns(), 'podset.io/name-']);
      await until(`${name} to be released and replaced`, () => [
        ...(owners().includes(uid as string) ? [`${name} still refers to web`] : []),
        ...podSetProblems(seen().podSet('web'), seen().pods(), 'web'),
      ]);
      const web = seen().podSet('web') as KubeObject;
      const now = activePodsOf(web, seen().pods());
      assert.equal(now.length, specReplicas(web), 'web has spec.replicas pods again');
      assert.ok(!now.some((x) => x.metadata.name === name), 'and the released one is not among them');
      await target.kubectl(['label', 'pod', name, '-n', ns(), 'podset.io/name=web']);
      await until(`${name} to be adopted and web to converge`, () => [
        ...(owners().includes(uid as string) ? [] : [`${name} not adopted (owners ${owners().join(', ')})`]),
        ...podSetProblems(seen().podSet('web'), seen().pods(), 'web'),
      ]);
      operator().assertRunning();
    });

    /** Waits until the PodSet and every pod it controlled are gone. */
    async function gone(name: string, uid: string | undefined): Promise<void> {
      await until(`${name} and its pods to be gone`, () => [
        ...(seen().podSet(name) ? [`PodSet ${name} still exists`] : []),
        ...seen()
          .pods()
          .filter((p: KubeObject) => controlledBy(p, uid))
          .map((p) => `pod ${p.metadata.name} still exists`),
      ]);
    }

    test('delete: the pods go with the PodSet (background, then foreground)', async () => {
      const web = seen().podSet('web')?.metadata.uid;
      const stuck = seen().podSet('stuck')?.metadata.uid;
      assert.ok(web && stuck, 'both PodSets exist');
      await target.kubectl(['delete', 'podset', 'web', '-n', ns(), '--wait=false']);
      await gone('web', web);
      await target.kubectl(['delete', 'podset', 'stuck', '-n', ns(), '--cascade=foreground', '--wait=false']);
      await gone('stuck', stuck);
    });

    test('delete --cascade=orphan: the PodSet goes, its pods stay, freed of their ownerReference', async () => {
      await apply('keep', [podSet('keep', ns(), 2)]);
      await converged('keep');
      const ps = seen().podSet('keep');
      assert.ok(ps, 'keep exists');
      const uid = ps.metadata.uid;
      const names = activePodsOf(ps, seen().pods()).map((p) => p.metadata.name as string);
      await target.kubectl(['delete', 'podset', 'keep', '-n', ns(), '--cascade=orphan', '--wait=false']);
      await until('keep to be gone and its pods freed', () => {
        const pods = seen()
          .pods()
          .filter((p) => names.includes(p.metadata.name as string));
        return [
          ...(seen().podSet('keep') ? ['PodSet keep still exists'] : []),
          ...(pods.length === names.length ? [] : [`${pods.length} of its ${names.length} pods left`]),
          ...pods.filter((p) => !isActive(p)).map((p) => `pod ${p.metadata.name} is being deleted`),
          ...pods
            .filter((p) => (p.metadata.ownerReferences ?? []).some((r) => r.uid === uid))
            .map((p) => `pod ${p.metadata.name} still refers to keep`),
        ];
      });
      await target.kubectl(['delete', 'pods', '-n', ns(), '-l', 'podset.io/name=keep', '--wait=false']);
      operator().assertRunning();
    });
  });
}
