// The workload controllers as the real kubectl sees them: a Deployment rolls out (`kubectl rollout
// status` ends with "successfully rolled out"), a new image makes a second ReplicaSet with the next
// revision, `rollout history` lists both, `rollout undo` brings the first back as revision 3, `rollout
// restart` rolls again, `kubectl scale` resizes; a ReplicaSet adopts a matching pod; Events show in
// `kubectl describe`; Jobs (NonIndexed and Indexed) run to Complete (`kubectl wait` returns), a failing one
// ends Failed with BackoffLimitExceeded; a Deployment that never gets ready exceeds its progress deadline;
// a suspended Job waits until resumed; and @kubernetes/client-node's typed APIs read the same statuses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppsV1Api, BatchV1Api, KubeConfig } from '@kubernetes/client-node';
import { waitFor } from '@podset/testkit';
import { useKubeSim } from './support/sim-kubectl.ts';

const k = useKubeSim('workloads', {
  controllerOptions: {
    podLifecycle: 'fast',
    startupDelayMs: 20,
    startupJitterMs: 80,
    succeedAfterMs: 200,
    containerExitMs: 50,
  },
});
const { kubectl, ok } = k;

const deployment = (image: string) =>
  JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image }] },
      },
    },
  });

interface RS {
  name: string;
  replicas: number;
  ready: number;
  revision: string;
  image: string;
}

async function replicaSets(): Promise<RS[]> {
  const out = await ok(['get', 'rs', '-l', 'app=web', '-o', 'json']);
  const list = JSON.parse(out) as {
    items: {
      metadata: { name: string; annotations?: Record<string, string> };
      spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
      status: { readyReplicas?: number };
    }[];
  };
  return list.items
    .map((rs) => ({
      name: rs.metadata.name,
      replicas: rs.spec.replicas,
      ready: rs.status.readyReplicas ?? 0,
      revision: rs.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? '',
      image: rs.spec.template.spec.containers[0]?.image ?? '',
    }))
    .sort((a, b) => Number(a.revision) - Number(b.revision));
}

const rolledOut = async () => {
  const out = await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
  assert.match(out, /deployment "web" successfully rolled out/);
};

