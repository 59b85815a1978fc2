// docs/install.md's kustomize and Helm sections, run as written on a fresh kube-sim with its controllers:
// each section's first `sh` block, line by line in bash, with REGISTRY and TAG filled in. Then every
// Deployment and StatefulSet the install made rolls out, and the dashboard's token Secret is there.
// Skipped, and named here: `docker build && docker push` (no registry; kube-sim's kubelet pulls nothing)
// and `kustomize edit set image` (a standalone kustomize rewriting k8s/ in this checkout; what it sets,
// the image, kube-sim does not run). kube-sim's kubelet runs no container, so this checks the commands
// and the objects, not the apps (test/e2e runs those).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startKubeSim } from '@podset/kube-sim';
import { kubectl } from '@podset/testkit';
import { REPO } from '../../scripts/gen-chart.ts';
import { helmHomeEnv, needsHelm } from './helm-support.ts';

const NS = 'podset-system';
const SKIPPED = [/^docker build /, /kustomize edit set image/];

/** The commands of the first `sh` block under the heading that starts with `heading`, continuations joined. */
function sectionCommands(markdown: string, heading: string): string[] {
  const at = markdown.split('\n').findIndex((l) => l.startsWith(`## ${heading}`));
  assert.ok(at >= 0, `docs/install.md has a section "${heading}"`);
  const rest = markdown.split('\n').slice(at + 1);
  const open = rest.findIndex((l) => l.trim() === '```sh');
  const close = rest.findIndex((l, i) => i > open && l.trim() === '```');
  assert.ok(open >= 0 && close > open, `a sh block in "${heading}"`);
  return rest
    .slice(open + 1, close)
    .join('\n')
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

function bash(command: string, env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-euo', 'pipefail', '-c', command],
      { cwd: REPO, env, timeout: 240_000 },
      (err, so, se) =>
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, out: so + se }),
    );
  });
}

async function runSection(heading: string, ran: (commands: string[]) => void): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-install-doc-'));
  const sim = await startKubeSim({ kubeconfigPath: path.join(dir, 'kubeconfig') });
  const env = {
    ...helmHomeEnv(dir),
    KUBECONFIG: sim.kubeconfigPath,
    KUBECACHEDIR: path.join(dir, 'kube-cache'),
  };
  try {
    const doc = readFileSync(path.join(REPO, 'docs/install.md'), 'utf8');
    const commands = sectionCommands(doc, heading)
      .filter((c) => !SKIPPED.some((s) => s.test(c)))
      .map((c) =>
        c
          .replaceAll('REGISTRY', 'registry.example')
          .replaceAll(':TAG', ':1.0.0')
          .replaceAll('=TAG', '=1.0.0'),
      );
    ran(commands);
    for (const c of commands) {
      const r = await bash(c, env);
      assert.equal(r.code, 0, `${c}\n${r.out}`);
    }
    const k = (args: string[]) =>
      kubectl(args, {
        kubeconfig: sim.kubeconfigPath,
        cacheDir: env.KUBECACHEDIR,
        timeoutMs: 150_000,
        allowFail: true,
      });
    const listed = await k(['get', 'deployments,statefulsets', '-n', NS, '-o', 'name']);
    const workloads = listed.stdout.trim().split('\n').filter(Boolean);
    for (const w of [
      'deployment.apps/podset-watcher',
      'deployment.apps/podset-worker',
      'deployment.apps/podset-dashboard',
    ])
      assert.ok(workloads.includes(w), `${w} in ${workloads.join(' ')}`);
    for (const w of workloads) {
      const r = await k(['rollout', 'status', w, '-n', NS, '--timeout=120s']);
      assert.equal(r.code, 0, `${w}: ${r.stdout}${r.stderr}`);
    }
    const token = await k(['get', 'secret', 'podset-dashboard', '-n', NS, '-o', 'jsonpath={.data.token}']);
    assert.equal(token.code, 0, token.stderr);
    assert.ok(token.stdout.length > 0, 'the dashboard token Secret has a token');
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('install.md, "On any cluster: kustomize": the commands as written install an operator that rolls out', async () => {
  await runSection('On any cluster: kustomize', (commands) => {
    assert.ok(commands.includes('kubectl apply -k k8s/'), commands.join('\n'));
  });
});

test(
  'install.md, "With Helm": the commands as written install a release that rolls out',
  needsHelm,
  async () => {
    await runSection('With Helm', (commands) => {
      assert.ok(
        commands.some((c) => c.startsWith('helm install podset-operator charts/podset-operator')),
        commands.join('\n'),
      );
    });
  },
);
