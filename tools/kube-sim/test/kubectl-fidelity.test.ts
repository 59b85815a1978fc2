// What the real kubectl sees of kube-sim where a cluster has behaviour of its own: a `default`
// ServiceAccount in every namespace (kube-controller-manager's ServiceAccount controller), invalid pods
// refused with the API server's causes, a kind whose CRD is not installed, and exec / attach / cp /
// port-forward, which need a kubelet kube-sim does not run.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { kubectl as runKubectl, waitFor } from '@podset/testkit';
import { startKubeSim, type KubeSim } from '../src/index.ts';

let sim: KubeSim;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kube-sim-kubectl-'));
  sim = await startKubeSim({ controllerOptions: { podLifecycle: false } });
});
after(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

const kubectl = (args: string[]) =>
  runKubectl(args, { kubeconfig: sim.kubeconfigPath, cacheDir: join(dir, 'cache'), allowFail: true });

test('kubectl sees a default ServiceAccount in every namespace, a new one included', async () => {
  await kubectl(['create', 'namespace', 'team-a']);
  await waitFor(
    'a default ServiceAccount in default, kube-system and team-a',
    async () => {
      const r = await kubectl([
        'get',
        'serviceaccounts',
        '-A',
        '-o',
        'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}',
      ]);
      const seen = r.stdout.trim().split(/\s+/);
      return ['default/default', 'kube-system/default', 'team-a/default'].every((s) => seen.includes(s));
    },
    { timeoutMs: 10_000 },
  );
  const sa = await kubectl(['get', 'serviceaccount', 'default', '-n', 'team-a', '-o', 'name']);
  assert.equal(sa.stdout.trim(), 'serviceaccount/default');
});

async function apply(name: string, spec: unknown) {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec }));
  return await runKubectl(['apply', '-f', file], {
    kubeconfig: sim.kubeconfigPath,
    cacheDir: join(dir, 'cache'),
    allowFail: true,
  });
}

test("kubectl apply of invalid pods: the API server's causes, nothing stored", async () => {
  const cases: [string, unknown, RegExp][] = [
    [
      'no-containers',
      { containers: [] },
      /The Pod "no-containers" is invalid: spec\.containers: Required value/,
    ],
    [
      'bad-restart',
      { restartPolicy: 'Sometimes', containers: [{ name: 'a', image: 'x' }] },
      /spec\.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"/,
    ],
    [
      'bad-port',
      { containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 70000 }] }] },
      /spec\.containers\[0\]\.ports\[0\]\.containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive/,
    ],
    [
      'string-port',
      { containers: [{ name: 'a', image: 'x', ports: [{ containerPort: '80' }] }] },
      /cannot unmarshal string into Go struct field ContainerPort\.spec\.containers\.ports\.containerPort of type int32/,
    ],
    ['Bad_Name', { containers: [{ name: 'a', image: 'x' }] }, /metadata\.name: Invalid value: "Bad_Name"/],
  ];
  for (const [name, spec, message] of cases) {
    const r = await apply(name, spec);
    assert.notEqual(r.code, 0, `${name} is refused`);
    assert.match(r.stderr, message, name);
    assert.equal(sim.cluster.get('pods', 'default', name), undefined, `${name} is not stored`);
  }
  const good = await apply('good', {
    containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 80 }] }],
  });
  assert.equal(good.code, 0, good.stderr);
  assert.ok(sim.cluster.get('pods', 'default', 'good'));
});

test('kubectl apply of a kind whose CRD is not installed: the error a cluster gives', async () => {
  const file = join(dir, 'widget.json');
  writeFileSync(
    file,
    JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} }),
  );
  const r = await kubectl(['apply', '-f', file]);
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /no matches for kind "Widget" in version "example\.com\/v1"\s+ensure CRDs are installed first/,
  );
});

test('exec, attach, cp and port-forward: answered as by an API server that cannot reach the kubelet', async () => {
  const pod = (name: string, nodeName?: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'app', image: 'busybox' }] },
  });
  sim.cluster.create('pods', pod('placed', 'sim-node-1'));
  sim.cluster.create('pods', pod('unplaced'));
  const dialError =
    /Error from server: error dialing backend: dial tcp \S+:10250: connect: connection refused/;
  for (const args of [
    ['exec', 'placed', '--', 'ls'],
    ['attach', 'placed'],
    ['cp', 'placed:/etc/hosts', join(dir, 'hosts')],
  ]) {
    const r = await kubectl(args);
    assert.notEqual(r.code, 0, args.join(' '));
    assert.match(r.stderr, dialError, args.join(' '));
  }
  const bad = await kubectl(['exec', 'placed', '-c', 'nope', '--', 'ls']);
  assert.match(bad.stderr, /container nope is not valid for pod placed/);
  const unplaced = await kubectl(['exec', 'unplaced', '--', 'ls']);
  assert.match(unplaced.stderr, /pod unplaced does not have a host assigned/);

  // port-forward's upgrade request (kubectl checks the pod is Running first): the same dial error.
  const { request } = await import('node:http');
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${sim.url}/api/v1/namespaces/default/pods/placed/portforward`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sim.tokens.admin}`, connection: 'Upgrade', upgrade: 'SPDY/3.1' },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('upgrade', () => reject(new Error('kube-sim switched protocols')));
    req.on('error', reject);
    req.end();
  });
  assert.equal(answer.status, 500);
  assert.match(answer.body, /error dialing backend: dial tcp \S+:10250: connect: connection refused/);
  // and kube-sim is still serving
  assert.equal((await kubectl(['get', 'pod', 'placed', '-o', 'name'])).stdout.trim(), 'pod/placed');
});

test('a ReplicationController gets its pods; kubectl get, scale and delete it as on a cluster', async () => {
  const file = join(dir, 'rc.json');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name: 'frontend' },
      spec: {
        replicas: 2,
        selector: { app: 'frontend' },
        template: {
          metadata: { labels: { app: 'frontend' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }] }] },
        },
      },
    }),
  );
  assert.equal((await kubectl(['apply', '-f', file])).code, 0);
  const podsOf = () =>
    sim.cluster
      .list('pods', 'default')
      .filter((p) => !p.metadata.deletionTimestamp && p.metadata.labels?.app === 'frontend');
  await waitFor('2 pods of the ReplicationController', () => podsOf().length === 2 || undefined, {
    timeoutMs: 10_000,
  });
  await waitFor(
    'kubectl get rc to show DESIRED 2 CURRENT 2',
    async () =>
      /^frontend\s+2\s+2\s+0\s+/m.test((await kubectl(['get', 'rc', 'frontend'])).stdout) || undefined,
    { timeoutMs: 10_000 },
  );
  assert.equal((await kubectl(['scale', 'rc', 'frontend', '--replicas=1'])).code, 0);
  await waitFor('1 pod after kubectl scale', () => podsOf().length === 1 || undefined, { timeoutMs: 10_000 });
  assert.equal((await kubectl(['delete', 'rc', 'frontend'])).code, 0);
  await waitFor('its pods gone with it (garbage collector)', () => podsOf().length === 0 || undefined, {
    timeoutMs: 10_000,
  });
});
