// The local-dev stack of docs/deployment.md, run for real with whichever compose this machine has: on a
// clean copy of the repository (the files git tracks), build, `up -d`, every service healthy, the documented
// kubeconfig command, a PodSet to ready with the real kubectl, a scale, the dashboard with and without its
// token, Redis's users (the default one off, the dashboard's refused a write); then `restart kube-sim`
// (the stack heals with nothing re-applied: kube-sim kept its identity and objects), `kill` of a worker
// container (the others converge), and `down -v`, which must leave no container, volume or network of the
// project. Each run has a project name and host ports of its own, and always ends with `down -v`. It
// prints how long each step took.
//
// Not named *.test.ts, so `npm test` leaves it out: it needs a Docker daemon and builds the images.
// `npm run test:compose` runs it; .ci/run does after `npm test` (starting dockerd first if none answers).
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, kubectl, waitFor } from '@podset/testkit';
import { dockerDaemonProblem, findCompose, type ComposeCli } from './cli.ts';

const REPO = path.resolve(import.meta.dirname, '../..');
/** The services `up -d` keeps running, each with its replica count; `crd` runs once and exits 0. */
const RUNNING: Record<string, number> = { redis: 1, 'kube-sim': 1, watcher: 1, worker: 3, dashboard: 1 };
/** The Redis users of docker-compose.yml: one per app, and the healthcheck's. */
const REDIS_USERS = ['watcher', 'worker', 'dashboard', 'health'] as const;
/** Each app's kubeconfig and the kube-sim identity it must hold (and no other). */
const IDENTITY_OF: Record<string, string> = { watcher: 'watcher', worker: 'worker', dashboard: 'viewer' };

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command; rejects on a non-zero exit with the end of its output, unless allowFail. */
function run(
  argv: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; allowFail?: boolean },
): Promise<Run> {
  const [cmd = '', ...args] = argv;
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { cwd: opts.cwd, env: opts.env, timeout: opts.timeoutMs, maxBuffer: 256 << 20 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        if (code !== 0 && opts.allowFail !== true) {
          const tail = (s: string) => s.slice(-4000);
          reject(
            new Error(`${argv.join(' ')}: exit ${code}${err?.killed === true ? ' (timed out)' : ''}
stdout: ${tail(stdout)}
stderr: ${tail(stderr)}`),
          );
        } else resolve({ code, stdout, stderr });
      },
    );
  });
}

interface ContainerState {
  id: string;
  service: string;
  status: string;
  exitCode: number;
  health: string | undefined;
  /** When the last healthcheck that passed started. */
  lastPassed: number | undefined;
}

interface Inspected {
  Id: string;
  Config: { Labels: Record<string, string> };
  State: {
    Status: string;
    ExitCode: number;
    Health?: { Status: string; Log?: { Start: string; ExitCode: number }[] };
  };
}

interface PodSetJson {
  metadata: { generation: number };
  spec: { replicas: number };
  status?: { readyReplicas?: number; observedGeneration?: number };
}

