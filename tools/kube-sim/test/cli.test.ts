// The kube-sim command: listens, writes a kubeconfig and an audit log, exits 0 on SIGTERM and SIGINT.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';

const NODE = process.execPath;
const MAIN = new URL('../src/main.ts', import.meta.url).pathname;

async function startCli(args: string[]) {
  const child = spawn(NODE, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line: ${out} ${err}`)), 20_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out} ${err}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, url, exited, stderr: () => err };
}

test('kube-sim CLI: --port 0, kubeconfig with a bearer token, audit log, clean exit on SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sim-cli-'));
  try {
    const kc = join(dir, 'kubeconfig');
    const auditLog = join(dir, 'audit.jsonl');
    const { child, url, exited } = await startCli([
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
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
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
    const { child, exited } = await startCli([
      '--port',
      '0',
      '--kubeconfig',
      join(dir, 'kc'),
      '--no-controllers',
    ]);
    child.kill('SIGINT');
    assert.equal(await exited, 0);
    const bad = spawn(NODE, [MAIN, '--port', 'x'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    bad.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => bad.on('exit', resolve));
    assert.equal(code, 2);
    assert.match(err, /--port/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
