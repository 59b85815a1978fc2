// Where the kubeconfig comes from, and what happens when there is none.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadKubeConfig } from './kubeconfig.ts';

function withEnv(vars: Record<string, string | undefined>, fn: () => void): void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

const KUBECONFIG_TEXT = [
  'apiVersion: v1',
  'kind: Config',
  'clusters: [{ name: c, cluster: { server: "https://example.test:6443" } }]',
  'users: [{ name: u, user: { token: t } }]',
  'contexts: [{ name: x, context: { cluster: c, user: u } }]',
  'current-context: x',
].join('\n');

test('nothing configured (no KUBECONFIG, no ~/.kube/config, not in a pod): an error, not localhost:8080', () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'kc-home-'));
  try {
    withEnv({ HOME: home, KUBECONFIG: undefined, KUBERNETES_SERVICE_HOST: undefined }, () => {
      assert.throws(() => loadKubeConfig(), /no Kubernetes cluster configured: KUBECONFIG is not set/);
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('~/.kube/config is used when KUBECONFIG is not set', () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'kc-home-'));
  try {
    mkdirSync(path.join(home, '.kube'));
    writeFileSync(path.join(home, '.kube', 'config'), KUBECONFIG_TEXT);
    withEnv({ HOME: home, KUBECONFIG: undefined, KUBERNETES_SERVICE_HOST: undefined }, () => {
      assert.equal(loadKubeConfig().getCurrentCluster()?.server, 'https://example.test:6443');
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('an explicit kubeconfig path wins', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kc-'));
  try {
    const file = path.join(dir, 'kc');
    writeFileSync(file, KUBECONFIG_TEXT);
    assert.equal(
      loadKubeConfig({ kubeconfig: file }).getCurrentCluster()?.server,
      'https://example.test:6443',
    );
    assert.throws(() => loadKubeConfig({ kubeconfig: path.join(dir, 'missing') }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
