// kube-sim --data-dir: the identity and the objects survive a restart (SIGTERM, and SIGKILL after a debounced
// snapshot), the kubeconfig written before the restart still works with the real kubectl, resourceVersions
// keep growing, a watch from before the restart gets 410, and a corrupt snapshot stops kube-sim with exit 2.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Proc, freePort, kubectl, waitFor } from '@podset/testkit';

const NODE = process.execPath;
const MAIN = new URL('../src/cmd/main.ts', import.meta.url).pathname;
const CRD = new URL('../../../crds/podset.yaml', import.meta.url).pathname;
const PODSET = new URL('../../../examples/web.yaml', import.meta.url).pathname;

interface Meta {
  uid: string;
  resourceVersion: string;
  creationTimestamp: string;
}

async function startSim(port: number, dataDir: string, kubeconfig: string) {
  const proc = new Proc({
    name: 'kube-sim',
    command: NODE,
    args: [MAIN, '--port', String(port), '--kubeconfig', kubeconfig, '--data-dir', dataDir, '--no-lifecycle'],
    env: process.env,
  });
  await proc.waitForLine(/listening on http:\/\/127\.0\.0\.1:\d+/, 20_000);
  return proc;
}

test('kube-sim --data-dir: identity and objects survive SIGTERM and SIGKILL; RVs grow; old watches get 410', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sim-data-'));
  const dataDir = join(dir, 'data');
  const kc = join(dir, 'kubeconfig');
  const oldKc = join(dir, 'kubeconfig.before-restart');
  const cacheDir = join(dir, 'cache');
  const port = await freePort();
  let proc = await startSim(port, dataDir, kc);
  try {
    // Every check after a restart goes through a copy of the first kubeconfig: it must stay valid.
    copyFileSync(kc, oldKc);
    const k = (args: string[], kubeconfig = oldKc) => kubectl(args, { kubeconfig, cacheDir });
    const json = async <T>(args: string[]): Promise<T> =>
      JSON.parse((await k([...args, '-o', 'json'])).stdout) as T;
    const token = /token: (\S+)/.exec(readFileSync(kc, 'utf8'))?.[1] as string;
    const http = `http://127.0.0.1:${port}`;

    await k(['apply', '-f', CRD]);
    await k(['wait', '--for=condition=Established', 'crd/podsets.podset.io']);
    await k(['apply', '-f', PODSET]);
    await k(['run', 'one', '--image=nginx:1.27']);
    await k(['run', 'two', '--image=nginx:1.27']);
    await k(['create', 'secret', 'generic', 'creds', '--from-literal=password=s3cret']);
    const names = ['crd/podsets.podset.io', 'podset/web', 'pod/one', 'pod/two', 'secret/creds'];
    const before = new Map<string, Meta>();
    for (const n of names) before.set(n, (await json<{ metadata: Meta }>(['get', n])).metadata);
    await k(['create', 'serviceaccount', 'bot']);
    const saToken = (await k(['create', 'token', 'bot'])).stdout.trim();
    const asBot = async () =>
      (
        await fetch(`${http}/api/v1/namespaces/default/pods`, {
          headers: { authorization: `Bearer ${saToken}` },
        })
      ).status;
    const botStatus = await asBot();
    assert.notEqual(botStatus, 401);
    const rvBefore = Math.max(...[...before.values()].map((m) => Number(m.resourceVersion)));

    assert.equal((await proc.stop()).code, 0, proc.tail());
    proc = await startSim(port, dataDir, kc);

    for (const n of names) {
      const m = (await json<{ metadata: Meta }>(['get', n])).metadata;
      const b = before.get(n) as Meta;
      assert.equal(m.uid, b.uid, `${n} keeps its uid`);
      assert.equal(m.creationTimestamp, b.creationTimestamp, `${n} keeps its creationTimestamp`);
      assert.equal(m.resourceVersion, b.resourceVersion, `${n} keeps its resourceVersion`);
    }
    assert.equal(
      await asBot(),
      botStatus,
      "a service account's token issued before the restart still authenticates",
    );
    const secret = await json<{ data: { password: string } }>(['get', 'secret', 'creds']);
    assert.equal(Buffer.from(secret.data.password, 'base64').toString(), 's3cret');
    const podset = await json<{ spec: { replicas: number } }>(['get', 'podset', 'web']);
    assert.equal(podset.spec.replicas, 3);
    await k(['label', 'pod', 'one', 'after=restart']);
    const relabelled = await json<{ metadata: Meta }>(['get', 'pod', 'one']);
    assert.ok(Number(relabelled.metadata.resourceVersion) > rvBefore, 'resourceVersions keep growing');

    // A watch from before the restart (pod/one's creation; more was written after it) cannot resume: the
    // history is not kept.
    const oldRv = (before.get('pod/one') as Meta).resourceVersion;
    const watch = await fetch(`${http}/api/v1/namespaces/default/pods?watch=1&resourceVersion=${oldRv}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(20_000),
    });
    const first = JSON.parse((await watch.text()).split('\n')[0] as string) as {
      type: string;
      object: { code: number };
    };
    assert.deepEqual([first.type, first.object.code], ['ERROR', 410]);

    // SIGKILL: what the debounced snapshot holds survives, and no resourceVersion is handed out twice.
    await k(['create', 'configmap', 'late', '--from-literal=k=v']);
    const late = (await json<{ metadata: Meta }>(['get', 'configmap', 'late'])).metadata;
    await waitFor('the snapshot to hold configmap/late', () =>
      readFileSync(join(dataDir, 'snapshot.json'), 'utf8').includes(late.uid),
    );
    await k(['create', 'configmap', 'seen-then-lost']);
    const lost = (await json<{ metadata: Meta }>(['get', 'configmap', 'seen-then-lost'])).metadata;
    await proc.kill();
    proc = await startSim(port, dataDir, kc);
    assert.equal((await json<{ metadata: Meta }>(['get', 'configmap', 'late'])).metadata.uid, late.uid);
    await k(['create', 'configmap', 'after-kill']);
    const after = (await json<{ metadata: Meta }>(['get', 'configmap', 'after-kill'])).metadata;
    assert.ok(
      Number(after.resourceVersion) > Number(lost.resourceVersion),
      `an RV after the SIGKILL (${after.resourceVersion}) is above every RV handed out before it (${lost.resourceVersion})`,
    );
    assert.equal((await proc.stop()).code, 0, proc.tail());
  } finally {
    await proc.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('kube-sim --data-dir: a corrupt snapshot exits 2 naming the file, and is left as it was', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sim-data-'));
  try {
    const snapshot = join(dir, 'snapshot.json');
    for (const text of ['{"kind":"KubeSimSnapshot","version":1,"resourceV', '{"kind":"Other"}']) {
      writeFileSync(snapshot, text);
      const proc = new Proc({
        name: 'kube-sim corrupt',
        command: NODE,
        args: [MAIN, '--port', '0', '--kubeconfig', join(dir, 'kc'), '--data-dir', dir],
        env: process.env,
      });
      assert.equal((await proc.exited).code, 2, proc.tail());
      assert.ok(proc.tail().includes(`the snapshot ${snapshot} is corrupt`), proc.tail());
      assert.equal(readFileSync(snapshot, 'utf8'), text);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
