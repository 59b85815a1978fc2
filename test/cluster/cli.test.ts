// Which cluster the suite runs against: `npm test` only ever its own kube-sim (KUBECONFIG ignored);
// `npm run test:cluster` --kubeconfig, then KUBECONFIG, then its own kube-sim; bad input named.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { compileCacheEnv } from '@podset/testkit';
import { NODE, REPO } from '../e2e/support/harness.ts';
import { chooseTarget, UsageError } from './support/cli.ts';
import { givenKubeconfig, KUBECONFIG_VAR } from './support/target.ts';

test('the suite itself ignores KUBECONFIG: only PODSET_TEST_CLUSTER_KUBECONFIG points it at a cluster', () => {
  assert.equal(givenKubeconfig({ KUBECONFIG: '/home/dev/.kube/config' }), undefined);
  assert.equal(givenKubeconfig({ [KUBECONFIG_VAR]: '' }), undefined);
  assert.equal(givenKubeconfig({ [KUBECONFIG_VAR]: '/tmp/kind.kubeconfig' }), '/tmp/kind.kubeconfig');
});

test('test:cluster takes --kubeconfig, then KUBECONFIG, then its own kube-sim', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-cluster-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const a = path.join(dir, 'a');
  const b = path.join(dir, 'b');
  writeFileSync(a, '');
  writeFileSync(b, '');
  assert.deepEqual(chooseTarget(['--kubeconfig', 'a'], { KUBECONFIG: b }, dir), {
    kind: 'cluster',
    kubeconfig: a,
    from: '--kubeconfig',
  });
  assert.deepEqual(chooseTarget([], { KUBECONFIG: b }, dir), {
    kind: 'cluster',
    kubeconfig: b,
    from: 'KUBECONFIG',
  });
  assert.deepEqual(chooseTarget([], {}, dir), { kind: 'kube-sim' });
  assert.deepEqual(chooseTarget([], { KUBECONFIG: '' }, dir), { kind: 'kube-sim' });
  assert.deepEqual(chooseTarget(['--help'], { KUBECONFIG: b }, dir), { kind: 'help' });
});

test('test:cluster names what is wrong with its input', () => {
  const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
    [['--kubeconfig', '/nonexistent/kc'], {}, /--kubeconfig: \/nonexistent\/kc is not a file/],
    [[], { KUBECONFIG: '/nonexistent/kc' }, /KUBECONFIG: \/nonexistent\/kc is not a file/],
    [[], { KUBECONFIG: `/a${path.delimiter}/b` }, /KUBECONFIG lists several files .* --kubeconfig/],
    [['--kubeconfig', ''], {}, /--kubeconfig wants a file path/],
    [['--kubeconfg', 'x'], {}, /Unknown option '--kubeconfg'/],
    [['kind'], {}, /Unexpected argument 'kind'/],
  ];
  for (const [argv, env, message] of cases) {
    assert.throws(
      () => chooseTarget(argv, env, '/'),
      (err: unknown) => {
        assert.ok(err instanceof UsageError, `${argv.join(' ')}: a UsageError`);
        assert.match(err.message, message);
        return true;
      },
    );
  }
});

test('npm run test:cluster with a kubeconfig that is not there exits 2 with the reason and the usage', async () => {
  const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    execFile(
      NODE,
      ['test/cluster/run.ts', '--kubeconfig', '/nonexistent/kc'],
      { cwd: REPO, env: { PATH: process.env.PATH ?? '', ...compileCacheEnv() } },
      (err, _stdout, stderr) => resolve({ code: err === null ? 0 : (err.code as number), stderr }),
    );
  });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /test:cluster: --kubeconfig: \/nonexistent\/kc is not a file/);
  assert.match(result.stderr, /usage: npm run test:cluster/);
});
