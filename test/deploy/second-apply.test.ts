// secondApplyChanges names every change of a second apply: an object kubectl did not report unchanged
// (a PodDisruptionBudget's "configured" excepted, with its reason), a resourceVersion that moved, an object
// kubectl did not report at all. A scripted kubectl stands in for the cluster.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALWAYS_CONFIGURED, secondApplyChanges, type RunKubectl } from './second-apply.ts';

function scripted(applies: string[], versions: Record<string, string>[]): RunKubectl {
  let apply = 0;
  let get = 0;
  return (args) => {
    if (args[0] === 'apply') return Promise.resolve({ code: 0, stdout: applies[apply++] ?? '', stderr: '' });
    const rv = versions[get++] ?? {};
    const items = Object.entries(rv).map(([name, resourceVersion]) => {
      const [kind, n] = name.split('/');
      return { kind, metadata: { name: n, namespace: 'ns', resourceVersion } };
    });
    return Promise.resolve({ code: 0, stdout: JSON.stringify({ items }), stderr: '' });
  };
}

const first = 'deployment.apps/web created\npoddisruptionbudget.policy/web created\n';

test('a second apply that reports every object unchanged and moves no resourceVersion changes nothing', async () => {
  const rv = { 'Deployment/web': '5', 'PodDisruptionBudget/web': '6' };
  const again = 'deployment.apps/web unchanged\npoddisruptionbudget.policy/web configured\n';
  const r = await secondApplyChanges(scripted([first, again], [rv, rv]), ['-k', 'dir']);
  assert.deepEqual(r, { changes: [], objects: 2 });
  assert.ok(ALWAYS_CONFIGURED.has('poddisruptionbudget.policy'));
});

test('"configured", a moved resourceVersion and an unreported object are changes', async () => {
  const before = { 'Deployment/web': '5', 'StatefulSet/db': '7', 'Service/db': '8' };
  const after = { 'Deployment/web': '9', 'StatefulSet/db': '7', 'Service/db': '8' };
  const again = 'deployment.apps/web unchanged\nstatefulset.apps/db configured\n';
  const r = await secondApplyChanges(scripted([first, again], [before, after]), ['-k', 'dir']);
  assert.deepEqual(r.changes, [
    'statefulset.apps/db configured',
    'kubectl reported 2 objects of the 3 applied',
    'Deployment ns/web: resourceVersion 5 → 9',
  ]);
});
