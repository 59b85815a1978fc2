import assert from 'node:assert/strict';
import { registerHooks } from 'node:module';
import { test } from 'node:test';

// This file's process imports nothing that loads client-node before the hook is in place (the test runner
// runs each file in a process of its own).
test('importing libs/kube does not load @kubernetes/client-node; loading a kubeconfig does', async () => {
  const loads: string[] = [];
  const hooks = registerHooks({
    resolve(specifier, context, nextResolve) {
      if (specifier === '@kubernetes/client-node') loads.push(specifier);
      return nextResolve(specifier, context);
    },
  });
  try {
    const kube = await import('./index.ts');
    assert.deepEqual(loads, [], 'imported with the library');
    // A missing file: the KubeConfig is built (client-node loaded) before the file is read.
    assert.throws(() => kube.loadKubeConfig({ kubeconfig: '/nonexistent/kubeconfig' }));
    assert.deepEqual(loads, ['@kubernetes/client-node'], 'loaded on first use, once');
  } finally {
    hooks.deregister();
  }
});
