// npm run node-agent -- --kubeconfig PATH [--nodes N] [--namespace NS]…: nodes, a scheduler and a kubelet
// for a control plane without kubelets (an envtest-style kube-apiserver and etcd). Logs pino JSON to
// stdout; SIGTERM or SIGINT stop it (the nodes and pods stay as they are).
import { loadKubeConfig } from '@podset/kube';
import { pino } from 'pino';
import { startAgent, type Agent } from './agent.ts';
import { parseOptions, UsageError, USAGE, type AgentOptions } from './options.ts';

let options: AgentOptions | undefined;
try {
  options = parseOptions(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  process.stderr.write(`node-agent: ${err.message}\n\n${USAGE}\n`);
  process.exit(2);
}
if (options === undefined) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const log = pino({ name: 'node-agent', level: options.logLevel });
let kubeConfig;
try {
  kubeConfig = loadKubeConfig(options.kubeconfig !== undefined ? { kubeconfig: options.kubeconfig } : {});
} catch (err) {
  const where = options.kubeconfig !== undefined ? `--kubeconfig ${options.kubeconfig}: ` : '';
  process.stderr.write(`node-agent: ${where}${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
}

let agent: Agent | undefined;
let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'stopping');
  await agent?.stop();
  log.info('node agent stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

try {
  agent = await startAgent(kubeConfig, options, log);
} catch (err) {
  log.fatal({ err: err instanceof Error ? err.message : String(err) }, 'node agent failed to start');
  process.exit(1);
}
if (stopping) await agent.stop();
else
  log.info(
    { nodes: agent.nodes, namespaces: options.namespaces.length > 0 ? options.namespaces : 'all' },
    'node agent ready',
  );
