// ResourceQuota as the real kubectl and @kubernetes/client-node meet it: creates refused with 403 and the
// API server's words once a quota is used up (object counts, pod compute resources, a custom resource,
// node ports), containers that must name what a quota tracks, scopes, dry runs, and status.used kept up to
// date by the quota controller as pods come, go and finish.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { waitFor } from '@podset/testkit';
import { useKubeSim } from './support/sim-kubectl.ts';

const k = useKubeSim('quota', {
  controllerOptions: {
    podLifecycle: 'fast',
    startupDelayMs: 0,
    startupJitterMs: 0,
    succeedAfterMs: 50,
    containerExitMs: 50,
  },
});
const { kubectl, ok } = k;

/** The error kubectl prints for a refused request (fails if it succeeded). */
async function refused(args: string[], input?: string): Promise<string> {
  const r = await kubectl(args, input);
  assert.notEqual(r.code, 0, `kubectl ${args.join(' ')} should have failed: ${r.stdout}`);
  return r.stderr.trim();
}

function pod(name: string, containers: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  const { metadata, ...spec } = extra as { metadata?: Record<string, unknown> };
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { ...(name.endsWith('-') ? { generateName: name } : { name }), ...metadata },
    spec: { containers: containers.map((c) => ({ image: 'nginx:1.27', ...c })), ...spec },
  });
}

const quotaStatus = async (ns: string, name: string) =>
  JSON.parse(await ok(['get', 'resourcequota', name, '-n', ns, '-o', 'json'])).status as
    { hard?: Record<string, string>; used?: Record<string, string> } | undefined;

async function waitForUsed(ns: string, name: string, want: Record<string, string>): Promise<void> {
  let last: unknown;
  await waitFor(
    `quota ${ns}/${name} used ${JSON.stringify(want)}`,
    async () => {
      const s = await quotaStatus(ns, name);
      last = s?.used;
      return Object.entries(want).every(([k, v]) => s?.used?.[k] === v);
    },
    { timeoutMs: 15_000 },
  ).catch((e: unknown) => {
    throw new Error(`${String(e)}; last status.used: ${JSON.stringify(last)}`);
  });
}

test('pods: the 403 once the count is used up, status.used and kubectl get/describe, a delete frees room', async () => {
  await ok(['create', 'namespace', 'count']);
  await ok(['create', 'quota', 'q1', '--hard=pods=2', '-n', 'count']);
  await waitForUsed('count', 'q1', { pods: '0' });
  await ok(['run', 'p1', '--image=nginx:1.27', '-n', 'count']);
  await ok(['run', 'p2', '--image=nginx:1.27', '-n', 'count']);
  assert.equal(
    await refused(['run', 'p3', '--image=nginx:1.27', '-n', 'count']),
    'Error from server (Forbidden): pods "p3" is forbidden: exceeded quota: q1, requested: pods=1, used: pods=2, limited: pods=2',
  );
  // A generated name is the one the server generated.
  assert.match(
    await refused(['create', '-n', 'count', '-f', '-'], pod('web-', [{ name: 'c1' }])),
    /^Error from server \(Forbidden\): error when creating "STDIN": pods "web-[a-z0-9]{5}" is forbidden: exceeded quota: q1, requested: pods=1, used: pods=2, limited: pods=2$/,
  );
  // A dry run is checked the same way.
  assert.match(
    await refused(['run', 'p3', '--image=nginx:1.27', '-n', 'count', '--dry-run=server']),
    /pods "p3" is forbidden: exceeded quota: q1/,
  );

  await waitForUsed('count', 'q1', { pods: '2' });
  assert.deepEqual((await quotaStatus('count', 'q1'))?.hard, { pods: '2' });
  const table = await ok(['get', 'resourcequota', '-n', 'count']);
  assert.match(table, /^NAME\s+AGE\s+REQUEST\s+LIMIT\n/);
  assert.match(table, /\nq1\s+\S+\s+pods: 2\/2\s*\n/);
  assert.match(await ok(['describe', 'quota', 'q1', '-n', 'count']), /pods\s+2\s+2/);

  await ok(['delete', 'pod', 'p1', '-n', 'count']); // waits until it is gone
  await ok(['run', 'p3', '--image=nginx:1.27', '-n', 'count']);
  await waitForUsed('count', 'q1', { pods: '2' });
});