describe('docker compose: the local-dev stack of docs/deployment.md', () => {
  const project = `podset-test-${process.pid}-${randomBytes(3).toString('hex')}`;
  const timings: [string, number][] = [];
  let compose: ComposeCli;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let kubeSimPort: number;
  let dashboardPort: number;
  let kubeconfig: string;
  let downDone = false;

  /** Runs one step and keeps its wall-clock time for the summary. */
  async function step<T>(name: string, body: () => Promise<T>): Promise<T> {
    const start = Date.now();
    try {
      return await body();
    } finally {
      timings.push([name, Date.now() - start]);
    }
  }

  const composeRun = (args: string[], timeoutMs = 120_000, allowFail = false) =>
    run([...compose.argv, ...args], { cwd: dir, env, timeoutMs, allowFail });

  const docker = (args: string[], timeoutMs = 60_000) =>
    run(['docker', ...args], { cwd: dir, env, timeoutMs });

  async function containers(): Promise<ContainerState[]> {
    const ids = (
      await docker(['ps', '-a', '-q', '--filter', `label=com.docker.compose.project=${project}`])
    ).stdout
      .split('\n')
      .filter((l) => l !== '');
    if (ids.length === 0) return [];
    const inspected = JSON.parse((await docker(['inspect', ...ids])).stdout) as Inspected[];
    return inspected.map((c) => ({
      id: c.Id,
      service: c.Config.Labels['com.docker.compose.service'] ?? '?',
      status: c.State.Status,
      exitCode: c.State.ExitCode,
      health: c.State.Health?.Status,
      lastPassed: (c.State.Health?.Log ?? [])
        .filter((l) => l.ExitCode === 0)
        .map((l) => Date.parse(l.Start))
        .reduce<number | undefined>((a, b) => (a === undefined || b > a ? b : a), undefined),
    }));
  }

  const describeContainers = (list: ContainerState[]) =>
    list
      .map(
        (c) => `${c.service} ${c.id.slice(0, 12)} ${c.status} exit=${c.exitCode} health=${c.health ?? '-'}`,
      )
      .join('\n');

  /**
   * Every service running and healthy in its replica count, and the CRD job exited 0. With `since`, each
   * container's last passing healthcheck must have started after it: a status from before a restart counts
   * for nothing.
   */
  async function waitHealthy(what: string, since?: number): Promise<void> {
    let last: ContainerState[] = [];
    await waitFor(
      what,
      async () => {
        last = await containers();
        const crd = last.filter((c) => c.service === 'crd');
        if (crd.length !== 1 || crd[0]?.status !== 'exited' || crd[0].exitCode !== 0) return false;
        return Object.entries(RUNNING).every(([service, n]) => {
          const running = last.filter((c) => c.service === service && c.status === 'running');
          return (
            running.length === n &&
            running.every(
              (c) => c.health === 'healthy' && (since === undefined || (c.lastPassed ?? 0) > since),
            )
          );
        });
      },
      { timeoutMs: 300_000, intervalMs: 1000, describe: () => describeContainers(last) },
    );
  }

  const kc = (args: string[]) =>
    kubectl(['--server', `https://127.0.0.1:${kubeSimPort}`, ...args], {
      kubeconfig,
      cacheDir: path.join(dir, '.kube-cache'),
      cwd: dir,
    });

  /** The PodSet's status shows `replicas` ready pods for its current generation. */
  async function waitReady(name: string, replicas: number): Promise<void> {
    let last: PodSetJson | undefined;
    await waitFor(
      `PodSet ${name} to have ${replicas} ready replicas`,
      async () => {
        last = JSON.parse((await kc(['get', 'podset', name, '-o', 'json'])).stdout) as PodSetJson;
        return (
          last.spec.replicas === replicas &&
          last.status?.observedGeneration === last.metadata.generation &&
          last.status.readyReplicas === replicas
        );
      },
      { timeoutMs: 120_000, intervalMs: 500, describe: () => JSON.stringify(last?.status) },
    );
  }

  before(async () => {
    const problem = dockerDaemonProblem();
    assert.equal(
      problem,
      undefined,
      `no Docker daemon answers (${problem}); start one (here: ../shared/docker/setup-base-images.sh, as root)`,
    );
    const found = findCompose();
    assert.ok(found, 'neither `docker compose` (v2) nor `docker-compose` (1.29) is installed');
    compose = found;
    console.log(`compose: ${compose.argv.join(' ')} ${compose.version}; project ${project}`);

    // A clean checkout: only what git tracks (as it is in the working tree), nothing local or ignored.
    dir = mkdtempSync(path.join(os.tmpdir(), 'podset-compose-'));
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: REPO, encoding: 'utf8' })
      .split('\0')
      .filter((f) => f !== '');
    for (const file of tracked) {
      mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
      try {
        copyFileSync(path.join(REPO, file), path.join(dir, file));
      } catch (e) {
        // A tracked file deleted in the working tree is not part of this checkout.
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    kubeSimPort = await freePort();
    dashboardPort = await freePort();
    env = {
      ...process.env,
      COMPOSE_PROJECT_NAME: project,
      KUBE_SIM_HOST_PORT: String(kubeSimPort),
      DASHBOARD_HOST_PORT: String(dashboardPort),
      DASHBOARD_TOKEN: randomBytes(16).toString('hex'),
      // A password of its own for each Redis user (the redis-acl service writes them into Redis's ACL file).
      ...Object.fromEntries(
        REDIS_USERS.map((u) => [`REDIS_${u.toUpperCase()}_PASSWORD`, randomBytes(16).toString('hex')]),
      ),
    };
  });

  after(async () => {
    if (dir !== undefined && compose !== undefined && !downDone) {
      await composeRun(['down', '-v', '--remove-orphans', '--timeout', '10'], 300_000, true);
    }
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    if (timings.length > 0) {
      const width = Math.max(...timings.map(([n]) => n.length));
      const total = timings.reduce((s, [, ms]) => s + ms, 0);
      console.log(
        [
          `timings (${compose?.argv.join(' ')}):`,
          ...timings.map(([n, ms]) => `  ${n.padEnd(width)}  ${(ms / 1000).toFixed(1).padStart(6)} s`),
          `  ${'total'.padEnd(width)}  ${(total / 1000).toFixed(1).padStart(6)} s`,
        ].join('\n'),
      );
    }
  });

  test('build, up -d: every service healthy, the CRD job done', async () => {
    await step('build', () => composeRun(['build'], 1_200_000));
    await step('up -d', () => composeRun(['up', '-d'], 600_000));
    await step('healthy after up', () => waitHealthy('every service to be healthy after up -d'));
  });

  test('each app mounts only its own identity’s kubeconfig, mode 0600, owned by the app’s uid', async () => {
    const probe =
      "const fs = require('node:fs'); const d = '/home/node/.kube'; const s = fs.statSync(d + '/config');" +
      ' console.log(JSON.stringify({ files: fs.readdirSync(d), mode: s.mode & 0o777, uid: s.uid, me: process.getuid(),' +
      " user: /\\nusers:\\n- name: (\\S+)/.exec(fs.readFileSync(d + '/config', 'utf8'))?.[1] }))";
    for (const [service, identity] of Object.entries(IDENTITY_OF)) {
      const out = (await composeRun(['exec', '-T', service, 'node', '-e', probe])).stdout;
      const seen = JSON.parse(out) as {
        files: string[];
        mode: number;
        uid: number;
        me: number;
        user: string;
      };
      assert.deepEqual(seen.files, ['config'], `${service} sees its own kubeconfig and nothing else`);
      assert.equal(seen.user, identity, `${service}'s kubeconfig is the ${identity} identity`);
      assert.equal(seen.mode, 0o600, `${service}'s kubeconfig is readable by its owner only`);
      assert.equal(seen.uid, seen.me, `${service}'s kubeconfig is owned by the app's uid`);
    }
  });

  test("Redis: the default user is off, the dashboard's user is refused a write, each app logs its refusal", async () => {
    // redis-cli inside the Redis container, without the healthcheck's password (REDISCLI_AUTH) it holds.
    const cli = async (args: string) =>
      (
        await composeRun(
          [
            'exec',
            '-T',
            'redis',
            'sh',
            '-c',
            `unset REDISCLI_AUTH; redis-cli --no-auth-warning ${args} 2>&1`,
          ],
          60_000,
          true,
        )
      ).stdout.trim();
    assert.match(await cli('ping'), /NOAUTH/, 'no command without a user');
    assert.match(await cli('--user default --pass anything ping'), /WRONGPASS/, 'no login as default');
    const as = (user: string) =>
      `--user podset-${user} --pass ${env[`REDIS_${user.toUpperCase()}_PASSWORD`]}`;
    assert.match(await cli(`${as('dashboard')} set '{podset}:podset-reconcile:id' 1`), /NOPERM/);
    assert.doesNotMatch(
      await cli(`${as('dashboard')} get '{podset}:podset-reconcile:id'`),
      /NOPERM|ERR/,
      'it reads',
    );
    assert.match(
      await cli(`${as('worker')} set '{podset}:podset-reconcile:proj:ps:default/web' x`),
      /NOPERM/,
    );
    assert.match(await cli(`${as('health')} get '{podset}:podset-reconcile:id'`), /NOPERM/);
    for (const app of ['watcher', 'worker', 'dashboard']) {
      const logs = (await composeRun(['logs', '--no-color', app])).stdout;
      assert.match(logs, new RegExp(`redis ACL: user podset-${app} is refused`), `${app} logs its refusal`);
    }
  });

  test('the documented kubeconfig command, then a PodSet and a scale to ready with the real kubectl', async () => {
    // The command docs/deployment.md gives, run with this machine's compose.
    const doc = readFileSync(path.join(dir, 'docs/deployment.md'), 'utf8');
    const documented =
      /^\(umask 077; docker compose (exec -T kube-sim cat \S+) > \.kube-sim\.kubeconfig\)/m.exec(doc);
    assert.ok(documented?.[1], 'docs/deployment.md shows how to copy the admin kubeconfig out of kube-sim');
    kubeconfig = path.join(dir, '.kube-sim.kubeconfig');
    const copied = await composeRun(documented[1].split(' '));
    writeFileSync(kubeconfig, copied.stdout, { mode: 0o600 });
    await step('PodSet web ready', async () => {
      await kc(['apply', '-f', 'examples/web.yaml']);
      await waitReady('web', 3);
    });
    await step('scale to 5 ready', async () => {
      await kc(['scale', 'podset', 'web', '--replicas', '5']);
      await waitReady('web', 5);
    });
  });

  test('the dashboard: 401 without the token, 200 with it', async () => {
    const url = `http://127.0.0.1:${dashboardPort}/`;
    assert.equal((await fetch(url)).status, 401);
    const ok = await fetch(url, { headers: { authorization: `Bearer ${env.DASHBOARD_TOKEN}` } });
    assert.equal(ok.status, 200);
  });

  test('restart kube-sim: healthy again with nothing re-applied, the PodSet and the kubeconfig still good', async () => {
    await step('restart kube-sim', () => composeRun(['restart', 'kube-sim']));
    // Once this returned, kube-sim runs its new process: a healthcheck from then on sees the restarted one.
    const restarted = Date.now();
    await step('healthy after restart', () =>
      waitHealthy('every service to pass its healthcheck again after restart kube-sim', restarted),
    );
    // The same admin kubeconfig works (kube-sim kept its CA and tokens), the PodSet (and its CRD) survived,
    // and the operator still reconciles.
    await step('scale to 4 ready after restart', async () => {
      await waitReady('web', 5);
      await kc(['scale', 'podset', 'web', '--replicas', '4']);
      await waitReady('web', 4);
    });
  });

  test('kill of a worker container: the other workers converge; up -d brings it back', async () => {
    const worker = (await containers()).find((c) => c.service === 'worker' && c.status === 'running');
    assert.ok(worker, 'a running worker');
    await docker(['kill', worker.id]);
    await step('scale to 2 ready, one worker killed', async () => {
      await kc(['scale', 'podset', 'web', '--replicas', '2']);
      await waitReady('web', 2);
    });
    await step('up -d after kill', () => composeRun(['up', '-d'], 600_000));
    await step('healthy after kill', () => waitHealthy('every service to be healthy again after up -d'));
  });

  test('down -v leaves no container, volume or network of the project', async () => {
    await step('down -v', () => composeRun(['down', '-v', '--remove-orphans'], 300_000));
    downDone = true;
    const label = `label=com.docker.compose.project=${project}`;
    const left = async (kind: string[]) =>
      [
        ...(await docker([...kind, '-q', '--filter', label])).stdout.split('\n'),
        ...(await docker([...kind, '-q', '--filter', `name=${project}`])).stdout.split('\n'),
      ].filter((l) => l !== '');
    assert.deepEqual(await left(['ps', '-a']), [], 'no container');
    assert.deepEqual(await left(['volume', 'ls']), [], 'no volume');
    assert.deepEqual(await left(['network', 'ls']), [], 'no network');
  });
});
