// kubectl-podset: `kubectl podset rollout status|history|undo|restart|pause|resume NAME`, run by kubectl's
// plugin mechanism through bin/kubectl-podset. It uses the user's kubeconfig as kubectl does: --kubeconfig,
// else KUBECONFIG, else ~/.kube/config; --context; -n, else the context's namespace, else default.
import { createKube, isKubeApiError, loadKubeConfig, type Kube } from '@podset/kube';
import { parseCommandLine, USAGE, type Args } from './args.ts';
import { run, type Io } from './commands.ts';

const io: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** kubectl's wording for an API error, e.g. `Error from server (NotFound): podsets.podset.io "web" not found`. */
function explain(err: unknown): string {
  if (isKubeApiError(err)) return `Error from server (${err.reason}): ${err.statusMessage}`;
  return `error: ${err instanceof Error ? err.message : String(err)}`;
}

async function main(argv: readonly string[]): Promise<number> {
  let args: Args | 'help';
  try {
    args = parseCommandLine(argv);
  } catch (err) {
    io.err(`error: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    return 1;
  }
  if (args === 'help') {
    io.out(USAGE);
    return 0;
  }
  let kube: Kube;
  let namespace: string;
  try {
    const kc = loadKubeConfig({
      ...(args.kubeconfig !== undefined ? { kubeconfig: args.kubeconfig } : {}),
      ...(args.context !== undefined ? { context: args.context } : {}),
    });
    namespace = args.namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? 'default';
    kube = createKube(kc, { userAgent: 'kubectl-podset' });
  } catch (err) {
    io.err(explain(err));
    return 1;
  }
  try {
    return await run(kube, namespace, args, io);
  } catch (err) {
    io.err(explain(err));
    return 1;
  } finally {
    await kube.client.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