test('compute resources: containers must set what the quota tracks; sums of requests and limits', async () => {
  await ok(['create', 'namespace', 'compute']);
  await ok([
    'create',
    'quota',
    'q2',
    '--hard=requests.cpu=1,limits.cpu=2,limits.memory=1Gi',
    '-n',
    'compute',
  ]);
  assert.equal(
    await refused(
      ['create', '-n', 'compute', '-f', '-'],
      pod('nolimits', [{ name: 'c1', resources: { requests: { cpu: '500m' } } }]),
    ),
    'Error from server (Forbidden): error when creating "STDIN": pods "nolimits" is forbidden: failed quota: q2: must specify limits.cpu for: c1; limits.memory for: c1',
  );
  assert.equal(
    await refused(
      ['create', '-n', 'compute', '-f', '-'],
      pod('bare', [{ name: 'b' }, { name: 'a', resources: { limits: { cpu: '1', memory: '1Mi' } } }]),
    ),
    'Error from server (Forbidden): error when creating "STDIN": pods "bare" is forbidden: failed quota: q2: must specify limits.cpu for: b; limits.memory for: b; requests.cpu for: b',
  );
  // Requests default to the limits; two containers add up.
  const half = { limits: { cpu: '300m', memory: '256Mi' } };
  await ok(
    ['create', '-n', 'compute', '-f', '-'],
    pod('a', [
      { name: 'x', resources: half },
      { name: 'y', resources: half },
    ]),
  );
  await waitForUsed('compute', 'q2', {
    'requests.cpu': '600m',
    'limits.cpu': '600m',
    'limits.memory': '512Mi',
  });
  assert.equal(
    await refused(
      ['create', '-n', 'compute', '-f', '-'],
      pod('b', [
        { name: 'x', resources: { requests: { cpu: '0.5' }, limits: { cpu: '1', memory: '0.5Gi' } } },
      ]),
    ),
    'Error from server (Forbidden): error when creating "STDIN": pods "b" is forbidden: exceeded quota: q2, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1',
  );
  await ok(
    ['create', '-n', 'compute', '-f', '-'],
    pod('c', [{ name: 'x', resources: { requests: { cpu: '0.4' }, limits: { cpu: '1', memory: '0.5Gi' } } }]),
  );
  await waitForUsed('compute', 'q2', { 'requests.cpu': '1', 'limits.cpu': '1600m', 'limits.memory': '1Gi' });
  const table = await ok(['get', 'quota', 'q2', '-n', 'compute', '--no-headers']);
  assert.match(table, /requests\.cpu: 1\/1\s+limits\.cpu: 1600m\/2, limits\.memory: 1Gi\/1Gi/);
});

test('a pod that has Succeeded no longer counts (count/pods still does); a dry run charges nothing', async () => {
  await ok(['create', 'namespace', 'phases']);
  await ok(['create', 'quota', 'q3', '--hard=pods=1,count/pods=5', '-n', 'phases']);
  await ok(
    ['create', '-n', 'phases', '-f', '-'],
    pod('done', [{ name: 'c' }], {
      restartPolicy: 'Never',
      metadata: { annotations: { 'kube-sim.podset.io/fate': 'succeed' } },
    }),
  );
  await waitFor(
    'pod done Succeeded',
    async () =>
      (await ok(['get', 'pod', 'done', '-n', 'phases', '-o', 'jsonpath={.status.phase}'])) === 'Succeeded',
    { timeoutMs: 15_000 },
  );
  await waitForUsed('phases', 'q3', { pods: '0', 'count/pods': '1' });
  await ok(['run', 'dry', '--image=nginx:1.27', '-n', 'phases', '--dry-run=server']);
  await ok(['run', 'live', '--image=nginx:1.27', '-n', 'phases']);
  await waitForUsed('phases', 'q3', { pods: '1', 'count/pods': '2' });
  assert.match(
    await refused(['run', 'more', '--image=nginx:1.27', '-n', 'phases']),
    /exceeded quota: q3, requested: pods=1, used: pods=1, limited: pods=1$/,
  );
});

