// kube-sim's command-line flags, parsed into startKubeSim's options; a flag that is wrong is a FlagError
// whose message says which and how (main.ts prints it and exits 2).
import { parseArgs } from 'node:util';
import type { ErrorRule } from '../server/filters/faults.ts';
import {
  controllerFlagOptions,
  controllerFlagsUsage,
  controllerOptionsFromFlags,
} from '../controllers/flags.ts';
import type { ControllerOptions } from '../controllers/index.ts';
import { ADMISSION_PLUGINS, type AdmissionPlugin, type KubeSimOptions } from '../index.ts';

export const USAGE = `usage: kube-sim [--port N] [--host H] [--kubeconfig FILE] [--audit-log FILE] [--no-lifecycle (= --lifecycle off)]
  [--no-controllers] [--history N] [--bookmark-interval-ms N] [--latency-ms N]
  [--error VERB:RESOURCE:RATE:CODE]... [--watch-cut-seconds N] [--watch-cut-events N]
  [--token IDENTITY=TOKEN]... [--advertise-url URL] [--kubeconfig-dir DIR] [--kubeconfig-for IDENTITY=FILE]...
  [--enable-admission-plugins OwnerReferencesPermissionEnforcement] [--data-dir DIR]
${controllerFlagsUsage}`;

export class FlagError extends Error {}

const OPTIONS = {
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
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>['values'];

function num(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) {
    throw new FlagError(`kube-sim: --${name} must be a non-negative number, got "${v}"\n${USAGE}`);
  }
  return n;
}

/** `--error VERB:RESOURCE:RATE:CODE`, each an error rule. */
function errorRules(specs: string[] = []): ErrorRule[] {
  return specs.map((spec) => {
    const [verb, resource, rate, code] = spec.split(':');
    const c = Number(code);
    if (!verb || !resource || !Number.isInteger(c)) {
      throw new FlagError(
        `kube-sim: --error wants VERB:RESOURCE:RATE:CODE (e.g. create:pods:0.1:500), got "${spec}"`,
      );
    }
    return { verb, resource, rate: Number(rate ?? 1), code: c };
  });
}

/** Repeated `KEY=VALUE` flags as a record (`allowEmpty`: whether VALUE may be empty). */
function pairs(
  flag: string,
  shape: string,
  specs: string[] = [],
  allowEmpty: boolean,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const spec of specs) {
    const i = spec.indexOf('=');
    if (i <= 0 || (!allowEmpty && i === spec.length - 1)) {
      throw new FlagError(`kube-sim: --${flag} wants ${shape}, got "${spec}"`);
    }
    out[spec.slice(0, i)] = spec.slice(i + 1);
  }
  return out;
}

function controllerOptions(values: Values): ControllerOptions {
  try {
    const options = controllerOptionsFromFlags(values);
    if (values['no-lifecycle'] !== true) return options;
    // --no-lifecycle is the old spelling of --lifecycle off.
    if (options.podLifecycle !== undefined && options.podLifecycle !== 'off')
      throw new Error(`kube-sim: --no-lifecycle contradicts --lifecycle ${String(options.podLifecycle)}`);
    return { ...options, podLifecycle: 'off' };
  } catch (e) {
    throw new FlagError(`${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
  }
}

function admissionPlugins(list: string | undefined): AdmissionPlugin[] {
  const plugins = (list ?? '').split(',').filter((p) => p !== '');
  const unknownPlugin = plugins.find((p) => !(ADMISSION_PLUGINS as readonly string[]).includes(p));
  if (unknownPlugin !== undefined) {
    throw new FlagError(
      `kube-sim: --enable-admission-plugins: unknown plugin "${unknownPlugin}" (known: ${ADMISSION_PLUGINS.join(', ')})`,
    );
  }
  return plugins as AdmissionPlugin[];
}

function advertiseUrl(advertise: string | undefined): string | undefined {
  if (advertise !== undefined && !/^https?:\/\/[^/]+\/?$/.test(advertise)) {
    throw new FlagError(`kube-sim: --advertise-url must be like https://host:port, got "${advertise}"`);
  }
  return advertise?.replace(/\/$/, '');
}

function parse(args: string[] | undefined): Values {
  try {
    return parseArgs({ ...(args ? { args } : {}), options: OPTIONS, strict: true }).values;
  } catch (e) {
    throw new FlagError(`kube-sim: ${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
  }
}

/** The options the flags give (`args`: process.argv's by default); `help` when --help asks for the usage. */
export function parseFlags(args?: string[]): 'help' | KubeSimOptions {
  const values = parse(args);
  if (values.help) return 'help';
  const errors = errorRules(values.error);
  const tokens = pairs('token', 'IDENTITY=TOKEN', values.token, true);
  const kubeconfigFiles = pairs('kubeconfig-for', 'IDENTITY=FILE', values['kubeconfig-for'], false);
  const controllers = controllerOptions(values);
  const advertise = advertiseUrl(values['advertise-url']);
  const plugins = admissionPlugins(values['enable-admission-plugins']);
  const history = num('history', values.history);
  const bookmark = num('bookmark-interval-ms', values['bookmark-interval-ms']);
  const cutS = num('watch-cut-seconds', values['watch-cut-seconds']);
  const cutE = num('watch-cut-events', values['watch-cut-events']);
  return {
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
    controllerOptions: controllers,
    ...(advertise ? { advertiseUrl: advertise } : {}),
    ...(values['kubeconfig-dir'] ? { kubeconfigDir: values['kubeconfig-dir'] } : {}),
    ...(Object.keys(kubeconfigFiles).length ? { kubeconfigFiles } : {}),
    ...(plugins.length ? { admissionPlugins: plugins } : {}),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
  };
}
