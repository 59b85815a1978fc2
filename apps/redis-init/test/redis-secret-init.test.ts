// The install's Job entry point (apps/redis-init/src/redis-secret-init.ts) as the process it runs as, against an API
// server address that refuses connections: the port-only warning and the line naming the NetworkPolicy,
// each once, then the failure; a bad API_SERVER_EGRESS is exit 2 naming the variable.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Proc, freePort } from '@podset/testkit';

const NODE = process.execPath;
const INIT = new URL('../src/redis-secret-init.ts', import.meta.url).pathname;

let dir: string;
let kubeconfig: string;
let server: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'secret-init-'));
  server = `http://127.0.0.1:${await freePort()}`;
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
  );
});

after(() => rmSync(dir, { recursive: true, force: true }));

async function run(egress: string): Promise<{ code: number | null; lines: string[] }> {
  const proc = new Proc({
    name: 'redis-secret-init',
    command: NODE,
    args: [INIT],
    env: {
      PATH: process.env.PATH,
      KUBECONFIG: kubeconfig,
      POD_NAMESPACE: 'podset-system',
      API_SERVER_EGRESS: egress,
    },
  });
  const exit = await proc.exited;
  return { code: exit.code, lines: proc.lines() };
}

test('refused: the port-only warning and the line naming podset-api-server-egress, once each', async () => {
  const { code, lines } = await run('port-only');
  assert.notEqual(code, 0, lines.join('\n'));
  const warned = lines.filter((l) => l.startsWith('redis-secret-init: warning: '));
  assert.equal(warned.filter((l) => l.includes('limited by port only')).length, 1, lines.join('\n'));
  const unreachable = warned.filter((l) => l.includes('cannot reach the API server'));
  assert.equal(unreachable.length, 1, lines.join('\n'));
  assert.match(unreachable[0]!, new RegExp(`at ${server} \\(ECONNREFUSED\\)`));
  assert.match(unreachable[0]!, /NetworkPolicy podset-api-server-egress in namespace podset-system/);
});

test('a bad API_SERVER_EGRESS is exit 2 naming the variable and its values', async () => {
  const { code, lines } = await run('any');
  assert.equal(code, 2, lines.join('\n'));
  assert.match(lines.join('\n'), /API_SERVER_EGRESS: must be one of port-only, confined, got "any"/);
});
