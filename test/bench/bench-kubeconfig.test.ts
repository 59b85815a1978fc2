// `npm run bench -- converge --kubeconfig FILE` on a cluster the bench did not start: a kube-sim started by
// hand as a user would (`npm run kube-sim -- --port 0 --kubeconfig FILE`). Tiny sizes; no timing asserts:
// the run must finish, print its table (naming the figures it cannot have there) and leave the cluster as
// it found it (no namespace, no CRD of its own).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { kubectl, waitFor } from '@podset/testkit';
import { npmRun, type Run } from '../e2e/support/npm-run.ts';

const REPO = path.resolve(import.meta.dirname, '../..');
const NODE = path.join(REPO, 'node_modules/.bin/node');

describe('bench converge --kubeconfig, on a kube-sim started by hand', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-kubeconfig-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  const k = (args: string[]) => kubectl(args, { kubeconfig, cacheDir: path.join(dir, 'kubectl-cache') });
  let sim: Run;

  before(async () => {
    sim = npmRun('kube-sim', ['--port', '0', '--kubeconfig', kubeconfig]);
    await waitFor('kube-sim listening', () => /listening on/.test(sim.output()), {
      timeoutMs: 60_000,
      describe: () => sim.output(),
    });
  });
  after(async () => {
    await sim.stopGroup();
    rmSync(dir, { recursive: true, force: true });
  });

  test('runs the operator, the limit and the peer there, prints the table and removes what it created', async () => {
    const namespacesBefore = (await k(['get', 'namespaces', '-o', 'name'])).stdout;
    const crdBefore = await k(['get', 'crd', '-o', 'name']);
    assert.doesNotMatch(crdBefore.stdout, /podsets\.podset\.io/, 'no PodSet CRD before the bench');
    const json = path.join(dir, 'converge.json');
    const run = npmRun('bench', [
      'converge',
      '--kubeconfig',
      kubeconfig,
      '--smoke',
      '--podsets',
      '2',
      '--replicas',
      '2',
      '--workers',
      '1',
      '--concurrency',
      '2',
      '--json',
      json,
    ]);
    const timer = setTimeout(() => void run.stopGroup(), 240_000);
    const exit = await run.exited;
    clearTimeout(timer);
    const out = run.output();
    assert.equal(exit.code, 0, out.slice(-4000));
    assert.match(out, /^converge \(smoke\): .*"kubeconfig"/m, out);
    for (const figure of ['operator: time to converge', 'operator / limit', 'peer: time to converge'])
      assert.match(out, new RegExp(`^${figure}\\s+\\d`, 'm'), `"${figure}" has a value\n${out}`);
    // What needs kube-sim's process or audit says so; what comes from the workers' /metrics says that.
    assert.match(out, /^API writes per converged pod\s+[\d.]+ \(from the workers' \/metrics\)/m, out);
    assert.match(out, /n\/a \(needs kube-sim's audit\)/, out);
    assert.match(out, /^kube-sim CPU s: operator run \/ limit run\s+n\/a \(needs kube-sim's CPU/m, out);

    const record = JSON.parse(readFileSync(json, 'utf8')) as {
      options: { kubeconfig?: string };
      data: { operator: { activePods: number; writes: number }; peer: { activePods: number } };
    };
    assert.equal(record.options.kubeconfig, kubeconfig);
    assert.equal(record.data.operator.activePods, 4);
    assert.equal(record.data.peer.activePods, 4);
    assert.ok(
      record.data.operator.writes >= 4,
      `one create per pod at least: ${record.data.operator.writes}`,
    );

    // Each run had a namespace of its own, and none is left; nor is the CRD it installed.
    assert.equal((await k(['get', 'namespaces', '-o', 'name'])).stdout, namespacesBefore);
    const crdAfter = await k(['get', 'crd', '-o', 'name']);
    assert.doesNotMatch(crdAfter.stdout, /podsets\.podset\.io/, 'the PodSet CRD the bench installed is gone');
  });

  test('bad input is named: another scenario, --latency-ms, a missing file, a cluster that does not answer', async () => {
    const bench = (args: string[]) =>
      new Promise<{ code: number; stderr: string }>((resolve) =>
        execFile(NODE, [path.join(REPO, 'bench/run.ts'), ...args], { cwd: REPO }, (err, _out, stderr) =>
          resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stderr }),
        ),
      );
    const latency = await bench(['latency', '--kubeconfig', kubeconfig]);
    assert.equal(latency.code, 2);
    assert.match(latency.stderr, /--kubeconfig runs converge only .*not "latency"/);
    const slow = await bench(['converge', '--kubeconfig', kubeconfig, '--latency-ms', '5']);
    assert.equal(slow.code, 2);
    assert.match(slow.stderr, /--latency-ms is added by kube-sim/);
    const missing = await bench(['converge', '--kubeconfig', path.join(dir, 'nope')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--kubeconfig .*nope: no such file/);
    // A cluster that does not answer: named with the kubeconfig, and nothing started.
    const dead = path.join(dir, 'dead-kubeconfig');
    writeFileSync(
      dead,
      readFileSync(kubeconfig, 'utf8').replace(/server: https:\/\/[^\s]+/, 'server: https://127.0.0.1:1'),
    );
    const unreachable = await bench(['converge', '--kubeconfig', dead, '--smoke']);
    assert.equal(unreachable.code, 1);
    assert.match(unreachable.stderr, /the cluster of --kubeconfig .*dead-kubeconfig: connect ECONNREFUSED/);
  });
});