test('a Deployment rolls out, rolls to a new image, lists its history, undoes and restarts', async () => {
  await ok(['apply', '-f', '-'], deployment('nginx:1.26'));
  await rolledOut();
  let rss = await replicaSets();
  assert.equal(rss.length, 1);
  assert.match(rss[0]!.name, /^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
  assert.deepEqual(
    { replicas: rss[0]!.replicas, ready: rss[0]!.ready, revision: rss[0]!.revision },
    { replicas: 3, ready: 3, revision: '1' },
  );
  const hash = rss[0]!.name.slice('web-'.length);
  const pods = JSON.parse(await ok(['get', 'pods', '-l', 'app=web', '-o', 'json'])) as {
    items: {
      metadata: { labels: Record<string, string>; ownerReferences: { kind: string; name: string }[] };
    }[];
  };
  assert.equal(pods.items.length, 3);
  for (const p of pods.items) {
    assert.equal(p.metadata.labels['pod-template-hash'], hash);
    assert.deepEqual(
      p.metadata.ownerReferences.map((r) => `${r.kind}/${r.name}`),
      [`ReplicaSet/${rss[0]!.name}`],
    );
  }
  const status = JSON.parse(await ok(['get', 'deployment', 'web', '-o', 'jsonpath={.status}'])) as {
    conditions: { type: string; status: string; reason: string; message: string }[];
    replicas: number;
    updatedReplicas: number;
    availableReplicas: number;
  };
  assert.deepEqual(
    status.conditions.map((c) => [c.type, c.status, c.reason, c.message]),
    [
      ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
      [
        'Progressing',
        'True',
        'NewReplicaSetAvailable',
        `ReplicaSet "${rss[0]!.name}" has successfully progressed.`,
      ],
    ],
  );

  // A new image: a second ReplicaSet, revision 2, takes over; the first is scaled to 0 and kept.
  await ok(['set', 'image', 'deployment/web', 'web=nginx:1.27']);
  await rolledOut();
  rss = await replicaSets();
  assert.deepEqual(
    rss.map((r) => [r.revision, r.image, r.replicas]),
    [
      ['1', 'nginx:1.26', 0],
      ['2', 'nginx:1.27', 3],
    ],
  );
  const history = await ok(['rollout', 'history', 'deployment/web']);
  assert.match(history, /REVISION\s+CHANGE-CAUSE\s*\n1\s+<none>\s*\n2\s+<none>/);
  assert.match(await ok(['rollout', 'history', 'deployment/web', '--revision=1']), /Image:\s+nginx:1\.26/);

  // Undo: the first ReplicaSet becomes the new one again, as revision 3.
  assert.match(await ok(['rollout', 'undo', 'deployment/web']), /deployment\.apps\/web rolled back/);
  await rolledOut();
  rss = await replicaSets();
  assert.deepEqual(
    rss.map((r) => [r.revision, r.image, r.replicas]),
    [
      ['2', 'nginx:1.27', 0],
      ['3', 'nginx:1.26', 3],
    ],
  );
  assert.equal(
    await ok([
      'get',
      'deployment',
      'web',
      '-o',
      'jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}',
    ]),
    '3',
  );

  // Restart: a template annotation, so a third ReplicaSet.
  await ok(['rollout', 'restart', 'deployment/web']);
  await rolledOut();
  rss = await replicaSets();
  assert.deepEqual(
    rss.map((r) => [r.revision, r.replicas]),
    [
      ['2', 0],
      ['3', 0],
      ['4', 3],
    ],
  );
});

test('a Job runs to Complete and kubectl wait returns; a failing Job ends Failed (BackoffLimitExceeded)', async () => {
  await ok(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'pi', namespace: 'default' },
      spec: {
        completions: 2,
        parallelism: 2,
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] } },
      },
    }),
  );
  assert.match(
    await ok(['wait', '--for=condition=complete', 'job/pi', '--timeout=60s']),
    /job\.batch\/pi condition met/,
  );
  const job = JSON.parse(await ok(['get', 'job', 'pi', '-o', 'json'])) as {
    metadata: { uid: string };
    status: {
      succeeded: number;
      startTime: string;
      completionTime: string;
      conditions: { type: string; reason: string }[];
    };
  };
  assert.equal(job.status.succeeded, 2);
  assert.ok(job.status.startTime && job.status.completionTime);
  assert.deepEqual(
    job.status.conditions.map((c) => [c.type, c.reason]),
    [
      ['SuccessCriteriaMet', 'CompletionsReached'],
      ['Complete', 'CompletionsReached'],
    ],
  );
  const pods = await ok([
    'get',
    'pods',
    '-l',
    'job-name=pi',
    '-o',
    'jsonpath={range .items[*]}{.status.phase} {end}',
  ]);
  assert.deepEqual(pods.trim().split(' '), ['Succeeded', 'Succeeded']);
  assert.match(await ok(['get', 'job', 'pi']), /pi\s+Complete\s+2\/2/);

  await ok(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'broken', namespace: 'default' },
      spec: {
        backoffLimit: 0,
        template: {
          metadata: { annotations: { 'kube-sim.podset.io/fate': 'fail' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'x', image: 'busybox' }] },
        },
      },
    }),
  );
  await ok(['wait', '--for=condition=failed', 'job/broken', '--timeout=60s']);
  const failed = JSON.parse(await ok(['get', 'job', 'broken', '-o', 'jsonpath={.status}'])) as {
    failed: number;
    conditions: { type: string; reason: string; message: string }[];
  };
  assert.equal(failed.failed, 1);
  assert.deepEqual(
    failed.conditions.map((c) => [c.type, c.reason, c.message]),
    [
      ['FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
      ['Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
    ],
  );
  await waitFor(
    'the BackoffLimitExceeded event',
    async () =>
      (await ok(['get', 'events', '--field-selector', 'involvedObject.name=broken'])).includes(
        'BackoffLimitExceeded',
      ),
    { timeoutMs: 10_000 },
  );
});

test('a ReplicaSet adopts a matching pod; kubectl scale; describe shows Events; a foreground delete takes the ReplicaSets and pods', async () => {
  await ok(['run', 'stray', '--image=nginx', '--labels=app=cache']);
  await ok(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'cache', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'cache' } },
        template: {
          metadata: { labels: { app: 'cache' } },
          spec: { containers: [{ name: 'c', image: 'redis' }] },
        },
      },
    }),
  );
  await waitFor(
    'the ReplicaSet ready with the adopted pod',
    async () => (await ok(['get', 'rs', 'cache', '-o', 'jsonpath={.status.readyReplicas}'])) === '2',
    { timeoutMs: 30_000 },
  );
  assert.equal(
    await ok([
      'get',
      'pod',
      'stray',
      '-o',
      'jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}',
    ]),
    'ReplicaSet/cache',
  );
  assert.equal((await ok(['get', 'pods', '-l', 'app=cache', '-o', 'name'])).trim().split('\n').length, 2);
  assert.match(
    await ok(['describe', 'pod', 'stray']),
    /Scheduled\s.*default-scheduler\s+Successfully assigned default\/stray/,
  );
  // One pod was adopted, so the ReplicaSet created one.
  assert.match(
    await ok(['describe', 'rs', 'cache']),
    /SuccessfulCreate\s.*replicaset-controller\s+Created pod: cache-\w+/,
  );

  await ok(['scale', 'deployment/web', '--replicas=5']);
  await rolledOut();
  assert.equal(await ok(['get', 'deployment', 'web', '-o', 'jsonpath={.status.availableReplicas}']), '5');
  assert.match(
    await ok(['describe', 'deployment', 'web']),
    /ScalingReplicaSet\s.*deployment-controller\s+Scaled up replica set web-\w+ from 3 to 5/,
  );

  // Deleting the Deployment in the foreground: its ReplicaSets and their pods go first (ownerReferences).
  await ok(['delete', 'deployment', 'web', '--cascade=foreground', '--timeout=60s']);
  await waitFor(
    'the ReplicaSets and pods of the deleted Deployment gone',
    async () => (await ok(['get', 'rs,pods', '-l', 'app=web', '-o', 'name'])).trim() === '',
    { timeoutMs: 30_000 },
  );
});

