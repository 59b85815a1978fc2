// Rollout history and control as a user drives them: the kubectl plugin that `npm ci` puts in
// node_modules/.bin, found by the real kubectl's plugin discovery on a PATH where the system Node comes
// first, and run as `kubectl podset rollout …` against the user's KUBECONFIG. The worker records one
// ControllerRevision per template (the number in the PodSet's podset.io/revision), undo puts an old
// template back, pause holds a template change while replicas still scale, restart replaces every pod,
// and status waits for a rollout and fails past the progress deadline. Real watcher and worker processes,
// kube-sim over HTTP, real Redis, real kubectl.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { KubeObject } from '@podset/kube-sim';
import { compileCacheEnv } from '@podset/testkit';
import { activePodsOf } from './support/check.ts';
import { applyCrd, podSetManifest, REPO, startEnv, type OperatorEnv } from './support/harness.ts';

const BIN = path.join(REPO, 'node_modules/.bin');
const HASH_LABEL = 'podset.io/template-hash';
const REVISIONS = 'controllerrevisions.apps';

let env: OperatorEnv;
before(async () => {
  env = await startEnv({ name: 'rollout-plugin' });
  await applyCrd(env);
  env.startWatcher('watcher-0');
  env.startWorker('worker-0');
});
after(async () => {
  await env?.close();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `kubectl ARGS` as a user types it: plugins take no kubectl flag before their name, so the kubeconfig comes
 * from KUBECONFIG. The system's directories come before node_modules/.bin on the PATH, so the plugin
 * must not depend on the first `node` there.
 */
function kubectl(args: readonly string[], opts: { noKubeconfigEnv?: boolean } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      args,
      {
        timeout: 90_000,
        env: {
          PATH: `${path.dirname(process.env.KUBECTL ?? '/usr/bin/kubectl')}:/usr/bin:/bin:${BIN}`,
          HOME: env.dir,
          // Passed on by kubectl to the plugin's node (a cache location, not a setting of the plugin).
          ...compileCacheEnv(),
          ...(opts.noKubeconfigEnv === true ? {} : { KUBECONFIG: env.kubeconfig }),
        },
      },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

async function ok(args: readonly string[]): Promise<string> {
  const r = await kubectl(args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r.stdout;
}

const revisionsOf = (name: string): (KubeObject & { revision?: number })[] =>
  env.sim.cluster
    .list(REVISIONS, 'default')
    .filter((r) => r.metadata.labels?.['podset.io/name'] === name)
    .sort(
      (a, b) => ((a as { revision?: number }).revision ?? 0) - ((b as { revision?: number }).revision ?? 0),
    );
const annotation = (name: string) => env.podSet(name)?.metadata.annotations?.['podset.io/revision'];
const status = (name: string) =>
  (env.podSet(name) as unknown as { status?: Record<string, unknown> } | undefined)?.status ?? {};
const hashesOf = (name: string) =>
  [
    ...new Set(activePodsOf(env.podSet(name)!, env.pods()).map((p) => p.metadata.labels?.[HASH_LABEL])),
  ].sort();
const image = (tag: string, cause: string) =>
  JSON.stringify({
    metadata: { annotations: { 'kubernetes.io/change-cause': cause } },
    spec: {
      template: {
        spec: { containers: [{ name: 'app', image: `busybox:${tag}`, command: ['sleep', '3600'] }] },
      },
    },
  });

/** The worker has seen the latest spec (its status is for the PodSet's generation). */
const observed = (name: string) =>
  env.waitFor(`${name}'s spec to be observed`, () => {
    const ps = env.podSet(name)!;
    const seen = status(name).observedGeneration;
    return seen === ps.metadata.generation
      ? []
      : [`observedGeneration ${String(seen)} of ${ps.metadata.generation}`];
  });

test('kubectl finds the plugin that npm installed', async () => {
  const listed = await kubectl(['plugin', 'list']);
  assert.match(
    listed.stdout,
    new RegExp(`^${BIN}/kubectl-podset$`, 'm'),
    `${listed.stdout}\n${listed.stderr}`,
  );
  const help = await ok(['podset', '--help']);
  assert.match(help, /kubectl podset rollout ACTION NAME/);
});

test('history, undo, pause, resume, restart and status through kubectl', async () => {
  const manifest = podSetManifest('web', 3);
  (manifest.metadata as Record<string, unknown>).annotations = { 'kubernetes.io/change-cause': 'first' };
  await ok(['apply', '-f', env.writeManifest('web.yaml', [manifest])]);
  assert.match(
    await ok(['podset', 'rollout', 'status', 'web', '--timeout=60s']),
    /podset "web" successfully rolled out/,
  );
  await env.waitFor('revision 1', () =>
    annotation('web') === '1' ? [] : [`annotation ${annotation('web')}`],
  );
  const [first] = revisionsOf('web');
  const ownerRef = first?.metadata.ownerReferences?.[0];
  assert.equal(ownerRef?.uid, env.podSet('web')?.metadata.uid);
  assert.equal(ownerRef?.controller, true);
  const firstHash = first?.metadata.labels?.[HASH_LABEL];
  assert.deepEqual(hashesOf('web'), [firstHash]);

  // A new template: revision 2; status follows the rollout to its end.
  await ok(['patch', 'ps', 'web', '--type=merge', '-p', image('1.37', 'to 1.37')]);
  const rolled = await ok(['podset', 'rollout', 'status', 'web', '--timeout=60s']);
  assert.match(rolled, /successfully rolled out/);
  assert.equal(annotation('web'), '2');
  const history = await ok(['podset', 'rollout', 'history', 'web']);
  assert.match(history, /^REVISION\s+CHANGE-CAUSE\n1\s+first\n2\s+to 1\.37$/m, history);
  assert.match(await ok(['podset', 'rollout', 'history', 'web', '--revision=1']), /image: busybox:1\.36/);
  // The kubeconfig and namespace as flags after the plugin's name, without KUBECONFIG.
  const flags = await kubectl(
    ['podset', 'rollout', 'history', 'web', '-n', 'default', `--kubeconfig=${env.kubeconfig}`],
    { noKubeconfigEnv: true },
  );
  assert.equal(flags.stdout, history, flags.stderr);
  const elsewhere = await kubectl(['podset', 'rollout', 'history', 'web', '-n', 'other']);
  assert.equal(elsewhere.code, 1);
  assert.match(elsewhere.stderr, /NotFound/);

  // Undo: revision 1's template is back, as revision 3.
  assert.match(await ok(['podset', 'rollout', 'undo', 'web']), /podset\.podset\.io\/web rolled back/);
  await ok(['podset', 'rollout', 'status', 'web', '--timeout=60s']);
  await env.waitFor('undo to be recorded', () =>
    annotation('web') === '3' ? [] : [`annotation ${annotation('web')}`],
  );
  assert.deepEqual(hashesOf('web'), [firstHash]);
  assert.deepEqual(
    revisionsOf('web').map((r) => [r.revision, r.metadata.labels?.[HASH_LABEL] === firstHash]),
    [
      [2, false],
      [3, true],
    ],
  );

  // Paused: a template change waits, a scale goes ahead with the current revision's template.
  assert.match(await ok(['podset', 'rollout', 'pause', 'web']), /podset\.podset\.io\/web paused/);
  await ok(['patch', 'ps', 'web', '--type=merge', '-p', image('1.38', 'to 1.38')]);
  await ok(['scale', 'ps', 'web', '--replicas=4']);
  await observed('web');
  await env.waitFor('4 pods', () => {
    const active = activePodsOf(env.podSet('web')!, env.pods()).length;
    return active === 4 ? [] : [`${active} active pods`];
  });
  assert.deepEqual(hashesOf('web'), [firstHash], 'no pod of the new template while paused');
  assert.equal(revisionsOf('web').length, 2, 'no revision for a template not rolled out');
  const progressing = (status('web').conditions as { type: string; reason?: string }[]).find(
    (c) => c.type === 'Progressing',
  );
  assert.equal(progressing?.reason, 'PodSetPaused');
  const paused = await kubectl(['podset', 'rollout', 'status', 'web']);
  assert.equal(paused.code, 1);
  assert.match(paused.stderr, /is paused/);
  const noUndo = await kubectl(['podset', 'rollout', 'undo', 'web']);
  assert.equal(noUndo.code, 1, 'undo of a paused PodSet is refused, as for a Deployment');

  // Resumed: the held template rolls out as revision 4.
  assert.match(await ok(['podset', 'rollout', 'resume', 'web']), /resumed/);
  await ok(['podset', 'rollout', 'status', 'web', '--timeout=60s']);
  await env.waitFor('revision 4', () =>
    annotation('web') === '4' ? [] : [`annotation ${annotation('web')}`],
  );
  const afterResume = hashesOf('web');
  assert.equal(afterResume.length, 1);
  assert.notEqual(afterResume[0], firstHash);

  // Restart: a new template (its restartedAt annotation), so every pod is replaced.
  assert.match(await ok(['podset', 'rollout', 'restart', 'web']), /restarted/);
  await ok(['podset', 'rollout', 'status', 'web', '--timeout=60s']);
  await env.waitFor('revision 5', () =>
    annotation('web') === '5' ? [] : [`annotation ${annotation('web')}`],
  );
  const restarted = hashesOf('web');
  assert.equal(restarted.length, 1);
  assert.notEqual(restarted[0], afterResume[0]);

  // A shorter history: pruned to the limit, never the current revision.
  await ok(['patch', 'ps', 'web', '--type=merge', '-p', '{"spec":{"revisionHistoryLimit":1}}']);
  await env.waitFor('history pruned to 1 old revision', () => {
    const revs = revisionsOf('web').map((r) => r.revision);
    return JSON.stringify(revs) === '[4,5]' ? [] : [`revisions ${JSON.stringify(revs)}`];
  });

  // The PodSet's revisions go with it (they are controlled by it: the garbage collector's work).
  await ok(['delete', 'ps', 'web']);
  await env.waitFor('its revisions to be gone', () => revisionsOf('web').map((r) => `${r.metadata.name}`));
});

test('status fails past the progress deadline', async () => {
  const manifest = podSetManifest('stuck', 2);
  const spec = manifest.spec as Record<string, unknown> & { template: { metadata: Record<string, unknown> } };
  spec.progressDeadlineSeconds = 2;
  spec.template.metadata.annotations = { 'kube-sim.podset.io/fate': 'never-ready' };
  await ok(['apply', '-f', env.writeManifest('stuck.yaml', [manifest])]);
  const r = await kubectl(['podset', 'rollout', 'status', 'stuck', '--timeout=60s']);
  assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
  // Whether it printed a "Waiting for …" line first depends on whether the 2 s had passed when it first
  // looked (a loaded machine starts the plugin slowly); the steps it prints are tools/kubectl-podset's status-view.test.ts'.
  assert.doesNotMatch(r.stdout, /successfully rolled out/);
  assert.match(r.stderr, /podset "stuck" exceeded its progress deadline/);
});
