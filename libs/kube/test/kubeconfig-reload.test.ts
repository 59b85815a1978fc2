// A client whose cluster got a new CA or a new token, written to the same kubeconfig file, recovers: kube-sim
// (a separate process, over TLS) restarted without a data dir has a new CA and new tokens; restarted with
// its data dir and another --token, the same CA and a new token.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Proc, freePort, waitFor } from '@podset/testkit';
import { createKube, loadKubeConfig, onKubeConfigReload, type KubeConfigReload } from '../src/index.ts';

const NODE = process.execPath;
const KUBE_SIM = new URL('../../../tools/kube-sim/src/cmd/main.ts', import.meta.url).pathname;

async function startSim(port: number, kubeconfig: string, extra: string[] = []): Promise<Proc> {
  const proc = new Proc({
    name: 'kube-sim',
    command: NODE,
    args: [KUBE_SIM, '--port', String(port), '--kubeconfig', kubeconfig, '--no-controllers', ...extra],
    env: process.env,
  });
  await proc.waitForLine(/listening on/, 20_000);
  return proc;
}

/** Restarts kube-sim as `restart` says, then waits for the client to get through again. */
async function recovers(
  dir: string,
  first: string[],
  second: string[],
  failure: RegExp,
): Promise<KubeConfigReload[]> {
  const port = await freePort();
  const kubeconfig = join(dir, 'kubeconfig');
  let sim = await startSim(port, kubeconfig, first);
  const kc = loadKubeConfig({ kubeconfig });
  const reloads: KubeConfigReload[] = [];
  onKubeConfigReload(kc, (r) => reloads.push(r));
  const kube = createKube(kc, { qps: 0, timeoutMs: 5000 });
  try {
    const get = () => kube.client.request({ verb: 'get', method: 'GET', path: '/api/v1/namespaces/default' });
    await get();
    assert.equal((await sim.stop()).code, 0);
    sim = await startSim(port, kubeconfig, second);
    const errors: string[] = [];
    await waitFor(
      'the client to reach the restarted kube-sim',
      async () => {
        try {
          return (await get()) !== undefined;
        } catch (e) {
          errors.push(`${String(e)} ${String((e as Error).cause ?? '')}`);
          return false;
        }
      },
      { intervalMs: 100, describe: () => errors.slice(-3).join('\n') },
    );
    assert.match(errors[0] ?? '', failure, 'the first request after the restart failed as the issue says');
    return reloads;
  } finally {
    await kube.client.close();
    await sim.kill();
  }
}

test('kube-sim restarted with a new CA and new tokens: the client reloads the kubeconfig file and recovers', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-reload-'));
  try {
    const reloads = await recovers(dir, [], [], /UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify/);
    assert.equal(reloads.length, 1, 'one reload for one change of the file');
    assert.match(reloads[0]?.reason ?? '', /TLS verification failed \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the same CA and a new token: a 401 reloads the kubeconfig file and the client recovers', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-reload-'));
  try {
    const data = ['--data-dir', join(dir, 'data')];
    const reloads = await recovers(
      dir,
      [...data, '--token', 'admin=first-token'],
      [...data, '--token', 'admin=second-token'],
      /Unauthorized/,
    );
    assert.deepEqual(
      reloads.map((r) => r.reason),
      ['401 Unauthorized'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
