// The kube-sim benchmark's options (bench/kube-sim.ts's command line), parsed once into one config.
import { parseArgs } from 'node:util';

export const USAGE =
  'usage: npm run bench:kube-sim -- [--pods N] [--clients N] [--watchers N] [--watch-events N] [--page-size N] [--json FILE] [--smoke] [--profile DIR] [--only label-list] [--label-pods N] [--label-groups N] [--label-iterations N]';

export const NS = 'bench';
export const LABEL_NS = 'bench-labels';
export const TARGET_CREATES = 2_000;
export const TARGET_RSS = 1024 ** 3;

export interface Config {
  smoke: boolean;
  json: string | undefined;
  profile: string | undefined;
  only: 'label-list' | undefined;
  pods: number;
  clients: number;
  watchers: number;
  watchEvents: number;
  page: number;
  labelPods: number;
  labelGroups: number;
  labelIterations: number;
}

/** The config of `argv`; prints the usage and exits 0 on --help, says what is wrong and exits 2 on a bad value. */
export function parseConfig(argv: string[]): Config {
  const { values: args } = parseArgs({
    args: argv,
    options: {
      pods: { type: 'string' },
      clients: { type: 'string', default: '32' },
      watchers: { type: 'string', default: '10' },
      'watch-events': { type: 'string' },
      'page-size': { type: 'string', default: '500' },
      json: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      profile: { type: 'string' },
      only: { type: 'string' },
      'label-pods': { type: 'string' },
      'label-groups': { type: 'string' },
      'label-iterations': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (args.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const smoke = args.smoke;
  const pods = int('pods', args.pods, smoke ? 2_000 : 100_000);
  const labelPods = int('label-pods', args['label-pods'], smoke ? 2_000 : 10_000);
  const config: Config = {
    smoke,
    json: args.json,
    profile: args.profile,
    only: undefined,
    pods,
    clients: int('clients', args.clients, 32),
    watchers: int('watchers', args.watchers, 10),
    watchEvents: Math.min(int('watch-events', args['watch-events'], smoke ? 500 : 10_000), pods),
    page: int('page-size', args['page-size'], 500),
    labelPods,
    labelGroups: Math.min(int('label-groups', args['label-groups'], smoke ? 200 : 1_000), labelPods),
    labelIterations: int('label-iterations', args['label-iterations'], smoke ? 300 : 2_000),
  };
  if (args.only !== undefined && args.only !== 'label-list') {
    console.error(`bench: --only knows "label-list", got "${args.only}"`);
    process.exit(2);
  }
  config.only = args.only;
  return config;
}

function int(name: string, v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`bench: --${name} must be a positive integer, got "${v}"`);
    process.exit(2);
  }
  return n;
}