test('scopes: a BestEffort quota counts only pods without requests or limits', async () => {
  await ok(['create', 'namespace', 'scoped']);
  await ok(['create', 'quota', 'be', '--hard=pods=1', '--scopes=BestEffort', '-n', 'scoped']);
  await ok(['run', 'be1', '--image=nginx:1.27', '-n', 'scoped']);
  assert.match(
    await refused(['run', 'be2', '--image=nginx:1.27', '-n', 'scoped']),
    /pods "be2" is forbidden: exceeded quota: be, requested: pods=1, used: pods=1, limited: pods=1$/,
  );
  await ok(
    ['create', '-n', 'scoped', '-f', '-'],
    pod('burstable', [{ name: 'c', resources: { requests: { memory: '64Mi' } } }]),
  );
  await waitForUsed('scoped', 'be', { pods: '1' });
});

test('object counts of any kind: secrets, node ports, and a custom resource (count/podsets.podset.io)', async () => {
  await ok(['create', 'namespace', 'objects']);
  await ok(['apply', '-f', join(import.meta.dirname, '../../../crds/podset.yaml')]);
  await ok([
    'create',
    'quota',
    'q4',
    '--hard=secrets=1,services.nodeports=1,count/podsets.podset.io=1',
    '-n',
    'objects',
  ]);
  await ok(['create', 'secret', 'generic', 's1', '--from-literal=a=b', '-n', 'objects']);
  assert.equal(
    await refused(['create', 'secret', 'generic', 's2', '--from-literal=a=b', '-n', 'objects']),
    'error: failed to create secret secrets "s2" is forbidden: exceeded quota: q4, requested: secrets=1, used: secrets=1, limited: secrets=1',
  );
  await ok(['create', 'service', 'nodeport', 'np1', '--tcp=80:80', '-n', 'objects']);
  await ok(['create', 'service', 'clusterip', 'cip', '--tcp=80:80', '-n', 'objects']);
  assert.match(
    await refused(['create', 'service', 'nodeport', 'np2', '--tcp=80:80', '-n', 'objects']),
    /services "np2" is forbidden: exceeded quota: q4, requested: services\.nodeports=1, used: services\.nodeports=1, limited: services\.nodeports=1$/,
  );
  // A Service's type can change: updates are checked too.
  assert.match(
    await refused(['patch', 'service', 'cip', '-n', 'objects', '-p', '{"spec":{"type":"NodePort"}}']),
    /services "cip" is forbidden: exceeded quota: q4, requested: services\.nodeports=1, used: services\.nodeports=1, limited: services\.nodeports=1$/,
  );
  const podset = (name: string) =>
    JSON.stringify({ apiVersion: 'podset.io/v1', kind: 'PodSet', metadata: { name }, spec: { replicas: 0 } });
  await ok(['create', '-n', 'objects', '-f', '-'], podset('ps1'));
  assert.equal(
    await refused(['create', '-n', 'objects', '-f', '-'], podset('ps2')),
    'Error from server (Forbidden): error when creating "STDIN": podsets.podset.io "ps2" is forbidden: exceeded quota: q4, requested: count/podsets.podset.io=1, used: count/podsets.podset.io=1, limited: count/podsets.podset.io=1',
  );
  await waitForUsed('objects', 'q4', {
    secrets: '1',
    'services.nodeports': '1',
    'count/podsets.podset.io': '1',
  });
});

