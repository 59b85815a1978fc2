// Over TLS (kube-sim, a separate process): the pool's connections share one TLS context built from the
// kubeconfig's CA, instead of tls.connect building one per connection from the same CA.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import tls from 'node:tls';
import { Proc, freePort } from '@podset/testkit';
import { createKube, loadKubeConfig } from '../src/index.ts';

const KUBE_SIM = new URL('../../../tools/kube-sim/src/cmd/main.ts', import.meta.url).pathname;

test('connections opened together share one TLS context (not one each)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'podset-tls-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const port = await freePort();
  const sim = new Proc({
    name: 'kube-sim',
    command: process.execPath,
    args: [KUBE_SIM, '--port', String(port), '--kubeconfig', kubeconfig, '--no-controllers'],
    env: process.env,
  });
  // undici opens each connection with tls.connect (looked up on the module at the call); without a
  // secureContext in its options, tls.connect builds one from the CA in them.
  const original = tls.connect;
  const contexts: unknown[] = [];
  try {
    await sim.waitForLine(/listening on/, 20_000);
    const kube = createKube(loadKubeConfig({ kubeconfig }), { qps: 0 });
    tls.connect = ((options: tls.ConnectionOptions, ...rest: unknown[]) => {
      contexts.push(options.secureContext);
      return (original as (...args: unknown[]) => tls.TLSSocket)(options, ...rest);
    }) as typeof tls.connect;
    const get = () => kube.client.request({ verb: 'get', method: 'GET', path: '/api/v1/namespaces/default' });
    await Promise.all(Array.from({ length: 8 }, get));
    assert.ok(contexts.length >= 2, `8 requests at once opened ${contexts.length} connection(s)`);
    assert.ok(contexts[0] !== undefined, 'the connection was given a TLS context');
    assert.equal(
      new Set(contexts).size,
      1,
      `${contexts.length} connections, ${new Set(contexts).size} contexts`,
    );
    await kube.client.close();
  } finally {
    tls.connect = original;
    await sim.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
