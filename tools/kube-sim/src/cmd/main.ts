// CLI: npm run kube-sim -- --port <p> --kubeconfig <file> [--audit-log f] [--no-lifecycle] ... (flags.ts)
import { DataDirError, type KubeSim, startKubeSim } from '../index.ts';
import { FlagError, parseFlags, USAGE } from './flags.ts';

/** A data dir that can't be used (unreadable or corrupt snapshot): say which file and why, exit 2. */
function exitOnDataDirError(e: unknown): never {
  if (!(e instanceof DataDirError)) throw e;
  console.error(e.message);
  process.exit(2);
}

const PORT_PROBLEMS: Record<string, string> = {
  EADDRINUSE: 'is already in use by another process',
  EACCES: 'may not be opened by this user (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'cannot be opened: the address is not one of this machine’s (--host)',
};

/** The port cannot be bound (taken, privileged): a usage error, one line naming --port, exit 2. */
function exitOnPortProblem(e: unknown, port: number | undefined, host: string | undefined): never {
  const code = (e as { code?: unknown } | null)?.code;
  const problem = typeof code === 'string' ? PORT_PROBLEMS[code] : undefined;
  if (problem === undefined) throw e;
  console.error(
    `kube-sim: port ${port ?? 0} on ${host ?? '127.0.0.1'} ${problem}: choose another with --port (0: a free port)`,
  );
  process.exit(2);
}

/** SIGINT and SIGTERM close the simulator and exit 0 (1 if closing fails). */
function exitOnSignals(sim: KubeSim): void {
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
}

async function main(): Promise<void> {
  let options;
  try {
    options = parseFlags();
  } catch (e) {
    if (!(e instanceof FlagError)) throw e;
    console.error(e.message);
    process.exit(2);
  }
  if (options === 'help') {
    console.log(USAGE);
    return;
  }
  const { port, host } = options;
  const sim = await startKubeSim(options)
    .catch(exitOnDataDirError)
    .catch((e: unknown) => exitOnPortProblem(e, port, host));
  exitOnSignals(sim);
  // One port speaks both: TLS (what the kubeconfigs use) and plain HTTP with a bearer token. The plain URL
  // comes first, as scripts read it from "listening on (http://…)".
  console.log(
    `kube-sim listening on ${sim.url} and ${sim.httpsUrl} (one port, plain or TLS; the kubeconfigs use TLS; kubeconfig: ${sim.kubeconfigPath})`,
  );
}

await main();
