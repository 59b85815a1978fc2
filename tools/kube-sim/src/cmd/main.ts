// CLI: npm run kube-sim -- --port <p> --kubeconfig <file> [--audit-log f] [--no-lifecycle] ...
import { parseArgs } from 'node:util';
import type { ErrorRule } from '../server/filters/faults.ts';
import {
  controllerFlagOptions,
  controllerFlagsUsage,
  controllerOptionsFromFlags,
} from '../controllers/flags.ts';
import type { ControllerOptions } from '../controllers/index.ts';
import { ADMISSION_PLUGINS, type AdmissionPlugin, DataDirError, startKubeSim } from '../index.ts';

const USAGE = `usage: kube-sim [--port N] [--host H] [--kubeconfig FILE] [--audit-log FILE] [--no-lifecycle]
  [--no-controllers] [--history N] [--bookmark-interval-ms N] [--latency-ms N]
  [--error VERB:RESOURCE:RATE:CODE]... [--watch-cut-seconds N] [--watch-cut-events N]
  [--token IDENTITY=TOKEN]... [--advertise-url URL] [--kubeconfig-dir DIR] [--kubeconfig-for IDENTITY=FILE]...
  [--enable-admission-plugins OwnerReferencesPermissionEnforcement] [--data-dir DIR]
${controllerFlagsUsage}`;

function num(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`kube-sim: --${name} must be a non-negative number, got "${v}"\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

/** A data dir that can't be used (unreadable or corrupt snapshot): say which file and why, exit 2. */
function exitOnDataDirError(e: unknown): never {
  if (!(e instanceof DataDirError)) throw e;
  console.error(e.message);
  process.exit(2);
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string', default: '0' },
        host: { type: 'string', default: '127.0.0.1' },
        kubeconfig: { type: 'string' },
        'audit-log': { type: 'string' },
        'no-lifecycle': { type: 'boolean', default: false },
        'no-controllers': { type: 'boolean', default: false },
        history: { type: 'string' },
        'bookmark-interval-ms': { type: 'string' },
        'latency-ms': { type: 'string' },
        error: { type: 'string', multiple: true },
        'watch-cut-seconds': { type: 'string' },
        'watch-cut-events': { type: 'string' },
        token: { type: 'string', multiple: true },
        'advertise-url': { type: 'string' },
        'kubeconfig-dir': { type: 'string' },
        'kubeconfig-for': { type: 'string', multiple: true },
        'enable-admission-plugins': { type: 'string' },
        'data-dir': { type: 'string' },
        help: { type: 'boolean', default: false },
        ...controllerFlagOptions,
      },
      strict: true,
    }));
  } catch (e) {
    console.error(`kube-sim: ${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const errors: ErrorRule[] = (values.error ?? []).map((spec) => {
    const [verb, resource, rate, code] = spec.split(':');
    const c = Number(code);
    if (!verb || !resource || !Number.isInteger(c)) {
      console.error(
        `kube-sim: --error wants VERB:RESOURCE:RATE:CODE (e.g. create:pods:0.1:500), got "${spec}"`,
      );
      process.exit(2);
    }
    return { verb, resource, rate: Number(rate ?? 1), code: c };
  });
  const tokens: Record<string, string> = {};
  for (const t of values.token ?? []) {
    const i = t.indexOf('=');
    if (i <= 0) {
      console.error(`kube-sim: --token wants IDENTITY=TOKEN, got "${t}"`);
      process.exit(2);
    }
    tokens[t.slice(0, i)] = t.slice(i + 1);
  }
  const kubeconfigFiles: Record<string, string> = {};
  for (const spec of values['kubeconfig-for'] ?? []) {
    const i = spec.indexOf('=');
    if (i <= 0 || i === spec.length - 1) {
      console.error(`kube-sim: --kubeconfig-for wants IDENTITY=FILE, got "${spec}"`);
      process.exit(2);
    }
    kubeconfigFiles[spec.slice(0, i)] = spec.slice(i + 1);
  }
  let controllerOptions: ControllerOptions;
  try {
    controllerOptions = { podLifecycle: !values['no-lifecycle'], ...controllerOptionsFromFlags(values) };
  } catch (e) {
    console.error(`${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
    process.exit(2);
  }
  const advertise = values['advertise-url'];
  if (advertise !== undefined && !/^https?:\/\/[^/]+\/?$/.test(advertise)) {
    console.error(`kube-sim: --advertise-url must be like https://host:port, got "${advertise}"`);
    process.exit(2);
  }
  const plugins = (values['enable-admission-plugins'] ?? '').split(',').filter((p) => p !== '');
  const unknownPlugin = plugins.find((p) => !(ADMISSION_PLUGINS as readonly string[]).includes(p));
  if (unknownPlugin !== undefined) {
    console.error(
      `kube-sim: --enable-admission-plugins: unknown plugin "${unknownPlugin}" (known: ${ADMISSION_PLUGINS.join(', ')})`,
    );
    process.exit(2);
  }
  const history = num('history', values.history);
  const bookmark = num('bookmark-interval-ms', values['bookmark-interval-ms']);
  const cutS = num('watch-cut-seconds', values['watch-cut-seconds']);
  const cutE = num('watch-cut-events', values['watch-cut-events']);
  const sim = await startKubeSim({
    port: num('port', values.port) ?? 0,
    host: values.host,
    ...(values.kubeconfig ? { kubeconfigPath: values.kubeconfig } : {}),
    ...(values['audit-log'] ? { auditLog: values['audit-log'] } : {}),
    ...(Object.keys(tokens).length ? { auth: { tokens } } : {}),
    ...(history !== undefined ? { historyLimit: history } : {}),
    ...(bookmark !== undefined ? { bookmarkIntervalMs: bookmark } : {}),
    faults: {
      errors,
      latencyMs: num('latency-ms', values['latency-ms']) ?? 0,
      ...(cutS !== undefined ? { watchCutAfterSeconds: cutS } : {}),
      ...(cutE !== undefined ? { watchCutAfterEvents: cutE } : {}),
    },
    controllers: !values['no-controllers'],
    controllerOptions,
    ...(advertise ? { advertiseUrl: advertise.replace(/\/$/, '') } : {}),
    ...(values['kubeconfig-dir'] ? { kubeconfigDir: values['kubeconfig-dir'] } : {}),
    ...(Object.keys(kubeconfigFiles).length ? { kubeconfigFiles } : {}),
    ...(plugins.length ? { admissionPlugins: plugins as AdmissionPlugin[] } : {}),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
  }).catch(exitOnDataDirError);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    sim.close().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error('kube-sim: close failed', e);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // One port speaks both: TLS (what the kubeconfigs use) and plain HTTP with a bearer token. The plain URL
  // comes first, as scripts read it from "listening on (http://…)".
  console.log(
    `kube-sim listening on ${sim.url} and ${sim.httpsUrl} (one port, plain or TLS; the kubeconfigs use TLS; kubeconfig: ${sim.kubeconfigPath})`,
  );
}

await main();