test('an Indexed Job completes every index; a Deployment that never gets ready exceeds its progress deadline', async () => {
  await ok(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'shards', namespace: 'default' },
      spec: {
        completions: 3,
        parallelism: 3,
        completionMode: 'Indexed',
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 's', image: 'busybox' }] } },
      },
    }),
  );
  await ok(['wait', '--for=condition=complete', 'job/shards', '--timeout=60s']);
  assert.equal(await ok(['get', 'job', 'shards', '-o', 'jsonpath={.status.completedIndexes}']), '0-2');

  await ok(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'stuck', namespace: 'default' },
      spec: {
        replicas: 1,
        progressDeadlineSeconds: 1,
        selector: { matchLabels: { app: 'stuck' } },
        template: {
          metadata: { labels: { app: 'stuck' }, annotations: { 'kube-sim.podset.io/fate': 'never-ready' } },
          spec: { containers: [{ name: 's', image: 'nginx' }] },
        },
      },
    }),
  );
  const r = await kubectl(['rollout', 'status', 'deployment/stuck', '--timeout=60s']);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /deployment "stuck" exceeded its progress deadline/);
});

test('@kubernetes/client-node: a typed Deployment reads back rolled out, a typed Job Complete, ReplicaSets listed', async () => {
  const kc = new KubeConfig();
  kc.loadFromFile(k.sim.kubeconfigPath);
  const apps = kc.makeApiClient(AppsV1Api);
  const batch = kc.makeApiClient(BatchV1Api);
  await apps.createNamespacedDeployment({
    namespace: 'default',
    body: {
      metadata: { name: 'typed' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'typed' } },
        template: {
          metadata: { labels: { app: 'typed' } },
          spec: { containers: [{ name: 'c', image: 'nginx' }] },
        },
      },
    },
  });
  const d = await waitFor(
    'the typed Deployment available',
    async () => {
      const got = await apps.readNamespacedDeploymentStatus({ name: 'typed', namespace: 'default' });
      return got.status?.availableReplicas === 2 &&
        got.status.conditions?.some((c) => c.reason === 'NewReplicaSetAvailable')
        ? got
        : undefined;
    },
    { timeoutMs: 30_000 },
  );
  assert.equal(d.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
  assert.equal(d.status?.updatedReplicas, 2);
  const rss = await apps.listNamespacedReplicaSet({ namespace: 'default', labelSelector: 'app=typed' });
  assert.equal(rss.items.length, 1);
  assert.equal(rss.items[0]?.metadata?.ownerReferences?.[0]?.name, 'typed');
  assert.equal(rss.items[0]?.status?.availableReplicas, 2);

  await batch.createNamespacedJob({
    namespace: 'default',
    body: {
      metadata: { name: 'typed-job' },
      spec: {
        template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } },
      },
    },
  });
  const job = await waitFor(
    'the typed Job Complete',
    async () => {
      const got = await batch.readNamespacedJobStatus({ name: 'typed-job', namespace: 'default' });
      return got.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')
        ? got
        : undefined;
    },
    { timeoutMs: 30_000 },
  );
  assert.equal(job.status?.succeeded, 1);
  assert.ok(job.status?.completionTime instanceof Date);
});

test('a suspended Job runs no pod until resumed, then completes', async () => {
  await ok(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'later', namespace: 'default' },
      spec: {
        suspend: true,
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'l', image: 'busybox' }] } },
      },
    }),
  );
  await ok(['wait', '--for=condition=suspended', 'job/later', '--timeout=60s']);
  assert.equal((await ok(['get', 'pods', '-l', 'job-name=later', '-o', 'name'])).trim(), '');
  await ok(['patch', 'job', 'later', '--type=merge', '-p', '{"spec":{"suspend":false}}']);
  await ok(['wait', '--for=condition=complete', 'job/later', '--timeout=60s']);
  const conditions = JSON.parse(await ok(['get', 'job', 'later', '-o', 'jsonpath={.status.conditions}'])) as {
    type: string;
    status: string;
    reason: string;
  }[];
  assert.deepEqual(
    conditions.map((c) => [c.type, c.status, c.reason]),
    [
      ['Suspended', 'False', 'JobResumed'],
      ['SuccessCriteriaMet', 'True', 'CompletionsReached'],
      ['Complete', 'True', 'CompletionsReached'],
    ],
  );
});
