// k8s/ and every overlay render with every supported kubectl, 1.27 (kustomize v5.0) to 1.33 (v5.6), to
// the same text: users run the kubectl that matches their cluster, and managed clusters still run 1.27+.
// (Kustomize before v5.4 reads one document per patch file; a patch file of several documents fails
// there with "unable to parse SM or JSON patch".) The clients are `kubectl.1.NN`, installed beside
// `kubectl`; on a machine without them the missing versions skip and say so, in CI they fail.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { KUBECTL_MINORS, KUSTOMIZATIONS, allKustomizations, kubectlClients, kustomize } from './manifests.ts';
import { REPO } from './support.ts';

const clients = kubectlClients();
const missing = KUBECTL_MINORS.filter((m) => !clients.has(m)).map((m) => `kubectl.1.${m}`);

function kustomizeWith(kubectl: string, dir: string): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    execFile(
      kubectl,
      ['kustomize', path.join(REPO, dir)],
      { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 60_000 },
      (err, stdout, stderr) => resolve(err === null ? { ok: true, out: stdout } : { ok: false, out: stderr }),
    );
  });
}

test('the supported kubectl versions are installed (in CI all of them)', (t) => {
  if (missing.length > 0 && process.env.CI === undefined)
    t.skip(`not installed: ${missing.join(', ')}; those versions are not checked here`);
  else assert.deepEqual(missing, [], 'every supported kubectl is installed beside kubectl');
});

test('every kustomization the tests render is among those checked here', () => {
  const all = allKustomizations();
  for (const k of KUSTOMIZATIONS) assert.ok(all.includes(k), k);
});

/** The first line where two renderings differ, to name in a failure. */
function firstDifference(a: string, b: string): string {
  const x = a.split('\n');
  const y = b.split('\n');
  const i = x.findIndex((line, n) => line !== y[n]);
  const at = i === -1 ? x.length : i;
  return `line ${at + 1}: ${JSON.stringify(x[at])} vs ${JSON.stringify(y[at])}`;
}

const noClients = {
  skip: clients.size === 0 && process.env.CI === undefined ? 'no kubectl.1.NN is installed' : false,
};

for (const dir of allKustomizations()) {
  test(
    `${dir}: renders with kubectl 1.${KUBECTL_MINORS[0]} to 1.${KUBECTL_MINORS.at(-1)}, to the same text as kubectl`,
    noClients,
    async () => {
      const want = kustomize(dir);
      assert.ok(want.includes('kind: '), 'kubectl kustomize renders objects');
      const problems: string[] = [];
      for (const [minor, kubectl] of clients) {
        const r = await kustomizeWith(kubectl, dir);
        if (!r.ok) problems.push(`kubectl 1.${minor} fails: ${r.out.trim().slice(0, 400)}`);
        else if (r.out !== want)
          problems.push(`kubectl 1.${minor} renders otherwise: ${firstDifference(r.out, want)}`);
      }
      assert.ok(clients.size > 0, 'no kubectl.1.NN is installed: nothing was checked');
      assert.deepEqual(problems, []);
    },
  );
}
