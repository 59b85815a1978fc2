// npm run operator: the operator from this checkout against the cluster of the current kubeconfig
// context, as kubebuilder's `make run` does: the watcher and the workers (and on request the dashboard)
// as child processes, a Redis from REDIS_URL or a redis-server of its own, the CRD installed if missing.
// Until Ctrl-C. The demo's pieces (processes.ts, redis.ts) start and stop them.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  ResourceClient,
  createKube,
  isKubeApiError,
  loadKubeConfig,
  type Kube,
  type KubeObject,
} from '@podset/kube';
import type { KubeObject as Manifest } from '@podset/kube-sim';
import { RESOURCE } from '@podset/reconcile';
import { freePort, waitFor, type Proc } from '@podset/testkit';
import { parse } from 'yaml';
import { withLastApplied } from './apply.ts';
import { startApp, startOperator, stopAll } from './processes.ts';
import { demoRedis, type DemoRedis } from './redis.ts';
import { freeOpsPorts, metricsUrls } from './ops-ports.ts';
import { freshLogDir } from './log-dir.ts';
import { requireFreePorts } from './user-ports.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const CRD_FILE = path.join(repo, 'crds', 'podset.yaml');
const USAGE = `usage: npm run operator -- [--workers N] [--dashboard] [--dashboard-port N] [--dir DIR] [--no-install-crd]

Runs the watcher and N workers (default 1) of this checkout against the cluster of the current kubeconfig
context (KUBECONFIG, one file, else ~/.kube/config), with Redis at REDIS_URL or a redis-server started on a
free port. Installs the PodSet CRD (crds/podset.yaml) when the cluster lacks it, unless --no-install-crd.
--dashboard also starts the dashboard on 127.0.0.1 (DASHBOARD_TOKEN, or a generated token). Logs go to
<dir>/logs (default .tmp/operator), fresh each run (the previous run's kept as NAME.1). A redis-server of its
own that dies is restarted (at most 5 times in 2 minutes, else the run stops, exit 1). Ctrl-C stops
everything. Other variables of the apps (docs/configuration.md) are passed through from the environment.`;

const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions' };
const LEASES_OF_DEPLOYMENT = { namespace: 'podset-system', name: 'podset-watcher' };