test('client-node: the 403 is a Status with reason Forbidden and details naming the pod', async () => {
  await ok(['create', 'namespace', 'client']);
  await ok(['create', 'quota', 'q5', '--hard=count/pods=0', '-n', 'client']);
  const kc = new KubeConfig();
  kc.loadFromFile(k.sim.kubeconfigPath);
  const core = kc.makeApiClient(CoreV1Api);
  const err = await core
    .createNamespacedPod({
      namespace: 'client',
      body: { metadata: { name: 'x' }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
    })
    .then(
      () => assert.fail('the create should be refused'),
      (e: unknown) => e,
    );
  assert.ok(err instanceof ApiException);
  assert.equal(err.code, 403);
  const body = (typeof err.body === 'string' ? JSON.parse(err.body) : err.body) as Record<string, unknown>;
  assert.deepEqual(body, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message:
      'pods "x" is forbidden: exceeded quota: q5, requested: count/pods=1, used: count/pods=0, limited: count/pods=0',
    reason: 'Forbidden',
    details: { name: 'x', kind: 'pods' },
    code: 403,
  });
});

test('spec.hard: stored canonical, a negative value is a 422, a value that is no quantity a 400', async () => {
  await ok(['create', 'namespace', 'specs']);
  const quota = (name: string, hard: Record<string, unknown>) =>
    JSON.stringify({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard } });
  await ok(['apply', '-n', 'specs', '-f', '-'], quota('canon', { cpu: '1000m', memory: '1024Mi', pods: 10 }));
  const got = JSON.parse(await ok(['get', 'quota', 'canon', '-n', 'specs', '-o', 'json'])) as {
    spec: { hard: Record<string, string> };
  };
  assert.deepEqual(got.spec.hard, { cpu: '1', memory: '1Gi', pods: '10' });
  assert.equal(
    await refused(['create', '-n', 'specs', '-f', '-'], quota('neg', { pods: '-1' })),
    'The ResourceQuota "neg" is invalid: spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0',
  );
  assert.equal(
    await refused(['create', '-n', 'specs', '-f', '-'], quota('junk', { pods: 'ten' })),
    `Error from server (BadRequest): error when creating "STDIN": ResourceQuota in version "v1" cannot be handled as a ResourceQuota: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
  );
});

test('a Deployment under a pods quota: its ReplicaSet reports FailedCreate, and fills up once the quota grows', async () => {
  await ok(['create', 'namespace', 'rsquota']);
  await ok(['create', 'quota', 'q1', '--hard=pods=2', '-n', 'rsquota']);
  await waitForUsed('rsquota', 'q1', { pods: '0' });
  await ok(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3', '-n', 'rsquota']);
  type Rs = {
    metadata: { name: string };
    status?: { replicas?: number; conditions?: { type: string; status: string; message?: string }[] };
  };
  const replicaSet = async (): Promise<Rs | undefined> =>
    (JSON.parse(await ok(['get', 'replicasets', '-n', 'rsquota', '-o', 'json'])) as { items: Rs[] }).items[0];
  await waitFor(
    'the ReplicaSet at 2 of 3 with ReplicaFailure',
    async () => {
      const rs = await replicaSet();
      const failure = rs?.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
      return (
        rs?.status?.replicas === 2 &&
        failure?.status === 'True' &&
        /exceeded quota: q1/.test(failure.message ?? '')
      );
    },
    { timeoutMs: 20_000 },
  );
  const events = await ok(['get', 'events', '-n', 'rsquota', '--field-selector', 'reason=FailedCreate']);
  assert.match(
    events,
    /Error creating: pods "web-[a-z0-9]+-[a-z0-9]{5}" is forbidden: exceeded quota: q1, requested: pods=1, used: pods=2, limited: pods=2/,
  );

  await ok([
    'patch',
    'resourcequota',
    'q1',
    '-n',
    'rsquota',
    '--type=merge',
    '-p',
    '{"spec":{"hard":{"pods":"3"}}}',
  ]);
  await ok(['rollout', 'status', 'deployment/web', '-n', 'rsquota', '--timeout=60s']);
  const rs = await replicaSet();
  assert.equal(rs?.status?.replicas, 3);
  assert.equal(
    rs?.status?.conditions?.find((c) => c.type === 'ReplicaFailure'),
    undefined,
    'the failure is cleared',
  );
});
