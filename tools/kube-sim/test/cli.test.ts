// The kube-sim command: listens, writes a kubeconfig and an audit log, exits 0 on SIGTERM and SIGINT.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { Proc } from '@podset/testkit';

const NODE = process.execPath;
const MAIN = new URL('../src/cmd/main.ts', import.meta.url).pathname;

async function startCli(args: string[]) {
  const proc = new Proc({ name: 'kube-sim', command: NODE, args: [MAIN, ...args], env: process.env });
  const url = (await proc.waitForLine(/listening on (http:\/\/127\.0\.0\.1:\d+)/, 20_000))[1]!;
  return { proc, url };
}

test('kube-sim CLI: --port 0, kubeconfig with a bearer token, audit log, clean exit on SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sim-cli-'));
  try {
    const kc = join(dir, 'kubeconfig');
    const auditLog = join(dir, 'audit.jsonl');
    const { proc, url } = await startCli([
      '--port',
      '0',
      '--kubeconfig',
      kc,
      '--audit-log',
      auditLog,
      '--no-controllers',
    ]);
    const config = parse(readFileSync(kc, 'utf8')) as {
      'current-context': string;
      clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
      users: { name: string; user: { token: string } }[];
    };
    assert.equal(config['current-context'], 'kube-sim');
    assert.equal(config.clusters[0]?.cluster.server, url.replace('http:', 'https:'));
    assert.ok(config.clusters[0]?.cluster['certificate-authority-data']);
    const token = config.users[0]?.user.token as string;
    const ok = await fetch(`${url}/api/v1/namespaces/default`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(ok.status, 200);
    assert.equal((await fetch(`${url}/api/v1/namespaces/default`)).status, 401);
    assert.equal((await proc.stop()).code, 0);
    const lines = readFileSync(auditLog, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const get = lines.find((l) => l.verb === 'get' && l.resource === 'namespaces' && l.code === 200);
    assert.equal(get?.user, 'admin');
    assert.equal(get?.name, 'default');
    assert.ok(lines.some((l) => l.code === 401));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('kube-sim CLI: SIGINT exits 0; a bad flag exits 2 naming it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sim-cli-'));
  try {
    const { proc } = await startCli(['--port', '0', '--kubeconfig', join(dir, 'kc'), '--no-controllers']);
    proc.child.kill('SIGINT');
    assert.equal((await proc.exited).code, 0);
    const bad = new Proc({
      name: 'kube-sim --port x',
      command: NODE,
      args: [MAIN, '--port', 'x'],
      env: process.env,
    });
    assert.equal((await bad.exited).code, 2);
    assert.match(bad.tail(), /--port/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('kube-sim CLI: --enable-admission-plugins turns OwnerReferencesPermissionEnforcement on; an unknown plugin exits 2', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sim-cli-'));
  try {
    const { proc, url } = await startCli([
      '--port',
      '0',
      '--kubeconfig',
      join(dir, 'kc'),
      '--no-controllers',
      '--enable-admission-plugins',
      'OwnerReferencesPermissionEnforcement',
    ]);
    const config = parse(readFileSync(join(dir, 'kc'), 'utf8')) as { users: { user: { token: string } }[] };
    const admin = {
      authorization: `Bearer ${config.users[0]?.user.token}`,
      'content-type': 'application/json',
    };
    const post = (path: string, body: unknown) =>
      fetch(url + path, { method: 'POST', headers: admin, body: JSON.stringify(body) });
    await post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'maker' } });
    await post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
      metadata: { name: 'pods' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete'] }],
    });
    await post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      metadata: { name: 'maker' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pods' },
      subjects: [{ kind: 'ServiceAccount', name: 'maker', namespace: 'default' }],
    });
    const tr = await post('/api/v1/namespaces/default/serviceaccounts/maker/token', { spec: {} });
    const token = ((await tr.json()) as { status: { token: string } }).status.token;
    const created = await fetch(`${url}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        metadata: {
          name: 'p',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u', blockOwnerDeletion: true },
          ],
        },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      }),
    });
    assert.equal(created.status, 403, 'the plugin is on');
    assert.equal((await proc.stop()).code, 0);

    const bad = new Proc({
      name: 'kube-sim --enable-admission-plugins Bogus',
      command: NODE,
      args: [MAIN, '--enable-admission-plugins', 'Bogus'],
      env: process.env,
    });
    assert.equal((await bad.exited).code, 2);
    assert.match(bad.tail(), /unknown plugin "Bogus"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('kube-sim CLI: names https in its start-up line; --kubeconfig-for and --kubeconfig-dir write owner-only files', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sim-cli-'));
  try {
    const worker = join(dir, 'worker-volume', 'config');
    mkdirSync(join(dir, 'worker-volume'));
    const proc = new Proc({
      name: 'kube-sim',
      command: NODE,
      args: [
        MAIN,
        '--port',
        '0',
        '--kubeconfig',
        join(dir, 'kc'),
        '--kubeconfig-dir',
        join(dir, 'all'),
        '--kubeconfig-for',
        `worker=${worker}`,
        '--no-controllers',
      ],
      env: process.env,
    });
    // It serves TLS (what every kubeconfig uses) and plain HTTP on one port: the line says both.
    const [, http, https] = await proc.waitForLine(
      /listening on (http:\/\/\S+) and (https:\/\/\S+) /,
      20_000,
    );
    assert.equal(https?.replace('https:', 'http:'), http);
    const config = parse(readFileSync(worker, 'utf8')) as {
      clusters: { cluster: { server: string } }[];
      users: { name: string }[];
    };
    assert.equal(config.users[0]?.name, 'worker');
    assert.equal(config.clusters[0]?.cluster.server, https);
    for (const file of [worker, join(dir, 'kc'), join(dir, 'all', 'admin'), join(dir, 'all', 'viewer')]) {
      assert.equal(statSync(file).mode & 0o777, 0o600, `${file} is readable by its owner only`);
    }
    assert.deepEqual(readdirSync(join(dir, 'worker-volume')), ['config'], 'no temporary file is left');
    assert.equal((await proc.stop()).code, 0);

    for (const [spec, problem] of [
      ['worker', /--kubeconfig-for wants IDENTITY=FILE, got "worker"/],
      ['nobody=/tmp/x', /no identity "nobody" to write a kubeconfig for \(identities: admin, /],
    ] as const) {
      const bad = new Proc({
        name: `kube-sim --kubeconfig-for ${spec}`,
        command: NODE,
        args: [MAIN, '--port', '0', '--no-controllers', '--kubeconfig-for', spec],
        env: process.env,
      });
      assert.notEqual((await bad.exited).code, 0);
      assert.match(bad.tail(), problem);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
