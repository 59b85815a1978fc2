// The real kubectl against kube-sim: the kubeconfig it writes just works.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { freePort, kubectl as runKubectl, type KubectlResult } from '@podset/testkit';
import { type KubeSim, startKubeSim } from '../src/index.ts';

let sim: KubeSim;
let cacheDir: string;

async function kubectl(...args: string[]): Promise<KubectlResult> {
  return runKubectl(args, { kubeconfig: sim.kubeconfigPath, cacheDir, timeoutMs: 30_000 });
}

before(async () => {
  sim = await startKubeSim({ controllers: false });
  cacheDir = mkdtempSync(join(tmpdir(), 'kube-sim-kubectl-'));
});
after(async () => {
  await sim.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

test('kubectl get namespaces lists the built-in namespaces as a table', async () => {
  const { stdout } = await kubectl('get', 'namespaces');
  const lines = stdout.trim().split('\n');
  assert.match(lines[0] ?? '', /^NAME\s+STATUS\s+AGE$/);
  const names = lines.slice(1).map((l) => l.split(/\s+/)[0]);
  assert.ok(names.includes('default') && names.includes('kube-system'), stdout);
});

test('kubectl create namespace x, then get it; the audit names the admin identity and kubectl', async () => {
  const { stdout } = await kubectl('create', 'namespace', 'x');
  assert.match(stdout, /namespace\/x created/);
  const got = JSON.parse((await kubectl('get', 'namespace', 'x', '-o', 'json')).stdout) as {
    metadata: { name: string; uid: string };
    status: { phase: string };
  };
  assert.equal(got.metadata.name, 'x');
  assert.equal(got.status.phase, 'Active');
  const created = sim.audit.query({ verb: 'create', resource: 'namespaces', name: 'x' });
  assert.equal(created.length, 1);
  assert.equal(created[0]?.user, 'admin');
  assert.equal(created[0]?.code, 201);
  assert.match(created[0]?.userAgent ?? '', /^kubectl\//);
  await assert.rejects(kubectl('create', 'namespace', 'x'), /AlreadyExists|already exists/);
});

test('kubeconfigs per identity for an advertised URL: TLS verifies as localhost, identities stay apart', async () => {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'kube-sim-kcdir-'));
  const other = await startKubeSim({
    host: '0.0.0.0',
    port,
    advertiseUrl: `https://127.0.0.2:${port}`,
    kubeconfigDir: dir,
    controllerOptions: { nodes: 1, podLifecycle: false },
  });
  try {
    const kc = readFileSync(join(dir, 'worker'), 'utf8');
    assert.match(kc, new RegExp(`server: https://127\\.0\\.0\\.2:${port}`));
    assert.match(kc, /tls-server-name: localhost/);
    const { stdout } = await runKubectl(['get', 'nodes', '-o', 'name'], {
      kubeconfig: join(dir, 'worker'),
      cacheDir,
      timeoutMs: 30_000,
    });
    assert.equal(stdout.trim(), 'node/sim-node-1');
    assert.equal(other.audit.query({ user: 'worker', verb: 'list', resource: 'nodes' }).length, 1);
    await assert.rejects(
      runKubectl(['create', 'namespace', 'nope'], {
        kubeconfig: join(dir, 'viewer'),
        cacheDir,
        timeoutMs: 30_000,
      }),
      /Forbidden/,
    );
    // run-time controller options (chaos tests): over the control API as over the handle
    const res = await fetch(`${other.url}/kube-sim/controllers`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${other.tokens.admin}` },
      body: JSON.stringify({ failFraction: 0.25 }),
    });
    assert.equal(res.status, 200);
    assert.equal(other.controllers?.options().failFraction, 0.25);
  } finally {
    await other.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('kubectl create token and auth can-i: a service account token is held to the stored RBAC', async () => {
  await kubectl('create', 'serviceaccount', 'bot', '-n', 'default');
  const token = (await kubectl('create', 'token', 'bot', '-n', 'default')).stdout.trim();
  assert.ok(token.length > 10);
  await assert.rejects(kubectl('--token', token, 'get', 'configmaps', '-n', 'default'), /Forbidden/);
  await kubectl('create', 'role', 'cm-read', '--verb=get,list', '--resource=configmaps', '-n', 'default');
  await kubectl(
    'create',
    'rolebinding',
    'bot-cm',
    '--role=cm-read',
    '--serviceaccount=default:bot',
    '-n',
    'default',
  );
  const canList = await kubectl('--token', token, 'auth', 'can-i', 'list', 'configmaps', '-n', 'default');
  assert.equal(canList.stdout.trim(), 'yes');
  const canDelete = await runKubectl(
    ['--token', token, 'auth', 'can-i', 'delete', 'configmaps', '-n', 'default'],
    {
      kubeconfig: sim.kubeconfigPath,
      cacheDir,
      allowFail: true,
    },
  );
  assert.equal(canDelete.code, 1, canDelete.stderr);
  assert.match(canDelete.stdout, /^no\b/);
});
