// Reloading a kubeconfig file after a failure: only when its text changed and it loads, at most as often as the
// backoff allows (a CA wrong for good must not make every failed request read the file), once per change.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadKubeConfig } from './kubeconfig.ts';
import {
  kubeConfigGeneration,
  kubeConfigWorked,
  onKubeConfigReload,
  reloadKubeConfigIfChanged,
  tlsVerificationCode,
  type KubeConfigReload,
} from './kubeconfig-reload.ts';

const config = (server: string) =>
  [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{ name: c, cluster: { server: "${server}" } }]`,
    'users: [{ name: u, user: { token: t } }]',
    'contexts: [{ name: x, context: { cluster: c, user: u } }]',
    'current-context: x',
  ].join('\n');

test('a changed file is read back after the backoff, not before; a broken one is not applied', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kube-reload-'));
  try {
    const file = path.join(dir, 'kubeconfig');
    writeFileSync(file, config('https://a.test:6443'));
    const kc = loadKubeConfig({ kubeconfig: file });
    const heard: KubeConfigReload[] = [];
    onKubeConfigReload(kc, (r) => heard.push(r));
    const reload = (now: number) => reloadKubeConfigIfChanged(kc, 'test', now);
    const server = () => kc.getCurrentCluster()?.server;

    assert.equal(reload(0), false, 'unchanged: nothing to do; next look in 1 s');
    writeFileSync(file, config('https://b.test:6443'));
    assert.equal(reload(999), false, 'within the backoff the file is not read');
    assert.equal(server(), 'https://a.test:6443');
    assert.equal(reload(1000), true);
    assert.equal(server(), 'https://b.test:6443');
    assert.equal(kubeConfigGeneration(kc), 1);
    assert.deepEqual(heard, [{ path: file, reason: 'test', generation: 1 }]);

    // A look 1 s after the reload finds nothing new; the next waits 2 s.
    assert.equal(reload(2000), false);
    writeFileSync(file, 'clusters: [');
    assert.equal(reload(2999), false);
    assert.equal(reload(3000), false, 'a half-written file is not applied');
    assert.equal(server(), 'https://b.test:6443');
    writeFileSync(file, config('https://c.test:6443'));
    assert.equal(reload(4999), false, 'the look after a broken file waits 2 s');
    assert.equal(reload(5000), true);
    assert.equal(server(), 'https://c.test:6443');
    assert.equal(heard.length, 2, 'one notice per change');

    // Unchanged looks double the wait (1 s, 2 s, 4 s…) until a request gets through: then the next failure
    // looks at once.
    assert.equal(reload(6000), false);
    assert.equal(reload(7000), false);
    writeFileSync(file, config('https://d.test:6443'));
    assert.equal(reload(8999), false, 'backing off');
    kubeConfigWorked(kc);
    assert.equal(reload(8999), true);
    assert.equal(server(), 'https://d.test:6443');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('tlsVerificationCode finds the OpenSSL code on the error or in its causes, and nothing else', () => {
  const tls = Object.assign(new Error('unable to verify the first certificate'), {
    code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  });
  assert.equal(tlsVerificationCode(tls), 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  assert.equal(
    tlsVerificationCode(new Error('GET https://x', { cause: tls })),
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  );
  const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  assert.equal(tlsVerificationCode(refused), undefined);
  assert.equal(tlsVerificationCode('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), undefined);
});