function fail(message: string, code = 1): never {
  process.stderr.write(`operator: ${message}\n`);
  process.exit(code);
}

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        workers: { type: 'string', default: '1' },
        dashboard: { type: 'boolean', default: false },
        'dashboard-port': { type: 'string', default: '0' },
        dir: { type: 'string', default: path.join(process.cwd(), '.tmp', 'operator') },
        'no-install-crd': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    });
  } catch (err) {
    return fail(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`, 2);
  }
})();
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
function wholeNumber(flag: string, raw: string, min: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    fail(`--${flag} must be a whole number ≥ ${min}, got "${raw}"\n${USAGE}`, 2);
  return n;
}
const workers = wholeNumber('workers', values.workers, 1);
const dashboardPortFlag = wholeNumber('dashboard-port', values['dashboard-port'], 0);
const dir = path.resolve(values.dir);
const logDir = path.join(dir, 'logs');
if (values.dashboard)
  await requireFreePorts('operator', '127.0.0.1', { '--dashboard-port': dashboardPortFlag });

/**
 * The one kubeconfig file the apps are given. They read KUBECONFIG as a single path, so a list of files
 * is refused with the way to merge it rather than half-read.
 */
function kubeconfigFile(): string {
  const paths = (process.env.KUBECONFIG ?? '').split(path.delimiter).filter((p) => p !== '');
  if (paths.length > 1) {
    fail(
      `KUBECONFIG names ${paths.length} files; the apps read one. Merge them first:\n` +
        `  kubectl config view --flatten > merged.kubeconfig && KUBECONFIG=$PWD/merged.kubeconfig npm run operator`,
      2,
    );
  }
  const file = path.resolve(paths[0] ?? path.join(os.homedir(), '.kube', 'config'));
  if (!existsSync(file)) {
    fail(
      `no kubeconfig: ${file} does not exist (set KUBECONFIG, or create a cluster, e.g. kind create cluster)`,
      2,
    );
  }
  return file;
}

function describeError(err: unknown, server: string): string {
  if (isKubeApiError(err)) return err.message;
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `cannot reach the API server at ${server}: ${err instanceof Error ? err.message : String(err)}${cause}`;
}

const established = (crd: KubeObject): boolean =>
  ((crd as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? []).some(
    (c) => c.type === 'Established' && c.status === 'True',
  );

/** Installs the CRD when it is missing (and waits until it is served); says what it did. */
async function ensureCrd(kube: Kube, install: boolean): Promise<string> {
  const crds = new ResourceClient<KubeObject>(kube.client, CRDS);
  try {
    await crds.get(undefined, RESOURCE);
    return `CRD ${RESOURCE} installed`;
  } catch (err) {
    if (isKubeApiError(err) && err.code === 403) {
      return `CRD ${RESOURCE}: not allowed to read CRDs, assuming it is installed (else: kubectl apply -k crds)`;
    }
    if (!(isKubeApiError(err) && err.code === 404)) throw err;
  }
  if (!install) {
    fail(
      `the PodSet CRD ${RESOURCE} is not installed in this cluster: kubectl apply -k crds (or drop --no-install-crd)`,
    );
  }
  // Recorded as kubectl apply would, so a later `kubectl apply -k crds` updates it without a warning.
  const manifest = parse(readFileSync(CRD_FILE, 'utf8')) as Manifest;
  try {
    await crds.create(undefined, withLastApplied(manifest) as KubeObject);
  } catch (err) {
    if (isKubeApiError(err) && err.code === 403) {
      fail(
        `the PodSet CRD ${RESOURCE} is missing and this identity may not create it: ask a cluster admin to run kubectl apply -k crds`,
      );
    }
    throw err;
  }
  await waitFor('the CRD to be established', async () => established(await crds.get(undefined, RESOURCE)), {
    timeoutMs: 60_000,
    intervalMs: 250,
  });
  return `CRD ${RESOURCE} installed now from crds/podset.yaml`;
}

/** A watcher deployed in the cluster would reconcile the same PodSets as ours: say so. */
async function deployedOperator(kube: Kube): Promise<string | undefined> {
  try {
    const lease = await kube.leases.get(LEASES_OF_DEPLOYMENT.namespace, LEASES_OF_DEPLOYMENT.name);
    const spec = lease.spec ?? {};
    const renewed = spec.renewTime == null ? 0 : Date.parse(spec.renewTime);
    const ttlMs = (spec.leaseDurationSeconds ?? 15) * 1000;
    if (spec.holderIdentity && Date.now() - renewed < 2 * ttlMs) return spec.holderIdentity;
  } catch {
    // No Lease, or not allowed to read it: nothing known.
  }
  return undefined;
}

const kubeconfig = kubeconfigFile();
let kube: Kube;
try {
  kube = createKube(loadKubeConfig({ kubeconfig }), { userAgent: 'podset-operator-run' });
} catch (err) {
  fail(`${kubeconfig}: ${err instanceof Error ? err.message : String(err)}`, 2);
}
const context = kube.client.kubeConfig.getCurrentContext();
let crdNote: string;
let otherOperator: string | undefined;
try {
  crdNote = await ensureCrd(kube, !values['no-install-crd']);
  otherOperator = await deployedOperator(kube);
} catch (err) {
  fail(describeError(err, kube.client.server));
} finally {
  await kube.client.close();
}

const rotated = freshLogDir(logDir);
process.stdout.write(
  `operator: logs in ${logDir}${rotated.length > 0 ? ' (the previous run’s kept as NAME.1)' : ''}\n`,
);
let redis: DemoRedis;
try {
  redis = await demoRedis(process.env, 'operator');
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}

const host = os.hostname();
const common = { KUBECONFIG: kubeconfig, KUBE_IN_CLUSTER: 'false', REDIS_URL: redis.url, HTTP_PORT: '0' };
// Each of the watcher and the workers serves /metrics, /healthz and /readyz on a port of its own.
const opsPorts = await freeOpsPorts(workers);
const children: Proc[] = startOperator({
  repo,
  logDir,
  workers,
  watcherEnv: {
    ...common,
    ...redis.appEnv('watcher'),
    HOLDER_IDENTITY: `${host}-${process.pid}-watcher`,
    HTTP_PORT: String(opsPorts.watcher),
  },
  workerEnv: (i) => ({
    ...common,
    ...redis.appEnv('worker'),
    POD_NAME: `${host}-worker-${i}`,
    HTTP_PORT: String(opsPorts.workers[i]),
  }),
});
let dashboardLine = '';
if (values.dashboard) {
  const port = dashboardPortFlag || (await freePort());
  const token = process.env.DASHBOARD_TOKEN ?? randomBytes(18).toString('base64url');
  children.push(
    startApp(
      'dashboard',
      'dashboard',
      path.join(repo, 'apps/dashboard/src/main.ts'),
      {
        ...common,
        ...redis.appEnv('dashboard'),
        DASHBOARD_PORT: String(port),
        DASHBOARD_HOST: '127.0.0.1',
        // Served over plain HTTP on localhost: a Secure cookie would never come back.
        DASHBOARD_SECURE_COOKIE: 'false',
        DASHBOARD_TOKEN: token,
      },
      logDir,
    ),
  );
  dashboardLine = `\ndashboard  http://127.0.0.1:${port}/   token ${token}`;
}

let stopping = false;
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Named before they go: each is stopped here and waited for, not left to notice that this process died.
  const stopped = [...children.map((c) => `${c.name} ${c.pid ?? '?'}`), ...redis.processes()];
  await stopAll(children, 30_000);
  await redis.close();
  process.stdout.write(`operator: stopped ${stopped.join(', ')}\n`);
  process.exit(code);
}
// One Ctrl-C arrives twice (from the terminal, and passed on by npm): a repeat is not a second request.
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
for (const child of children) {
  void child.exited.then(({ code, signal }) => {
    if (!stopping) {
      process.stderr.write(`operator: ${child.name} exited (${signal ?? code}):\n${child.tail()}\n`);
      void shutdown(1);
    }
  });
}
redis.keep({
  say: (line) => process.stderr.write(`${line}\n`),
  giveUp: (line) => {
    process.stderr.write(`${line}\n`);
    void shutdown(1);
  },
});

process.stdout.write(
  [
    `context    ${context} (${kube.client.server})   kubeconfig ${kubeconfig}`,
    crdNote,
    `Redis      ${redis.shown} (${redis.origin})`,
    `processes  watcher, ${workers} worker(s)${values.dashboard ? ', dashboard' : ''}   logs in ${logDir}${dashboardLine}`,
    `metrics    ${metricsUrls(opsPorts).join('   ')}`,
    ...(otherOperator === undefined
      ? []
      : [
          `WARNING: an operator deployed in this cluster is running (${LEASES_OF_DEPLOYMENT.namespace}/${LEASES_OF_DEPLOYMENT.name} held by ${otherOperator}): both will reconcile the same PodSets`,
        ]),
    `Ctrl-C stops everything`,
  ].join('\n') + '\n',
);
const watcher = children[0] as Proc;
watcher
  .waitForLine(/became leader/, 120_000)
  .then(() => process.stdout.write('operator: watcher leading, reconciling\n'))
  .catch(() => {
    // It exited (reported above) or is still waiting for the Lease: its log says which.
  });
