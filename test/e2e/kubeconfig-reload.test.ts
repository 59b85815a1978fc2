// The operator outlives a cluster whose CA changed (issue 29: "unable to verify the first certificate" for
// ever after a kube-sim restart): kube-sim runs as its own process with a data dir, and is restarted with
// the same objects and tokens but a new CA (its snapshot's TLS identity replaced, as a CA rotation would),
// writing the kubeconfigs again at the same paths. The watcher and the worker reload them and go on: a
// scale made after the restart converges with nothing restarted but kube-sim.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { freePort, kubectl, Proc as ChildProc, startRedis, waitFor } from '@podset/testkit';
import type { KubeObject } from '@podset/kube-sim';
import { generateTlsIdentity } from '../../tools/kube-sim/src/server/tls.ts';
import { podSetProblems } from './support/check.ts';
import { NODE, Proc, REPO, WATCHER_MAIN, WORKER_MAIN, podSetManifest } from './support/harness.ts';

const KUBE_SIM = path.join(REPO, 'tools/kube-sim/src/cmd/main.ts');
const RELOADED = 'kubeconfig file changed: reloaded it (new CA, token or server)';

test('kube-sim restarted with a new CA: watcher and worker reload their kubeconfigs and go on converging', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-e2e-reload-'));
  const logDir = path.join(dir, 'logs');
  mkdirSync(logDir);
  const users = path.join(dir, 'users');
  const admin = path.join(dir, 'admin');
  const data = path.join(dir, 'data');
  const port = await freePort();
  const redis = await startRedis();
  const startSim = async (): Promise<ChildProc> => {
    const sim = new ChildProc({
      name: 'kube-sim',
      command: NODE,
      args: [
        KUBE_SIM,
        ...['--port', String(port), '--kubeconfig', admin, '--kubeconfig-dir', users, '--data-dir', data],
        ...['--lifecycle', 'fast', '--startup-delay-ms', '50', '--startup-jitter-ms', '150'],
      ],
      env: { PATH: process.env.PATH ?? '' },
      logFile: path.join(logDir, 'kube-sim.log'),
    });
    await sim.waitForLine(/listening on/, 20_000);
    return sim;
  };
  let sim = await startSim();
  const apps: Proc[] = [];
  const k = (args: string[]) => kubectl(args, { kubeconfig: admin, cacheDir: path.join(dir, 'cache') });
  const manifest = path.join(dir, 'web.json');
  const problems = async (): Promise<string[]> => {
    const ps = JSON.parse((await k(['get', 'podset', 'web', '-o', 'json'])).stdout) as KubeObject;
    const pods = JSON.parse((await k(['get', 'pods', '-o', 'json'])).stdout) as { items: KubeObject[] };
    return podSetProblems(ps, pods.items, 'web');
  };
  const converged = (what: string) =>
    waitFor(what, async () => (await problems()).length === 0, {
      timeoutMs: 60_000,
      intervalMs: 250,
      describe: () => apps.map((a) => a.describe()).join('\n'),
    });
  try {
    writeFileSync(manifest, JSON.stringify(podSetManifest('web', 2)));
    await k(['apply', '-f', path.join(REPO, 'crds/podset.yaml')]);
    await k(['wait', '--for=condition=Established', 'crd/podsets.podset.io']);
    await k(['apply', '-f', manifest]);
    const common = { REDIS_URL: redis.url, HTTP_PORT: '0', LOG_LEVEL: 'info', RESYNC_PERIOD_SECONDS: '0' };
    apps.push(
      new Proc(
        'watcher',
        [WATCHER_MAIN],
        {
          ...common,
          KUBECONFIG: path.join(users, 'watcher'),
          POD_NAME: 'watcher',
          LEASE_DURATION_SECONDS: '4',
        },
        logDir,
      ),
      new Proc(
        'worker',
        [WORKER_MAIN],
        { ...common, KUBECONFIG: path.join(users, 'worker'), POD_NAME: 'worker' },
        logDir,
      ),
    );
    await converged('web to converge on the first kube-sim');

    assert.equal((await sim.stop()).code, 0);
    const snapshotFile = path.join(data, 'snapshot.json');
    const snapshot = JSON.parse(readFileSync(snapshotFile, 'utf8')) as { tls: { caCert: string } };
    const oldCa = snapshot.tls.caCert;
    writeFileSync(snapshotFile, JSON.stringify({ ...snapshot, tls: generateTlsIdentity() }));
    sim = await startSim();
    assert.ok(
      !readFileSync(path.join(users, 'worker'), 'utf8').includes(Buffer.from(oldCa).toString('base64')),
    );
    await k(['patch', 'podset', 'web', '--type=merge', '-p', '{"spec":{"replicas":3}}']);
    await converged('web to converge at 3 replicas on the restarted kube-sim (new CA)');
    for (const app of apps) {
      assert.ok(app.running, app.describe());
      assert.ok(
        app.lines().some((l) => l.includes('unable to verify the first certificate')),
        app.describe(),
      );
      const notices = app.lines().filter((l) => l.includes(RELOADED));
      assert.equal(notices.length, 1, `${app.name} logs the reload once:\n${app.describe()}`);
    }
  } finally {
    await Promise.all(apps.map((a) => a.stop(5_000)));
    await sim.kill();
    await redis.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
