// `npm run test:cluster [-- --kubeconfig PATH]`: the end-to-end suite of test/cluster/ against a cluster
// (see support/cli.ts for which one), on the project's Node's test runner.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { kubectl } from '@podset/testkit';
import { chooseTarget, USAGE, UsageError, type Choice } from './support/cli.ts';
import { KUBECONFIG_VAR, removeRunLeftovers, RUN_VAR } from './support/target.ts';

const REPO = path.resolve(import.meta.dirname, '../..');
/** The suite's files, run one after another (they share the cluster's CRD). */
const SUITE_FILES = ['test/cluster/operator.test.ts'];

let choice: Choice;
try {
  choice = chooseTarget(process.argv.slice(2), process.env, process.cwd());
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  console.error(`test:cluster: ${err.message}\n${USAGE}`);
  process.exit(2);
}
if (choice.kind === 'help') {
  console.log(USAGE);
  process.exit(0);
}

const env: NodeJS.ProcessEnv = { ...process.env };
delete env[KUBECONFIG_VAR];
delete env[RUN_VAR];
if (choice.kind === 'cluster') {
  const where = await kubectl(
    ['config', 'view', '--minify', '-o', 'jsonpath={.contexts[0].name} {.clusters[0].cluster.server}'],
    {
      kubeconfig: choice.kubeconfig,
      cacheDir: path.join(REPO, 'node_modules/.cache/test-cluster-kubectl'),
      allowFail: true,
    },
  );
  if (where.code !== 0) {
    console.error(
      `test:cluster: ${choice.from} ${choice.kubeconfig} cannot be read by kubectl:\n${where.stderr}`,
    );
    process.exit(2);
  }
  console.log(
    `test:cluster: against context/server ${where.stdout.trim()} (from ${choice.from} ${choice.kubeconfig})`,
  );
  env[KUBECONFIG_VAR] = choice.kubeconfig;
} else {
  console.log('test:cluster: no --kubeconfig and no KUBECONFIG: against a kube-sim of its own');
}

// What this run creates carries its id, so that what an interrupted run leaves can be removed below.
const runId = randomBytes(4).toString('hex');
env[RUN_VAR] = runId;
const child = spawn(
  process.execPath,
  ['--test', '--test-concurrency=1', '--test-timeout=900000', ...SUITE_FILES],
  { cwd: REPO, env, stdio: 'inherit' },
);
// Ctrl-C reaches the test runner too (same process group); this process waits for it, then cleans up. A
// SIGTERM sent to this process alone is passed on. A second signal ends this process at once.
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    if (signal === 'SIGTERM') child.kill('SIGTERM');
  });
}
const exit = await new Promise<number>((resolve) =>
  child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))),
);
if (choice.kind === 'cluster') {
  const removed = await removeRunLeftovers(choice.kubeconfig, runId);
  if (removed.length > 0) console.log(`test:cluster: removed what the run left: ${removed.join(', ')}`);
}
process.exit(interrupted ? 130 : exit);
