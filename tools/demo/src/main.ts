// npm run demo: the embedded default. kube-sim as the cluster, a Redis, the watcher and two workers,
// the CRD and the examples applied, and a live table of PodSets until Ctrl-C.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startKubeSim, type KubeObject } from '@podset/kube-sim';
import { freePort, type Proc } from '@podset/testkit';
import { parseAllDocuments } from 'yaml';
import { startApp, startOperator, stopAll } from './processes.ts';
import { demoRedis, type DemoRedis } from './redis.ts';
import { withLastApplied } from './apply.ts';
import { isConverged, renderTable, toRow } from './table.ts';
import { demoOptions, helpText, parserOptions, usageText } from './options.ts';
import { freeOpsPorts, metricsUrls } from './ops-ports.ts';
import { freshLogDir } from './log-dir.ts';
import { exitOnTakenPort, requireFreePorts } from './user-ports.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const OPTIONS = demoOptions(process.cwd());
const USAGE = usageText(OPTIONS);

const { values } = (() => {
  try {
    return parseArgs({
      options: parserOptions(OPTIONS),
      strict: true,
    });
  } catch (err) {
    process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
    process.exit(2);
  }
})();
const option = (name: string): string => String(values[name]);
if (values['help'] === true) {
  process.stdout.write(`${helpText(OPTIONS)}\n`);
  process.exit(0);
}
const workers = wholeNumber('workers', option('workers'), 1);
const port = wholeNumber('port', option('port'), 0);
const dashboardPortFlag = wholeNumber('dashboard-port', option('dashboard-port'), 0);
const dashboardToken = process.env.DASHBOARD_TOKEN ?? randomBytes(18).toString('base64url');
const timeoutMs = wholeNumber('timeout-seconds', option('timeout-seconds'), 1) * 1000;
const untilConverged = values['until-converged'] === true;
const dir = path.resolve(option('dir'));
const logDir = path.join(dir, 'logs');
// kube-sim and the dashboard both listen on 127.0.0.1.
await requireFreePorts('demo', '127.0.0.1', { '--port': port, '--dashboard-port': dashboardPortFlag });
const dashboardPort = dashboardPortFlag || (await freePort());
// Whoever read the output went away (`npm run demo | head`, a closed terminal): nobody is watching, so
// once started, stop everything as one Ctrl-C does, with nothing more written to the closed stream. Set
// up before the first line is written, which may already find the reader gone.
let outputClosed = false;
let onOutputClosed = (): void => undefined;
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  outputClosed = true;
  onOutputClosed();
});
const rotated = freshLogDir(logDir);
process.stdout.write(
  `demo: logs in ${logDir}${rotated.length > 0 ? ' (the previous run’s kept as NAME.1)' : ''}\n`,
);

function wholeNumber(flag: string, raw: string, min: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) {
    process.stderr.write(`demo: --${flag} must be a whole number ≥ ${min}, got "${raw}"\n${USAGE}\n`);
    process.exit(2);
  }
  return n;
}

