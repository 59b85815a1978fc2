// kube-sim serves TLS with a certificate it generated at start: no private key is kept in the repository,
// and clients trust it only through the kubeconfig kube-sim wrote.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { startKubeSim } from '../src/index.ts';

// Asynchronous: kube-sim serves from this very process.
const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../../..');

test('no private key in the repository', () => {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: REPO, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  const found = files.filter((f) => {
    try {
      return /-----BEGIN (RSA |EC )?PRIVATE KEY-----/.test(readFileSync(path.join(REPO, f), 'utf8'));
    } catch {
      return false; // a directory (submodule) or unreadable
    }
  });
  assert.deepEqual(found, []);
});

test('kubectl trusts kube-sim through the CA in the kubeconfig it wrote, and only through it', async () => {
  const sim = await startKubeSim({ controllerOptions: { podLifecycle: false } });
  try {
    const kubeconfig = readFileSync(sim.kubeconfigPath, 'utf8');
    const caData = /certificate-authority-data: (\S+)/.exec(kubeconfig)?.[1] ?? '';
    assert.equal(Buffer.from(caData, 'base64').toString(), sim.caCert, 'the kubeconfig carries the CA');
    const ok = await run('kubectl', [
      '--kubeconfig',
      sim.kubeconfigPath,
      'get',
      'ns',
      'default',
      '-o',
      'name',
    ]);
    assert.equal(ok.stdout.trim(), 'namespace/default');
    // Without the CA, the certificate is not trusted.
    const noCa = path.join(path.dirname(sim.kubeconfigPath), 'kubeconfig-no-ca');
    writeFileSync(noCa, kubeconfig.replace(/ {4}certificate-authority-data: \S+\n/, ''));
    let err = '';
    try {
      await run('kubectl', ['--kubeconfig', noCa, 'get', 'ns', 'default', '--request-timeout=10s']);
    } catch (e) {
      err = String((e as { stderr?: string }).stderr);
    }
    assert.match(err, /certificate signed by unknown authority/);
  } finally {
    await sim.close();
  }
});
