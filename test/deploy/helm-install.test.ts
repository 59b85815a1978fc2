// `helm install --wait` of the chart with the default values, as a new user runs it (no --set), on kube-sim
// with its controllers: the secret-init hook Job completes, the Redis StatefulSet and the Deployments become
// ready, and helm returns deployed; `kubectl rollout status` of each workload then returns at once. The
// apiServerCIDRs are looked up in kube-sim's own default/kubernetes Endpoints. kube-sim's kubelet runs no
// container: the Job "succeeds" and the pods are Ready without their programs, so this checks the chart's
// objects and helm's wait, not the apps. helm comes from scripts/install-helm.sh; without it this skips.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startKubeSim } from '@podset/kube-sim';
import { kubectl } from '@podset/testkit';
import { CHART_DIR } from '../../scripts/gen-chart.ts';
import { helmHomeEnv, needsHelm } from './helm-support.ts';

const NS = 'podset-system';

function helm(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile('helm', args, { env, maxBuffer: 64 << 20, timeout: 240_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, out: stdout + stderr });
    });
  });
}

/** Whether any template of the chart is a `helm test` hook. */
function hasTestHooks(): boolean {
  const dir = path.join(CHART_DIR, 'templates');
  return readdirSync(dir).some((f) =>
    /helm\.sh\/hook:\s*["']?test/.test(readFileSync(path.join(dir, f), 'utf8')),
  );
}

test(
  'helm install --wait of the default chart completes on kube-sim; every Deployment and the Redis StatefulSet are ready',
  needsHelm,
  async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-helm-install-'));
    const sim = await startKubeSim({ kubeconfigPath: path.join(dir, 'kubeconfig') });
    // helm's own cache and config in the temp dir, not the user's.
    const env = helmHomeEnv(dir);
    const kc = ['--kubeconfig', sim.kubeconfigPath];
    const k = (args: string[]) =>
      kubectl(args, {
        kubeconfig: sim.kubeconfigPath,
        cacheDir: path.join(dir, 'kube-cache'),
        timeoutMs: 120_000,
        allowFail: true,
      });
    try {
      const install = await helm(
        [
          'install',
          'podset-operator',
          CHART_DIR,
          '-n',
          NS,
          '--create-namespace',
          '--wait',
          '--timeout',
          '3m',
          ...kc,
        ],
        env,
      );
      assert.equal(install.code, 0, install.out);
      assert.match(install.out, /STATUS: deployed/);

      const listed = await k(['get', 'deployments,statefulsets', '-n', NS, '-o', 'name']);
      assert.equal(listed.code, 0, listed.stderr);
      const workloads = listed.stdout.trim().split('\n').sort();
      assert.ok(workloads.includes('statefulset.apps/podset-redis'), workloads.join(' '));
      for (const d of ['podset-watcher', 'podset-worker', 'podset-dashboard'])
        assert.ok(workloads.includes(`deployment.apps/${d}`), `${d} in ${workloads.join(' ')}`);
      for (const w of workloads) {
        const r = await k(['rollout', 'status', w, '-n', NS, '--timeout=5s']);
        assert.equal(r.code, 0, `${w}: ${r.stdout}${r.stderr}`);
        assert.match(r.stdout, /successfully rolled out|roll out complete/, w);
      }
      const redis = sim.cluster.get('statefulsets.apps', NS, 'podset-redis') as
        { spec?: { replicas?: number }; status?: { readyReplicas?: number } } | undefined;
      assert.equal(redis?.status?.readyReplicas, redis?.spec?.replicas ?? 1);
      // Its volume claim, made from the volumeClaimTemplate (kube-sim has no provisioner to bind it).
      assert.notEqual(sim.cluster.get('persistentvolumeclaims', NS, 'data-podset-redis-0'), undefined);
      // The hook Job ran to completion and went with its hook-succeeded delete policy.
      assert.equal(sim.cluster.get('jobs.batch', NS, 'podset-redis-secret-init'), undefined);
      const egress = sim.cluster.get('networkpolicies.networking.k8s.io', NS, 'podset-api-server-egress') as
        { spec?: { egress?: { to?: { ipBlock?: { cidr: string } }[] }[] } } | undefined;
      assert.deepEqual(
        egress?.spec?.egress?.[0]?.to?.map((p) => p.ipBlock?.cidr),
        ['127.0.0.1/32'],
        "apiServerCIDRs looked up in kube-sim's default/kubernetes Endpoints",
      );
      // The chart has no test hooks today; once it has, `helm test` must pass here too.
      if (hasTestHooks()) {
        const t = await helm(['test', 'podset-operator', '-n', NS, '--timeout', '3m', ...kc], env);
        assert.equal(t.code, 0, t.out);
      }
    } finally {
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