function manifests(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

let redis: DemoRedis;
try {
  redis = await demoRedis(process.env);
} catch (err) {
  process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
const kubeconfigPath = path.join(dir, 'kubeconfig');
const sim = await startKubeSim({
  port,
  kubeconfigPath,
  auditLog: path.join(logDir, 'kube-sim-audit.jsonl'),
}).catch(async (err: unknown) => {
  // Taken between the check above and now.
  await redis.close();
  return exitOnTakenPort('demo', err, port, '127.0.0.1', '--port');
});
const cluster = sim.cluster;

for (const crd of manifests(path.join(repo, 'crds', 'podset.yaml'))) {
  cluster.create('customresourcedefinitions.apiextensions.k8s.io', withLastApplied(crd));
}

const common = { REDIS_URL: redis.url, LOG_LEVEL: 'info', HTTP_PORT: '0' };
// Each of the watcher and the workers serves /metrics, /healthz and /readyz on a port of its own.
const opsPorts = await freeOpsPorts(workers);
const children: Proc[] = startOperator({
  repo,
  logDir,
  workers,
  watcherEnv: {
    ...common,
    ...redis.appEnv('watcher'),
    KUBECONFIG: sim.kubeconfigFor('watcher'),
    POD_NAME: 'watcher-0',
    HTTP_PORT: String(opsPorts.watcher),
  },
  workerEnv: (i) => ({
    ...common,
    ...redis.appEnv('worker'),
    KUBECONFIG: sim.kubeconfigFor('worker'),
    POD_NAME: `worker-${i}`,
    HTTP_PORT: String(opsPorts.workers[i]),
  }),
});
children.push(
  startApp(
    'dashboard',
    'dashboard',
    path.join(repo, 'apps/dashboard/src/main.ts'),
    {
      ...common,
      ...redis.appEnv('dashboard'),
      KUBECONFIG: sim.kubeconfigFor('viewer'),
      DASHBOARD_PORT: String(dashboardPort),
      DASHBOARD_HOST: '127.0.0.1',
      // Served over plain HTTP on localhost: a Secure cookie would never come back.
      DASHBOARD_SECURE_COOKIE: 'false',
      DASHBOARD_TOKEN: dashboardToken,
    },
    logDir,
  ),
);
for (const child of children) {
  void child.exited.then(({ code, signal }) => {
    if (!stopping) {
      const last = child.tail(1);
      process.stderr.write(
        `demo: ${child.name} exited (${signal ?? code})${last === '' ? '' : `: ${last}`}; see ${child.logFile}\n`,
      );
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

const examplesDir = path.join(repo, 'examples');
for (const file of readdirSync(examplesDir)
  .filter((f) => f.endsWith('.yaml'))
  .sort()) {
  for (const object of manifests(path.join(examplesDir, file))) {
    cluster.create('podsets.podset.io', withLastApplied(object));
  }
}

const banner = [
  `kube-sim  ${sim.httpsUrl}   Redis ${redis.shown} (${redis.origin})   workers ${workers}`,
  `kubeconfig ${kubeconfigPath}`,
  `dashboard http://127.0.0.1:${dashboardPort}/   token ${dashboardToken}   (read-only; log in with the token)`,
  `metrics   ${metricsUrls(opsPorts).join('   ')}`,
  `try, from another terminal:`,
  `  kubectl --kubeconfig ${kubeconfigPath} scale ps web --replicas=5`,
  `  kubectl --kubeconfig ${kubeconfigPath} get ps,pods`,
  `logs in ${logDir}   Ctrl-C stops everything`,
].join('\n');
if (!outputClosed) process.stdout.write(`${banner}\n\n`);

let stopping = false;
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  clearInterval(ticker);
  await stopAll(children, 10_000);
  await sim.close();
  await redis.close();
  process.exit(code);
}
// One Ctrl-C arrives twice (from the terminal, and passed on by npm): a repeat is not a second request.
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
onOutputClosed = () => void shutdown(0);

const startedAt = Date.now();
const tty = process.stdout.isTTY === true;
let lastTable = '';
const ticker = setInterval(() => {
  if (outputClosed) return;
  const rows = cluster.list('podsets.podset.io').map(toRow);
  const table = renderTable(rows);
  const converged = rows.length > 0 && rows.every(isConverged);
  if (tty) {
    process.stdout.write(`\x1b[H\x1b[2J${banner}\n\n${table}\n`);
  } else if (table !== lastTable) {
    process.stdout.write(`${table}\n\n`);
  }
  lastTable = table;
  if (untilConverged) {
    if (converged) {
      process.stdout.write(`demo: all ${rows.length} PodSets converged in ${Date.now() - startedAt} ms\n`);
      void shutdown(0);
    } else if (Date.now() - startedAt > timeoutMs) {
      process.stderr.write(`demo: not converged after ${timeoutMs / 1000} s\n`);
      void shutdown(1);
    }
  }
}, 500);
// The reader may have gone while the demo was starting.
if (outputClosed) onOutputClosed();
