// A port the user chose that another process holds: every command with such a port says so in one line
// on stderr, naming the port and the flag or variable that chooses it, and exits 2 — no stack trace.
// Each is run as a user runs it (`npm run …` from the repository), with the port held by a net.Server.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startKubeSim, type KubeSim } from '@podset/kube-sim';
import { startRedis, type RedisServer } from '@podset/testkit';
import { REPO } from './support/harness.ts';
import { userEnv } from './support/npm-run.ts';

let held: net.Server;
let port = 0;
let redis: RedisServer;
let sim: KubeSim;
let dir: string;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'podset-busy-port-'));
  held = net.createServer();
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  port = (held.address() as net.AddressInfo).port;
  redis = await startRedis();
  sim = await startKubeSim({ kubeconfigPath: path.join(dir, 'kubeconfig') });
});

after(async () => {
  await new Promise((resolve) => held?.close(resolve));
  await sim?.close();
  await redis?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `npm run --silent <script> -- <args>` with `env` added: its exit code and its stderr. */
function npmRun(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script, '--', ...args], {
      cwd: REPO,
      env: userEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // Bounded: a command that ignored the busy port would otherwise run until the test's timeout.
    const guard = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.once('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, stderr, stdout });
    });
  });
}

/** The environment an app needs to get as far as opening its port. */
const appEnv = (): NodeJS.ProcessEnv => ({
  KUBECONFIG: path.join(dir, 'kubeconfig'),
  REDIS_URL: redis.url,
  DASHBOARD_TOKEN: 'a-token-of-twenty-four-chars',
  LOG_LEVEL: 'warn',
});

const cases: {
  name: string;
  script: string;
  args: () => string[];
  env?: () => NodeJS.ProcessEnv;
  setting: string;
}[] = [
  { name: 'kube-sim --port', script: 'kube-sim', args: () => ['--port', String(port)], setting: '--port' },
  {
    name: 'demo --port',
    script: 'demo',
    args: () => ['--port', String(port), '--dir', dir],
    setting: '--port',
  },
  {
    name: 'demo --dashboard-port',
    script: 'demo',
    args: () => ['--dashboard-port', String(port), '--dir', dir],
    setting: '--dashboard-port',
  },
  {
    name: 'operator --dashboard --dashboard-port',
    script: 'operator',
    args: () => ['--dashboard', '--dashboard-port', String(port), '--dir', dir],
    env: () => ({ KUBECONFIG: path.join(dir, 'kubeconfig') }),
    setting: '--dashboard-port',
  },
  {
    name: 'watcher HTTP_PORT',
    script: 'watcher',
    args: () => [],
    env: () => ({ ...appEnv(), HTTP_PORT: String(port) }),
    setting: 'HTTP_PORT',
  },
  {
    name: 'worker HTTP_PORT',
    script: 'worker',
    args: () => [],
    env: () => ({ ...appEnv(), HTTP_PORT: String(port) }),
    setting: 'HTTP_PORT',
  },
  {
    name: 'dashboard DASHBOARD_PORT',
    script: 'dashboard',
    args: () => [],
    env: () => ({ ...appEnv(), DASHBOARD_HOST: '127.0.0.1', DASHBOARD_PORT: String(port) }),
    setting: 'DASHBOARD_PORT',
  },
  {
    name: 'dashboard HTTP_PORT (its probe port)',
    script: 'dashboard',
    args: () => [],
    env: () => ({ ...appEnv(), DASHBOARD_PORT: '0', HTTP_HOST: '127.0.0.1', HTTP_PORT: String(port) }),
    setting: 'HTTP_PORT',
  },
  {
    name: 'redis-scripts HTTP_PORT',
    script: 'redis-scripts',
    args: () => [],
    env: () => ({ REDIS_URL: redis.url, HTTP_PORT: String(port) }),
    setting: 'HTTP_PORT',
  },
];

for (const c of cases) {
  test(`${c.name} taken: one line naming the port and ${c.setting}, exit 2`, async () => {
    const r = await npmRun(c.script, c.args(), c.env?.() ?? {});
    const shown = `exit ${r.code}\nstderr:\n${r.stderr}\nstdout (end):\n${r.stdout.slice(-1500)}`;
    assert.equal(r.code, 2, shown);
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, shown);
    assert.match(lines[0] ?? '', new RegExp(`port ${port}\\b.* already in use.*${c.setting}`), shown);
    assert.doesNotMatch(r.stderr + r.stdout, /EADDRINUSE|\n\s+at /, shown);
  });
}
